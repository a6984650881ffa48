/**
 * Upgrades of older session data to format 4, in memory: v1 -> v2 (ids and a parent
 * chain), v2 -> v3 (`hookMessage` -> `custom`), v3 and early v4 -> v4 (header fields).
 *
 * Upgrades never mutate their input: a changed record is a new object, an unchanged one
 * is passed through as the same object (so its raw JSON text stays valid for export).
 *
 * @module
 */
import { SessionFormatError } from "./errors.ts";
import { toHex } from "./_hex.ts";
import { CURRENT_SESSION_VERSION } from "./_entry_check.ts";

type JsonObject = Record<string, unknown>;

/** Result of {@link upgradeRecords}. */
export interface UpgradeResult {
  header: JsonObject;
  entries: JsonObject[];
  /** Version of the input (1-4). */
  sourceVersion: number;
  /** Whether anything was changed. */
  upgraded: boolean;
}

/**
 * The format version a header declares: absent/null means 1; 1-4 are accepted; any other
 * value throws a {@link SessionFormatError} that says whether it is a future version.
 *
 * @example
 * ```ts
 * import { headerVersion } from "./_migrate.ts";
 * headerVersion({ type: "session", id: "x" }); // 1
 * ```
 */
export function headerVersion(header: JsonObject, line = 1, source?: string): number {
  const version = header.version;
  if (version === undefined || version === null) return 1;
  if (typeof version === "number" && Number.isInteger(version)) {
    if (version >= 1 && version <= CURRENT_SESSION_VERSION) return version;
    if (version > CURRENT_SESSION_VERSION) {
      throw new SessionFormatError(
        `session format version ${version} is newer than this library supports (1-${CURRENT_SESSION_VERSION}); upgrade @mu/sessions to open it`,
        { line, source },
      );
    }
  }
  throw new SessionFormatError(
    `unrecognised session format version ${
      JSON.stringify(version)
    } (expected an integer 1-${CURRENT_SESSION_VERSION})`,
    { line, source },
  );
}

/**
 * Random bytes drawn a block at a time: on Node each `crypto.getRandomValues` call costs
 * about as much as a small append's own work, whatever its size, and every append draws an id.
 */
const RANDOM_POOL_BYTES = 1024;
// Pure, so a bundle that never generates an id (the edge handler's) drops the pool.
const randomPool = /* @__PURE__ */ new Uint8Array(RANDOM_POOL_BYTES);
let poolUsed = RANDOM_POOL_BYTES;

function randomBytes4(): Uint8Array {
  if (poolUsed + 4 > randomPool.length) {
    crypto.getRandomValues(randomPool);
    poolUsed = 0;
  }
  poolUsed += 4;
  return randomPool.subarray(poolUsed - 4, poolUsed);
}

/** A fresh 8-hex entry id not in `taken` (the caller adds it). Retries on collision. */
export function generateEntryId(taken: { has(id: string): boolean }): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = toHex(randomBytes4());
    if (!taken.has(id)) return id;
  }
  return crypto.randomUUID();
}

/**
 * The session id named by an older `parentSession` value. Older files stored the parent's
 * file path (`.../<timestamp>_<id>.jsonl`); anything else is taken as an id already.
 */
export function parentSessionIdFrom(parentSession: string): string {
  const base = parentSession.split(/[\\/]/).pop() ?? parentSession;
  const match = /^[^_]*_(.+)\.jsonl$/.exec(base);
  if (match) return match[1];
  return base.endsWith(".jsonl") ? base.slice(0, -".jsonl".length) : parentSession;
}

/** Rebuild an object renaming keys in place, so key order is kept. */
function renameKeys(
  value: JsonObject,
  renames: Record<string, string>,
  drop: Set<string> = new Set(),
): JsonObject {
  const out: JsonObject = {};
  for (const [key, field] of Object.entries(value)) {
    if (drop.has(key)) continue;
    out[renames[key] ?? key] = field;
  }
  return out;
}

