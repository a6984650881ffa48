/**
 * How a store offers lazy opens to `SessionManager.open` (src/lazy_index.ts): the
 * capability symbol, its feature test, and the weak registry a store keeps of the sessions
 * it opened lazily, so it can detach them before it rewrites, deletes or closes what they
 * read from.
 *
 * @module
 */
import type { LazySession } from "./lazy_index.ts";

/**
 * The store capability behind a lazy `SessionManager.open`, under a registered symbol so it
 * stays off the stores' public surface while the design settles (a copy of this module in
 * another bundle still finds it).
 */
export const OPEN_LAZY: unique symbol = Symbol.for("@mu/sessions.openLazy") as never;

/** A store that can open a session lazily. */
export interface LazyOpeningStore {
  /** The session's compact columns and a body reader, or `undefined`: load it in full. */
  [OPEN_LAZY](sessionId: string): Promise<LazySession | undefined>;
}

/**
 * Feature test for {@link LazyOpeningStore}.
 *
 * @example
 * ```ts
 * import { canOpenLazy } from "./lazy_index.ts";
 * canOpenLazy({}); // false
 * ```
 */
export function canOpenLazy(store: object): store is LazyOpeningStore {
  return typeof (store as Partial<LazyOpeningStore>)[OPEN_LAZY] === "function";
}

/** A lazily opened session's storage link, which its store can cut (copying what it needs). */
export interface Detachable {
  /** What the store knows it by (session id, file path). */
  readonly key: string;
  detach(): void;
}

/**
 * A store's lazily opened sessions, held weakly (a manager dropped is forgotten), so the
 * store can detach them before it rewrites, deletes or closes what they read from.
 *
 * @example
 * ```ts
 * import { LazyHolders } from "./lazy_index.ts";
 * const holders = new LazyHolders();
 * holders.add({ key: "s1", detach: () => {} });
 * holders.take("s1").forEach((held) => held.detach());
 * ```
 */
export class LazyHolders<T extends Detachable = Detachable> {
  readonly #refs = new Set<WeakRef<T>>();

  add(held: T): void {
    this.#refs.add(new WeakRef(held));
  }

  /** Forget and return the live ones with this key (every one without a key). */
  take(key?: string): T[] {
    const taken: T[] = [];
    for (const ref of this.#refs) {
      const held = ref.deref();
      if (held && key !== undefined && held.key !== key) continue;
      this.#refs.delete(ref);
      if (held) taken.push(held);
    }
    return taken;
  }
}
