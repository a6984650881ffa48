/**
 * What one JSONL store knows about its session files without reading them: which file holds
 * which id (`_locate.ts`), each file's stat and header after the store's own last write
 * (`KnownFile`), its listing-cache entry (`_cache.ts`) and where its entry ids are
 * (`_entry_ids.ts`). Kept in one object so a file is always remembered and forgotten in all
 * four at once: a rewrite, a foreign header or a delete never leaves one of them stale.
 *
 * @module
 */
import { SessionNotFoundError } from "../../src/errors.ts";
import { listingStateOf } from "../../src/_listing.ts";
import { assertNoCycleAcrossAppends, newEntries } from "../../src/guarded_store.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { storageOperation } from "../../src/store.ts";
import type { KnownFile } from "./_append.ts";
import { cachedAfterWrite, type JsonlListingCache } from "./_cache.ts";
import { EntryIdPlaces } from "./_entry_ids.ts";
import type { FileStat, JsonlFolderFs } from "./_folder.ts";
import { SessionLocator } from "./_locate.ts";
import { headerInfoOf } from "./_rewrite.ts";

const encoder = new TextEncoder();

/**
 * The file knowledge of one store.
 *
 * @example
 * ```ts
 * import { KnownFiles } from "./_known.ts";
 * import { JsonlListingCache } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const files = new KnownFiles(new NodeJsonlFolderFs("/tmp/sessions"), new JsonlListingCache());
 * await files.require("some-id").catch(() => undefined); // SessionNotFoundError when absent
 * ```
 */
export class KnownFiles {
  readonly #fs: JsonlFolderFs;
  readonly cache: JsonlListingCache;
  readonly locator: SessionLocator;
  /** Files this store wrote or verified, by path. */
  readonly known = new Map<string, KnownFile>();
  readonly #entryIds: EntryIdPlaces;

  constructor(fs: JsonlFolderFs, cache: JsonlListingCache) {
    this.#fs = fs;
    this.cache = cache;
    this.locator = new SessionLocator(fs);
    this.#entryIds = new EntryIdPlaces(fs);
  }

  /** The file holding `sessionId`; `SessionNotFoundError` when there is none. */
  async require(sessionId: string): Promise<string> {
    const path = await storageOperation("lookup", () => this.locator.locate(sessionId));
    if (path === undefined) throw new SessionNotFoundError(sessionId);
    return path;
  }

  /** Record a file this store just wrote whole, so lookups and listings read nothing. */
  async wrote(
    path: string,
    header: SessionHeader,
    entries: readonly SessionEntry[],
    bytes: Uint8Array,
  ): Promise<void> {
    const stat = await this.#fs.stat(path);
    this.forget(path);
    if (!stat) return;
    const { info, text } = headerInfoOf(header, this.#fs.describe(path));
    this.known.set(path, { stat, info, endsWithNewline: true });
    this.locator.remember(path, header.id);
    this.cache.set(
      this.#fs.describe(path),
      cachedAfterWrite(stat, info, text, listingStateOf(entries), bytes),
    );
  }

  /**
   * The entries the session does not hold yet; other content under a held id rejects. Read
   * before the append's lock, so a retry writes nothing and a conflict fails before any
   * waiting; {@link unstoredUnderLock} checks again once the lock is held.
   */
  async newEntries(
    sessionId: string,
    given: readonly SessionEntry[],
  ): Promise<readonly SessionEntry[]> {
    if (given.length === 0) return given;
    const path = this.locator.cached(sessionId) ?? await this.require(sessionId);
    const ids = given.map((entry) => entry.id);
    const known = this.known.get(path)?.stat;
    const stored = await storageOperation(
      "append",
      () => this.#entryIds.storedLines(path, ids, known),
    );
    const fresh = newEntries(sessionId, given, (id) => stored.get(id));
    await this.#assertNoCycle(path, sessionId, fresh);
    return fresh;
  }

  /**
   * The check of {@link newEntries} again, under the file's lock, for an append group: from
   * the file's `stat` the append just took, only bytes another process appended since the
   * last look are scanned (none, when this store wrote last). A group holds each id once
   * (`_batch.ts`).
   */
  async unstoredUnderLock(
    path: string,
    sessionId: string,
    stat: FileStat,
    entries: readonly SessionEntry[],
  ): Promise<readonly SessionEntry[]> {
    const ids = entries.map((entry) => entry.id);
    const stored = await this.#entryIds.storedLines(path, ids, stat);
    const fresh = newEntries(sessionId, entries, (id) => stored.get(id));
    await this.#assertNoCycle(path, sessionId, fresh);
    return fresh.length === entries.length ? entries : fresh;
  }

  /**
   * Refuse new entries that would close a parent cycle through a stored line naming one of
   * them as its missing parent; the file is read whole only when such a line exists.
   */
  async #assertNoCycle(path: string, sessionId: string, fresh: readonly SessionEntry[]) {
    const dangling = this.#entryIds.danglingAmong(path, fresh.map((entry) => entry.id));
    if (dangling.size === 0) return;
    const parents = await storageOperation("append", () => this.#entryIds.parentLinks(path));
    assertNoCycleAcrossAppends(sessionId, fresh, dangling, (id) => parents.get(id));
  }

  /**
   * Whether the session file `path` is known, without reading it, to hold none of the
   * entries' ids as of this store's last write or check of it.
   */
  holdsNoneOf(path: string, entries: readonly SessionEntry[]): boolean {
    const stat = this.known.get(path)?.stat;
    const ids = entries.map((e) => e.id);
    // A new id some stored line names as its missing parent takes the general way, which
    // checks for a cycle through it.
    return stat !== undefined && this.#entryIds.holdsNoneOf(path, ids, stat) &&
      this.#entryIds.danglingAmong(path, ids).size === 0;
  }

  /** Record this store's committed append of `lines` (or of `lines` bytes) to `path`. */
  appended(path: string, entries: readonly SessionEntry[], lines: string | number): void {
    const after = this.known.get(path)?.stat;
    const bytes = typeof lines === "number" ? lines : encoder.encode(lines).length;
    this.#entryIds.appended(path, entries, bytes, after);
  }

  /** Drop everything known about `path` (rewritten, deleted or holding another session). */
  forget(path: string): void {
    this.#entryIds.forget(path);
    this.known.delete(path);
    this.cache.delete(this.#fs.describe(path));
    this.locator.forget(path);
  }
}
