/**
 * The JSONL store's resume index (`stores/jsonl/scan/_resume_file.ts`, issue 12), for Deno and Node
 * alike: a large session checked once leaves an index in `.mu-index/`, and the next
 * `SessionManager.open` or context load parses only the lines appended since (counted as
 * bytes streamed, not timed) and answers like a full load. The index never outlives its
 * bytes' trust: an unchanged file (same device, inode, size, times) is resumed without
 * reading it, any other is hashed; a file rewritten in place with an invalid entry (its
 * mtime put back) is rejected with the full parser's error, a torn index is ignored and rewritten, a deleted session takes its index
 * with it, and `resumeIndex: false` writes none.
 */
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "./subjects.ts";
import { user, v4Header } from "./helpers.ts";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { resumeIndexPath } from "../../stores/jsonl/scan/_resume_file.ts";
import { CountingFs } from "./counting_fs.ts";
import { attachBackend, backendOf } from "../../stores/jsonl/_backend.ts";
import { RACY_MS, RESUME_INDEX_VERSION } from "../../stores/jsonl/scan/_resume_index.ts";
import { encodeSideFile } from "../../stores/jsonl/_side_file.ts";
import {
  buildSessionProjection,
  loadSessionProjection,
  SessionFormatError,
  SessionManager,
} from "../../core.ts";
import type { SessionEntry } from "../../core.ts";

/**
 * Counts the session bytes the checking pass streams (parses) and the ones it reads by
 * range (hashing an index's prefix; bodies are read with `readSync`), apart from the index
 * file's own.
 */
class StreamCountingFs extends CountingFs {
  streamed = 0;
  ranged = 0;
  override async *readStream(path: string, start?: number): AsyncIterable<Uint8Array> {
    for await (const chunk of super.readStream(path, start)) {
      if (!path.startsWith(".mu-index")) this.streamed += chunk.length;
      yield chunk;
    }
  }
  /**
   * The inner backend's extras, forwarded: the identity lets an unchanged file go unread,
   * `readSync` reads bodies back from the file rather than keeping them as read.
   */
  constructor(inner: NodeJsonlFolderFs) {
    super(inner);
    attachBackend(this, backendOf(inner));
  }
  override async read(path: string, start: number, end: number): Promise<Uint8Array> {
    const bytes = await super.read(path, start, end);
    if (!path.startsWith(".mu-index")) this.ranged += bytes.length;
    return bytes;
  }
}

/** Past the window in which a file's identity is too fresh to vouch for its bytes. */
const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

/** About 9.6 MB of entries: over the 8 MiB below which files get no index. */
function bigEntries(prefix: string, count: number, parentId: string | null): SessionEntry[] {
  const text = "lorem ipsum dolor sit amet ".repeat(1_100);
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    const entry = user(`${prefix}${i}`, parentId, `${i} ${text}`);
    entries.push(entry);
    parentId = entry.id;
  }
  return entries;
}

async function withFolder(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await tempDir();
  try {
    await fn(dir);
  } finally {
    await removeDir(dir);
  }
}

function storeIn(dir: string, options: { resumeIndex?: boolean } = {}) {
  const fs = new StreamCountingFs(new NodeJsonlFolderFs(dir, { trashCommand: false }));
  return { fs, store: new JsonlSessionStore(fs, options) };
}

/** Open the session through the manager in a new store; its context and bytes streamed. */
async function resume(dir: string, id: string) {
  const { fs, store } = storeIn(dir);
  try {
    const manager = await SessionManager.open(store, id);
    return {
      context: manager.buildSessionContext(),
      cwd: manager.getCwd(),
      streamed: fs.streamed,
      ranged: fs.ranged,
    };
  } finally {
    await store.close();
  }
}

