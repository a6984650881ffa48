/**
 * The SQLite store answers a branch's positions (what `mu serve`'s Conversation pages and
 * `getPath` walk) without reading the session's tree columns into the lazy index: the
 * branch equals the full index's for every leaf, the tree is never read for it (counted),
 * and where the store cannot vouch for the rows (an entry appended since the open, a
 * rewrite by another connection) the answer is still right, or a typed error.
 */
import type { SessionEntry } from "../../core.ts";
import { SessionStorageError } from "../../src/errors.ts";
import { importSession } from "../../src/import_rule.ts";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { LazyIndex, type LazySession } from "../../src/lazy_index.ts";
import { OPEN_LAZY } from "../../src/lazy_store.ts";
import { SessionIndex } from "../../src/tree.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import type { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { assert, assertEquals, assertThrows } from "../conformance/assert.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";

/** A lazy open of `id` whose deferred tree reads are counted. */
async function countedOpen(store: SqliteSessionStore, id: string) {
  const session = (await store[OPEN_LAZY](id)) as LazySession;
  assert(session.deferred !== undefined, "every row has path pointers: the tree is deferred");
  let treeReads = 0;
  const tree = session.deferred.tree;
  session.deferred.tree = () => (treeReads++, tree());
  return { session, index: LazyIndex.from(session)!, treeReads: () => treeReads };
}

/** Root-first commit positions of the branch to `leaf`, from the full index. */
function expectedPositions(entries: SessionEntry[], index: SessionIndex, leaf: string): number[] {
  const at = new Map(entries.map((entry, i) => [entry.id, i]));
  return index.getPath(leaf).map((entry) => at.get(entry.id)!);
}

async function withSession(
  fn: (
    store: SqliteSessionStore,
    entries: SessionEntry[],
    id: string,
    file: string,
  ) => Promise<void>,
) {
  const dir = await tempDir("mu-sqlite-branch-");
  const file = `${dir}/sessions.db`;
  const store = await openSqliteStore(file);
  try {
    const session = generatedSession(1500, 7);
    await importSession(store, serializeSessionJsonl(session.header, session.entries));
    await fn(store, session.entries, session.header.id, file);
  } finally {
    await store.close();
    await removeDir(dir);
  }
}

Deno.test("sqlite branch: every leaf's positions equal the full index's, without reading the tree", async () => {
  await withSession(async (store, entries, id) => {
    const full = SessionIndex.build(entries, { source: id });
    const leaves = entries.filter((entry) => full.getChildren(entry.id).length === 0);
    assert(leaves.length >= 2, "the generated session branches");
    const { index, treeReads } = await countedOpen(store, id);
    const inner = entries.filter((_, i) => i % 50 === 0); // inner entries too, the root first
    for (const target of [...leaves, ...inner]) {
      assertEquals(
        index.pathPositions(target.id),
        expectedPositions(entries, full, target.id),
        `branch to ${target.id}`,
      );
    }
    assertEquals(index.getPath(leaves[0].id), full.getPath(leaves[0].id));
    assertEquals(treeReads(), 0, "no branch read the session's tree columns");
  });
});

Deno.test("sqlite branch: a leaf appended after the open is walked over the tree, and still right", async () => {
  await withSession(async (store, entries, id) => {
    const { index, treeReads } = await countedOpen(store, id);
    const appended = {
      ...entries[entries.length - 1],
      id: "appended-leaf",
      parentId: entries[900].id,
    } as SessionEntry;
    await store.append(id, [appended]);
    index.add(appended);
    const all = [...entries, appended];
    const full = SessionIndex.build(all, { source: id });
    assertEquals(index.pathPositions(appended.id), expectedPositions(all, full, appended.id));
    assertEquals(treeReads(), 1, "the store's branch is only for the rows of the open");
  });
});

Deno.test("sqlite branch: a session rewritten by another connection since the open is a typed error", async () => {
  await withSession(async (store, entries, id, file) => {
    const { index } = await countedOpen(store, id);
    const other = await openSqliteStore(file);
    try {
      const { header } = await other.load(id);
      await other.delete(id);
      const rewritten = entries.slice(0, 10).map((entry, i) => ({
        ...entry,
        id: `new-${i}`,
        parentId: i === 0 ? null : `new-${i - 1}`,
      })) as SessionEntry[];
      await other.create(header, rewritten);
    } finally {
      await other.close();
    }
    assertThrows(() => index.pathPositions(entries[1200].id), SessionStorageError);
  });
});
