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
}

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
  fn: (store: SessionStore, ctx: { reopen?: () => Promise<SessionStore> }) => Promise<void>,
): Promise<void> {
  const opened = await subject.open();
  try {
    await fn(opened.store, { reopen: opened.reopen });
  } finally {
    await opened.store.close();
    await opened.cleanup?.();
  }
}
