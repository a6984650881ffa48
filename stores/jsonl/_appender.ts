/**
 * How the JSONL store appends: within a burst (`_append.ts` `appendInBurst`) when this
 * store wrote the file last and nothing else is under way, else the general way: the ids
 * checked against the file, the entries serialised before the file is touched, then
 * written in a group with the appends that arrive meanwhile (`_batch.ts`), under the file's
 * lock, optimistically at the cached path first.
 *
 * @module
 */
import { serializeEntries } from "../../src/jsonl.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { storageOperation } from "../../src/store.ts";
import type { Durability, JsonlFolderFs } from "./_folder.ts";
import { appendContext, appendEntries, appendInBurst, type BurstContext } from "./_append.ts";
import { AppendGroups, type LockedRunner } from "./_batch.ts";
import type { KnownFiles } from "./_known.ts";

/**
 * The append side of one store.
 *
 * @example
 * ```ts
 * import { JsonlAppender } from "./_appender.ts";
 * import { KnownFiles } from "./_known.ts";
 * import { JsonlListingCache } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const files = new KnownFiles(fs, new JsonlListingCache());
 * const appender = new JsonlAppender(fs, files, "relaxed", async (_path, fn) => await fn());
 * ```
 */
export class JsonlAppender {
  readonly #files: KnownFiles;
  readonly #context: BurstContext;
  readonly #groups: AppendGroups;
  #appending = 0; // appends under way the general way (not within a burst)

  /** `locked` runs a group's write holding the file's lock, kept for the next append. */
  constructor(
    fs: JsonlFolderFs,
    files: KnownFiles,
    durability: Durability,
    locked: LockedRunner,
  ) {
    this.#files = files;
    this.#context = appendContext(fs, files, durability);
    this.#groups = new AppendGroups(
      locked,
      (path, id, entries, lines, optimistic) =>
        appendEntries(this.#context, path, id, entries, lines, optimistic),
    );
  }

  /** Append `given` to the session (see the module doc); resolves once written. */
  append(sessionId: string, given: readonly SessionEntry[]): Promise<void> {
    // Appends made while another is under way go the general way, so they stay in order.
    const burst = this.#appending === 0 && appendInBurst(this.#context, sessionId, given);
    if (burst === true) return Promise.resolve();
    if (burst !== false) return burst; // rejects: the write failed
    return this.#appendGenerally(sessionId, given);
  }

  async #appendGenerally(sessionId: string, given: readonly SessionEntry[]): Promise<void> {
    const files = this.#files;
    this.#appending++;
    try {
      const entries = await files.newEntries(sessionId, given);
      if (given.length > 0 && entries.length === 0) return; // all stored already: a retry
      // Serialise first: an unserialisable entry fails before the file is touched.
      const lines = await storageOperation("append", () => serializeEntries(entries));
      const cached = files.locator.cached(sessionId);
      if (cached !== undefined && entries.length > 0) {
        // Optimistic: the checks under the lock (stat, header) confirm the cached file.
        if (await this.#groups.add(cached, sessionId, entries, lines, true)) {
          return files.appended(cached, entries, lines);
        }
        files.forget(cached);
      }
      const path = await files.require(sessionId);
      if (entries.length > 0) {
        await this.#groups.add(path, sessionId, entries, lines, false);
        files.appended(path, entries, lines);
      }
    } finally {
      this.#appending--;
    }
  }
}
