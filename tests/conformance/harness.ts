/**
 * How the conformance suite meets a runtime: a `Register` function (Deno.test, node:test's
 * `test`, or the browser page runner) and a `StoreSubject` that opens fresh storage.
 */
import type { SessionStore } from "../../core.ts";

/** Registers one named async test with the runtime's test runner. */
export type Register = (name: string, fn: () => Promise<void>) => void;

/** Fresh storage for one test. */
export interface OpenedStore {
  store: SessionStore;
  /** Open a new store instance over the same storage (persistence tests). Omit for memory. */
  reopen?: () => Promise<SessionStore>;
  /** Remove the storage after the test (temp dirs, databases). */
  cleanup?: () => Promise<void>;
  /**
   * Storage-fault hook, for drivers whose storage layer can be wrapped: make the next write
   * that reaches storage fail (as an I/O error would), so the suite checks that the store
   * rejects with a typed error and keeps what was committed. Resolve once armed.
   */
  failNextWrite?: () => void | Promise<void>;
  /** Make one session's stored records unreadable (a torn write or a bad hand edit). */
  damage?: (sessionId: string) => Promise<void>;
}

/** What a test gets beside the store: the subject's optional hooks. */
export type StoreContext = Omit<OpenedStore, "store" | "cleanup">;

/** A driver under test. */
export interface StoreSubject {
  /** Shown in test names: "sqlite (node:sqlite)", "jsonl (deno fs)", ... */
  name: string;
  /** Open a store over fresh, empty storage. */
  open(): Promise<OpenedStore>;
}

/** Open fresh storage, run `fn`, always close (close must be idempotent) and clean up. */
export async function withStore(
  subject: StoreSubject,
  fn: (store: SessionStore, ctx: StoreContext) => Promise<void>,
): Promise<void> {
  const opened = await subject.open();
  try {
    const { store, cleanup: _, ...ctx } = opened;
    await fn(store, ctx);
  } finally {
    await opened.store.close();
    await opened.cleanup?.();
  }
}
