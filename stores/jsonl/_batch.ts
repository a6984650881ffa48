/**
 * Group commit for appends: appends to one session file that arrive while an earlier one
 * waits for (or holds) the file's lock are written together, as one write and one `fsync`,
 * under one lock. A durable append costs what the disk costs, and eight appends
 * in flight pay for one or two flushes, not eight.
 *
 * Every append in a group resolves only after the group's bytes are durable, so an
 * acknowledged append is as safe as before; a failed group is rolled back whole (the file
 * is byte-identical to before it) and every append in it rejects with the same error.
 * Input is checked before an append joins a group, so one caller's bad entry never fails
 * another caller's append; an entry id already in the group is checked there too (the same
 * entry joins once, other content under the id rejects that caller alone).
 *
 * @module
 */
import { newEntries } from "../../src/guarded_store.ts";
import { serializeEntries, toJsonLine } from "../../src/jsonl.ts";
import type { SessionEntry } from "../../src/schema.ts";

/**
 * Writes one group: `entries` and their serialised `lines` in arrival order, under the
 * file's lock. Resolves like `appendEntries` (false: the optimistic path was wrong).
 *
 * @example
 * ```ts
 * import { type GroupWriter } from "./_batch.ts";
 * const write: GroupWriter = async (path, sessionId, entries, lines, optimistic) => true;
 * ```
 */
export type GroupWriter = (
  path: string,
  sessionId: string,
  entries: readonly SessionEntry[],
  lines: string,
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
  /** The group's entries by id (two callers may append one id at once). */
  ids: Map<string, SessionEntry>;
  entries: SessionEntry[];
  lines: string[];
  done: Promise<boolean>;
}

/**
 * Collects concurrent appends per (file, session, optimistic) into groups.
 *
 * @example
 * ```ts
 * import { AppendGroups } from "./_batch.ts";
 * const groups = new AppendGroups(async (_path, fn) => await fn(), async () => true);
 * await Promise.all([
 *   groups.add("a.jsonl", "s1", [], "", false),
 *   groups.add("a.jsonl", "s1", [], "", false),
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
    lines: string,
    optimistic: boolean,
  ): Promise<boolean> {
    const key = `${optimistic ? 1 : 0}\n${sessionId}\n${path}`;
    let group = this.#open.get(key);
    if (!group) {
      const fresh: Group = { ids: new Map(), entries: [], lines: [], done: Promise.resolve(false) };
      this.#open.set(key, fresh);
      // The lock is taken asynchronously, so appends made meanwhile join before the write;
      // the group closes the moment the lock is held (later appends form the next one).
      const close = () => {
        if (this.#open.get(key) === fresh) this.#open.delete(key);
      };
      fresh.done = this.#locked(path, () => {
        close();
        return this.#write(path, sessionId, fresh.entries, fresh.lines.join(""), optimistic);
      });
      fresh.done.catch(close); // the lock was never taken (timeout): the next append retries
      group = fresh;
    }
    const { ids } = group;
    if (entries.some((entry) => ids.has(entry.id))) {
      const inGroup = (id: string) => {
        const earlier = ids.get(id);
        return earlier && toJsonLine(earlier, "entry");
      };
      try {
        entries = newEntries(sessionId, entries, inGroup);
      } catch (error) {
        return Promise.reject(error);
      }
      lines = serializeEntries(entries);
    }
    for (const entry of entries) ids.set(entry.id, entry);
    group.entries.push(...entries);
    group.lines.push(lines);
    return group.done;
  }
}
