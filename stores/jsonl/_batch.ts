/**
 * Group commit for appends: appends to one session file that arrive while an earlier one
 * waits for (or holds) the file's lock are written together, as one write and one `fsync`,
 * under one lock. A durable append costs what the disk costs (issue 12), and eight appends
 * in flight pay for one or two flushes, not eight.
 *
 * Every append in a group resolves only after the group's bytes are durable, so an
 * acknowledged append is as safe as before; a failed group is rolled back whole (the file
 * is byte-identical to before it) and every append in it rejects with the same error.
 * Input is checked before an append joins a group, so one caller's bad entry never fails
 * another caller's append.
 *
 * @module
 */
import type { SessionEntry } from "../../src/schema.ts";

/**
 * Writes one group: `entries` and their serialised lines (`bytes`, UTF-8) in arrival order,
 * under the file's lock. Resolves like `appendEntries` (false: the optimistic path was wrong).
 *
 * @example
 * ```ts
 * import { type GroupWriter } from "./_batch.ts";
 * const write: GroupWriter = async (path, sessionId, entries, bytes, optimistic) => true;
 * ```
 */
export type GroupWriter = (
  path: string,
  sessionId: string,
  entries: readonly SessionEntry[],
  bytes: Uint8Array,
  optimistic: boolean,
) => Promise<boolean>;

/**
 * Runs `fn` holding the file's lock (the store's `#locked`).
 *
 * @example
 * ```ts
 * import { type LockedRunner } from "./_batch.ts";
 * const run: LockedRunner = async (path, fn) => await fn();
 * ```
 */
export type LockedRunner = <T>(path: string, fn: () => Promise<T>) => Promise<T>;

interface Group {
  entries: SessionEntry[];
  /** Each append's lines, encoded once by the store (the write and its bookkeeping share them). */
  parts: Uint8Array[];
  done: Promise<boolean>;
}

/** The parts as one array: the part itself when there is one (the usual case). */
function joined(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Collects concurrent appends per (file, session, optimistic) into groups.
 *
 * @example
 * ```ts
 * import { AppendGroups } from "./_batch.ts";
 * const groups = new AppendGroups(async (_path, fn) => await fn(), async () => true);
 * await Promise.all([
 *   groups.add("a.jsonl", "s1", [], new Uint8Array(0), false),
 *   groups.add("a.jsonl", "s1", [], new Uint8Array(0), false),
 * ]);
 * ```
 */
export class AppendGroups {
  /** Groups not yet written: appends arriving now join them. */
  readonly #open = new Map<string, Group>();
  readonly #locked: LockedRunner;
  readonly #write: GroupWriter;

  constructor(locked: LockedRunner, write: GroupWriter) {
    this.#locked = locked;
    this.#write = write;
  }

  /** Append within the next group for the file; resolves once that group is durable. */
  add(
    path: string,
    sessionId: string,
    entries: readonly SessionEntry[],
    bytes: Uint8Array,
    optimistic: boolean,
  ): Promise<boolean> {
    const key = `${optimistic ? 1 : 0}\n${sessionId}\n${path}`;
    let group = this.#open.get(key);
    if (!group) {
      const fresh: Group = { entries: [], parts: [], done: Promise.resolve(false) };
      this.#open.set(key, fresh);
      // The lock is taken asynchronously, so appends made meanwhile join before the write;
      // the group closes the moment the lock is held (later appends form the next one).
      const close = () => {
        if (this.#open.get(key) === fresh) this.#open.delete(key);
      };
      fresh.done = this.#locked(path, () => {
        close();
        return this.#write(path, sessionId, fresh.entries, joined(fresh.parts), optimistic);
      });
      fresh.done.catch(close); // the lock was never taken (timeout): the next append retries
      group = fresh;
    }
    group.entries.push(...entries);
    group.parts.push(bytes);
    return group.done;
  }
}