/** Register the cases with a test runner (`Deno.test`, `node:test`). */
export function resumeIndexCases(
  test: (name: string, fn: () => Promise<void>) => void,
  label: string,
): void {
  test(`${label}: a large session opened again parses only the lines appended since its index`, () =>
    withFolder(async (dir) => {
      const first = storeIn(dir);
      const header = v4Header("resume-1");
      const entries = bigEntries("a", 350, null);
      const path = (await first.store.create(header, entries)).path!;
      await first.store.close();
      const size = statSync(path).size;
      assert(size > 8 << 20, `${size} bytes`);

      await pastRacyWindow();
      const opened = await resume(dir, header.id);
      assertEquals(opened.streamed, size, "the first open checks the whole file");
      const indexFile = join(dir, resumeIndexPath(path.slice(dir.length + 1)));
      assert(statSync(indexFile).size > 0, "and leaves an index");

      const again = await resume(dir, header.id);
      assertEquals(again.streamed, 0, "the next open parses nothing again");
      assert(
        again.ranged < 65_536,
        `${again.ranged} bytes read: the file has the identity the index names`,
      );
      assertEquals(again.context, opened.context);

      // Appends by another writer: only they are parsed, and the answer is a full load's.
      const writer = storeIn(dir);
      const more = bigEntries("b", 120, entries.at(-1)!.id);
      await writer.store.append(header.id, more);
      const all = await writer.store.load(header.id);
      await writer.store.close();
      const grown = await resume(dir, header.id);
      assertEquals(grown.streamed, statSync(path).size - size);
      assertEquals(grown.context.messages, buildSessionProjection(all.entries, undefined).messages);
      const { store } = storeIn(dir);
      const projection = await loadSessionProjection(store, header.id, more[3].id);
      assertEquals(projection, buildSessionProjection(all.entries, more[3].id));
      await store.close();
    }));

  test(`${label}: an index never vouches for a file rewritten under it, even with its mtime put back`, () =>
    withFolder(async (dir) => {
      const { store } = storeIn(dir);
      const header = v4Header("resume-2");
      const entries = bigEntries("c", 350, null);
      const path = (await store.create(header, entries)).path!;
      await store.close();
      await pastRacyWindow();
      await resume(dir, header.id); // writes the index, naming the file's identity
      // Same length, same place, same inode, same mtime: an unknown role the full parser rejects.
      const { atime, mtime } = statSync(path);
      const text = readFileSync(path, "utf8");
      const at = text.indexOf('"role":"user"', text.length >> 1);
      writeFileSync(path, `${text.slice(0, at)}"role":"usex"${text.slice(at + 13)}`);
      utimesSync(path, atime, mtime);
      assertEquals(statSync(path).size, new TextEncoder().encode(text).length);
      await assertRejects(() => resume(dir, header.id), SessionFormatError);
    }));

  test(`${label}: a torn index is ignored and written again; a deleted session takes its index`, () =>
    withFolder(async (dir) => {
      const { store } = storeIn(dir);
      const header = v4Header("resume-3");
      const path = (await store.create(header, bigEntries("d", 350, null))).path!;
      await store.close();
      const opened = await resume(dir, header.id);
      const indexFile = join(dir, resumeIndexPath(path.slice(dir.length + 1)));
      const whole = readFileSync(indexFile);
      writeFileSync(indexFile, whole.subarray(0, whole.length >> 1));
      const torn = await resume(dir, header.id);
      assertEquals(torn.streamed, statSync(path).size, "a torn index is not trusted");
      assertEquals(torn.context, opened.context);
      // Replaced by a whole one (not compared byte for byte: a slow run may be past the racy
      // window by now, and the new index then also names the file's identity).
      assertEquals((await resume(dir, header.id)).streamed, 0, "and is replaced by a whole one");

      const deleting = storeIn(dir);
      await deleting.store.delete(header.id);
      await deleting.store.close();
      assertEquals(exists(indexFile), false);
    }));

  test(`${label}: a forged index is ignored: the answer is a full parse's`, () =>
    withFolder(async (dir) => {
      const { store } = storeIn(dir);
      const header = v4Header("resume-5");
      const entries = bigEntries("f", 350, null);
      const path = (await store.create(header, entries)).path!;
      const other = await store.create(v4Header("resume-6"), bigEntries("g", 350, null));
      await store.close();
      await pastRacyWindow();
      const honest = await resume(dir, header.id); // writes an index naming the file's identity
      await resume(dir, "resume-6");
      const relative = (abs: string) => abs.slice(dir.length + 1);
      const indexFile = join(dir, resumeIndexPath(relative(path)));
      const written = readFileSync(indexFile);
      const body = JSON.parse(new TextDecoder().decode(written.subarray(written.indexOf(10) + 1)));
      assert(body.identity, "the honest index names the file's identity: no bytes are hashed");
      const last = entries.length - 1;
      // Each keeps the file's identity and its true block digests: only the seal is wrong.
      const forgeries: [string, (index: typeof body) => void][] = [
        ["changed cwd", (index) => index.snapshot.header.cwd = "/elsewhere"],
        ["cut context", (index) => index.snapshot.parents[last - 2] = null],
        ["other branch", (index) => index.snapshot.parents[last] = index.snapshot.ids[3]],
        ["invalid entries", (index) => index.snapshot.ids[last] = "bad\u0000id"],
      ];
      const attacker = await crypto.subtle.generateKey(
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign", "verify"],
      );
      const kind = { format: "mu-sessions-resume-index", version: RESUME_INDEX_VERSION };
      const sealed: [string, Uint8Array][] = [];
      for (const [name, edit] of forgeries) {
        const index = structuredClone(body);
        edit(index);
        const bytes = new TextEncoder().encode(JSON.stringify(index));
        sealed.push([`${name}, recomputed digest`, await encodeSideFile(kind, bytes)]);
        const withKey = { ...kind, key: attacker, boundTo: relative(path) };
        sealed.push([`${name}, another key`, await encodeSideFile(withKey, bytes)]);
      }
      // The user's own index of another session, moved onto this one.
      sealed.push([
        "swapped body",
        readFileSync(join(dir, resumeIndexPath(relative(other.path!)))),
      ]);
      for (const [name, forged] of sealed) {
        writeFileSync(indexFile, forged);
        const opened = await resume(dir, header.id);
        assertEquals(opened.context, honest.context, `${name}: the context of a full parse`);
        assertEquals(opened.cwd, header.cwd, `${name}: the header of a full parse`);
        assertEquals(opened.streamed, statSync(path).size, `${name}: the file is checked in full`);
        writeFileSync(indexFile, forged);
        const { store } = storeIn(dir);
        const projection = await loadSessionProjection(store, header.id, undefined);
        await store.close();
        assertEquals(projection, buildSessionProjection(entries, undefined), name);
      }
    }));

  test(`${label}: resumeIndex: false writes no index`, () =>
    withFolder(async (dir) => {
      const { store } = storeIn(dir, { resumeIndex: false });
      const header = v4Header("resume-4");
      const path = (await store.create(header, bigEntries("e", 350, null))).path!;
      await SessionManager.open(store, header.id);
      await store.close();
      const indexFile = join(dir, resumeIndexPath(path.slice(dir.length + 1)));
      assertEquals(exists(indexFile), false);
    }));
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
