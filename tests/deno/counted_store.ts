/**
 * A store whose session reads are counted, for the `mu serve` tests: they count opens
 * (a full load or a lazy open each count one) and full loads, not time.
 *
 * @module
 */
import type { SessionStore } from "../../core.ts";
import { OPEN_LAZY } from "../../src/lazy_store.ts";

/** `store` with its session reads counted: full loads, and opens (a load or a lazy open each count one). */
export function counted(store: SessionStore) {
  let opens = 0;
  let loads = 0;
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key === "load" || key === OPEN_LAZY) {
        return (...args: unknown[]) => {
          opens++;
          if (key === "load") loads++;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
  return { store: proxy, opens: () => opens, loads: () => loads };
}
