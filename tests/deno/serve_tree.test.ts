/**
 * `mu serve` answers a session's tree from the session it keeps open
 * (`GET /api/sessions/:id/tree`): the rows a loaded session draws (order, gutters, marks,
 * label chips), around the focused entry's row or from an offset, without a full load of a
 * session the lazy open takes (JSONL and SQLite), from the kept full load of one it declines
 * (an older format); the SQLite store names a session's label rows from an index of label
 * rows only, not a scan of the session's rows.
 */
import { DatabaseSync } from "node:sqlite";
import type { SessionStore } from "../../core.ts";
import { importSession } from "../../src/import_rule.ts";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { OPEN_LAZY } from "../../src/lazy_store.ts";
import { counted } from "./counted_store.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { SessionIndex } from "../../src/tree.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import type { TreeStartView } from "../../web/types.ts";
import { flattenTree, treeRowViews } from "../../web/worker/tree_rows.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { fixtureText } from "../unit/fixtures.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";

/** `GET /api/sessions/:id/tree?<params>` of one API over `store` (one set of kept opens). */
function treeAsker(store: SessionStore) {
  const api = createSessionApi({ store });
  return (id: string, params: Record<string, string>) => askTree(api, id, params);
}

async function askTree(
  api: ReturnType<typeof createSessionApi>,
  id: string,
  params: Record<string, string>,
): Promise<TreeStartView | null> {
  const url = new URL(`http://127.0.0.1/api/sessions/${encodeURIComponent(id)}/tree`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const response = (await api(new Request(url)))!;
  assertEquals(response.status, 200, await response.clone().text());
  return await response.json();
}

/** The rows the loaded session draws, marked for `leafId`. */
function loadedRows(entries: SessionEntry[], leafId: string) {
  const index = SessionIndex.build(entries);
  const rows = flattenTree(index.getTree());
  const pathIds = new Set(index.getPath(leafId).map((entry) => entry.id));
  return { rows, views: treeRowViews(rows, 0, rows.length, pathIds, leafId) };
}

const kinds: [string, (dir: string) => Promise<SessionStore>][] = [
  ["jsonl", (dir) => openJsonlFsStore(`${dir}/sessions`)],
  ["sqlite", (dir) => openSqliteStore(`${dir}/sessions.db`)],
];

for (const [kind, open] of kinds) {
  Deno.test(`mu serve tree (${kind}): the loaded session's rows, labels included, without a full load`, async () => {
    const dir = await tempDir("mu-serve-tree-");
    const served = await open(dir);
    try {
      const session = generatedSession(3000, 17);
      const { entries } = session;
      assert(entries.some((e) => e.type === "label" && e.label), "the session has labels");
      await importSession(served, serializeSessionJsonl(session.header, entries));
      const { store, opens, loads } = counted(served);
      const askTree = treeAsker(store);
      const id = session.header.id;
      const leaf = entries.at(-1)!.id;
      const { rows, views } = loadedRows(entries, leaf);
      assert(views.some((view) => view.label !== undefined), "some rows have label chips");

      // Around the leaf's row (the tree opens there).
      const leafRow = rows.findIndex((row) => row.node.entry.id === leaf);
      const start = (await askTree(id, { leaf, limit: "200" }))!;
      assertEquals([start.rowCount, start.focusRow], [rows.length, leafRow]);
      assertEquals(start.start, Math.max(0, leafRow - 100));
      assertEquals(start.rows, views.slice(start.start, start.start + 200));

      // A page from an offset, and a row index (no rows), for another focus.
      const labelled = views.findIndex((view) => view.label !== undefined);
      const page = (await askTree(id, {
        leaf,
        offset: String(labelled),
        limit: "50",
      }))!;
      assertEquals(page.rows, views.slice(labelled, labelled + 50));
      const focusId = views[labelled].id;
      const index = (await askTree(id, { focus: focusId, offset: "0", limit: "0" }))!;
      assertEquals([index.focusRow, index.rows], [labelled, []]);
      assertEquals([loads(), opens()], [0, 1], "one lazy open, no full load");
    } finally {
      await served.close();
      await removeDir(dir);
    }
  });
}

Deno.test("mu serve tree: a session the lazy open declines is drawn from its kept full load", async () => {
  const dir = await tempDir("mu-serve-tree-");
  const served = await openJsonlFsStore(dir);
  try {
    await Deno.writeTextFile(`${dir}/old.jsonl`, fixtureText("codec/v3.jsonl"));
    const [row] = await served.list({ includeInternal: true });
    const { entries } = await served.load(row.id);
    const leaf = entries.at(-1)!.id;
    const { store, loads } = counted(served);
    const askTree = treeAsker(store);
    const tree = (await askTree(row.id, { leaf, limit: "1000" }))!;
    assertEquals(tree.rows, loadedRows(entries, leaf).views);
    await askTree(row.id, { leaf, offset: "1", limit: "1" });
    assertEquals(loads(), 1, "loaded once, kept");
  } finally {
    await served.close();
    await removeDir(dir);
  }
});

Deno.test("sqlite store: a lazy open's label rows come from an index of label rows only", async () => {
  const dir = await tempDir("mu-serve-tree-");
  const store = await openSqliteStore(`${dir}/sessions.db`);
  try {
    const session = generatedSession(3000, 17);
    await importSession(store, serializeSessionJsonl(session.header, session.entries));
    const lazy = (await store[OPEN_LAZY](session.header.id))!;
    const expected = session.entries.flatMap((e, at) => e.type === "label" ? [at] : []);
    assert(expected.length > 0, "the session has labels");
    assertEquals(lazy.labelPositions(), expected);
  } finally {
    await store.close();
  }
  // The plan of the lazy open's question (`stores/sqlite/_lazy.ts`): a search of the
  // partial index, not of the session's rows.
  const db = new DatabaseSync(`${dir}/sessions.db`);
  try {
    const plan = db.prepare(
      "EXPLAIN QUERY PLAN SELECT seq FROM entries WHERE session_id = ? AND type = 'label' AND seq < ? ORDER BY seq",
    ).all("s", 10).map((row) => String(row.detail));
    assert(plan.some((step) => step.includes("entries_labels")), plan.join("; "));
  } finally {
    db.close();
    await removeDir(dir);
  }
});