function upgradeHeaderToV4(header: JsonObject): JsonObject {
  const renames: Record<string, string> = {};
  const drop = new Set<string>();
  if (header.createdAt === undefined && header.timestamp !== undefined) {
    renames.timestamp = "createdAt";
  }
  if (header.parentSession !== undefined) {
    if (header.parentSessionId === undefined && typeof header.parentSession === "string") {
      renames.parentSession = "parentSessionId";
    } else {
      drop.add("parentSession");
    }
  }
  // A v1 header has no version key: put it right after `type`, where writers put it.
  const withVersion = "version" in header
    ? header
    : { type: header.type, version: undefined, ...header };
  const out = renameKeys(withVersion, renames, drop);
  out.version = CURRENT_SESSION_VERSION;
  if (typeof out.parentSessionId === "string" && renames.parentSession) {
    out.parentSessionId = parentSessionIdFrom(out.parentSessionId);
  }
  return out;
}

/** Whether a version-4 header still has the early field names. */
function isEarlyV4(header: JsonObject): boolean {
  return (header.createdAt === undefined && header.timestamp !== undefined) ||
    header.parentSession !== undefined;
}

/** Whether v1 entries already form a tree (every entry has an id and a parentId key). */
function hasTreeIds(entries: JsonObject[]): boolean {
  const ids = new Set<string>();
  for (const entry of entries) {
    if (typeof entry.id !== "string" || !entry.id || ids.has(entry.id)) return false;
    if (entry.parentId !== null && typeof entry.parentId !== "string") return false;
    ids.add(entry.id);
  }
  return true;
}

/** 32-bit FNV-1a of a string, as 8 hex characters. */
function fnv1aHex(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * Ids for v1 entries, derived from the session id and the record's position: every reader
 * of one v1 file (two processes, an export and a later open) gets the same ids, so an
 * upgrade persisted by one of them agrees with what the others hold in memory.
 */
export function deterministicEntryIds(sessionId: string, count: number): string[] {
  const taken = new Set<string>();
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    let id = fnv1aHex(`${sessionId}\u0000${index}`);
    for (let attempt = 1; taken.has(id); attempt++) {
      id = fnv1aHex(`${sessionId}\u0000${index}\u0000${attempt}`);
    }
    taken.add(id);
    ids.push(id);
  }
  return ids;
}

function upgradeV1ToV2(sessionId: string, entries: JsonObject[]): JsonObject[] {
  // A header without a version whose entries already carry a tree is kept as a tree
  // (the older readers flattened such files into one chain, losing branches).
  if (hasTreeIds(entries)) return entries;
  const ids = deterministicEntryIds(sessionId, entries.length);
  return entries.map((entry, index) => {
    const out: JsonObject = {
      type: entry.type,
      id: ids[index],
      parentId: index === 0 ? null : ids[index - 1],
    };
    for (const [key, value] of Object.entries(entry)) {
      if (key === "type" || key === "id" || key === "parentId" || key === "firstKeptEntryIndex") {
        continue;
      }
      out[key] = value;
    }
    if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
      // The index counts records of the original file with the header as 0.
      const target = entry.firstKeptEntryIndex - 1;
      if (Number.isInteger(target) && target >= 0 && target < entries.length) {
        out.firstKeptEntryId = ids[target];
      }
    }
    return out;
  });
}

function upgradeV2ToV3(entries: JsonObject[]): JsonObject[] {
  return entries.map((entry) => {
    const message = entry.message as JsonObject | undefined;
    if (entry.type !== "message" || !message || message.role !== "hookMessage") return entry;
    return { ...entry, message: { ...message, role: "custom" } };
  });
}

/**
 * Upgrade a header and its entries (as parsed JSON) to format 4.
 *
 * @example
 * ```ts
 * import { upgradeRecords } from "./_migrate.ts";
 * const { header, upgraded } = upgradeRecords(
 *   { type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" }, [],
 * );
 * header.createdAt; // "2025-01-01T00:00:00.000Z"; upgraded === true
 * ```
 */
export function upgradeRecords(
  header: JsonObject,
  entries: JsonObject[],
  source?: string,
): UpgradeResult {
  const sourceVersion = headerVersion(header, 1, source);
  if (sourceVersion === CURRENT_SESSION_VERSION && !isEarlyV4(header)) {
    return { header, entries, sourceVersion, upgraded: false };
  }
  let upgradedEntries = entries;
  if (sourceVersion < 2) upgradedEntries = upgradeV1ToV2(String(header.id ?? ""), upgradedEntries);
  if (sourceVersion < 3) upgradedEntries = upgradeV2ToV3(upgradedEntries);
  return {
    header: upgradeHeaderToV4(header),
    entries: upgradedEntries,
    sourceVersion,
    upgraded: true,
  };
}
