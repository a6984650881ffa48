/**
 * The tree drawn before the full load (`web/worker/tree_shape.ts`) from a lazy open's ids
 * and parents: its rows are the loaded session's rows (order, gutters, kinds, previews,
 * path and leaf marks, branch counts, label chips), whether the columns come with the open
 * or deferred; a page parses only its own rows' entries (plus the branch points' children,
 * and once the label entries the store names); sessions the lazy index declines are left to the
 * full load.
 * Runs under `deno test` and, bundled, under Node 20.
 */
import { test } from "node:test";
import { assert, assertEquals } from "../conformance/assert.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { contextFlags } from "../../src/context_load.ts";
import type { LazySession } from "../../src/lazy_index.ts";
import { listingStateOf } from "../../src/_listing.ts";
import { parseSessionJsonlSync } from "../../src/jsonl.ts";
import { SessionIndex } from "../../src/tree.ts";
import { TreeShape } from "../../web/worker/tree_shape.ts";
import { flattenTree, treeRowViews } from "../../web/worker/tree_rows.ts";
import { bushySession } from "../viewer/bushy_session.ts";
import { generatedSession } from "./context_sessions.ts";

/** A lazy session over `entries` whose reads are counted; `deferred`: columns read later. */
function lazySession(header: SessionHeader, entries: SessionEntry[], deferred = false) {
  const texts = entries.map((entry) => JSON.stringify(entry));
  const counter = { reads: 0, trees: 0, labelScans: 0 };
  const columns = () => ({
    ids: entries.map((entry) => entry.id),
    parents: entries.map((entry) => entry.parentId),
    flags: entries.map(contextFlags),
  });
  const session: LazySession = {
    header,
    ...(deferred ? { ids: [], parents: [], flags: [] } : columns()),
    listing: listingStateOf(entries),
    read: (position) => (counter.reads++, JSON.parse(texts[position])),
    labelPositions:
      () => (counter.labelScans++,
        entries.flatMap((entry, at) => entry.type === "label" ? [at] : [])),
  };
  if (deferred) {
    session.deferred = {
      count: entries.length,
      lastId: entries.at(-1)!.id,
      tree: () => (counter.trees++, columns()),
      find: (id) => entries.findIndex((entry) => entry.id === id),
      context: () => undefined,
    };
  }
  return { session, counter };
}

/** What the loaded session answers (`OpenedSession.treeRows`). */
function loadedRows(entries: SessionEntry[], leafId: string | null) {
  const index = SessionIndex.build(entries);
  const rows = flattenTree(index.getTree());
  const pathIds = new Set(index.getPath(leafId).map((entry) => entry.id));
  const views = treeRowViews(rows, 0, rows.length, pathIds, leafId);
  return { rows, views };
}

const at = (i: number) => new Date(Date.UTC(2026, 6, 1) + i * 1000).toISOString();
const message = (id: string, parentId: string | null, role: string, time: string) =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: time,
    message: role === "user"
      ? { role, content: `text of ${id}`, timestamp: 1 }
      : { role, content: [{ type: "text", text: `text of ${id}` }], stopReason: "stop" },
  }) as unknown as SessionEntry;

/** Siblings written out of time order, label entries, a missing parent. */
function trickySession(): SessionEntry[] {
  return [
    message("a", null, "user", at(1)),
    message("b", "a", "assistant", at(9)), // written first, newer: drawn after "c"
    message("c", "a", "assistant", at(5)),
    message("d", "c", "user", at(6)),
    message("e", "a", "assistant", "not a time"), // unreadable: counts as 0, drawn first
    { type: "label", id: "l1", parentId: "d", timestamp: at(7), targetId: "d", label: "keep" },
    { type: "label", id: "l2", parentId: "l1", timestamp: at(8), targetId: "b", label: "x" },
    { type: "label", id: "l3", parentId: "l2", timestamp: at(10), targetId: "b" }, // cleared
    message("f", "gone", "user", at(11)), // its parent is not in the session: a root
    message("g", "f", "assistant", at(12)),
  ] as SessionEntry[];
}

const header = (id: string): SessionHeader => ({
  type: "session",
  version: 4,
  id,
  createdAt: at(0),
  cwd: "/p",
});

const cases: [string, SessionEntry[]][] = [
  ["bushy", parseSessionJsonlSync(bushySession(95)).entries],
  ["tricky", trickySession()],
  ["generated", generatedSession(3000, 17).entries],
];

for (const [name, entries] of cases) {
  for (const deferred of [false, true]) {
    test(`tree shape (${name}${deferred ? ", deferred columns" : ""}): the loaded rows`, () => {
      const { session } = lazySession(header(name), entries, deferred);
      const shape = TreeShape.from(session)!;
      assert(shape, "the shape is drawn");
      // Leaves to mark: the last entry, the first, and one in the middle.
      for (const leaf of [entries.at(-1)!.id, entries[0].id, entries[entries.length >> 1].id]) {
        const { rows, views } = loadedRows(entries, leaf);
        assertEquals(shape.rowCount, rows.length);
        assertEquals(shape.treeRows(leaf, 0, rows.length), views, `rows marked for ${leaf}`);
        for (const [i, row] of rows.entries()) {
          if (i % 7 === 0) assertEquals(shape.rowIndex(row.node.entry.id), i);
        }
      }
      assertEquals(shape.rowIndex("no-such-entry"), -1);
    });
  }
}

test("tree shape: a page parses its rows and the branch points' children", () => {
  const { entries } = generatedSession(3000, 17);
  const { session, counter } = lazySession(header("count"), entries, true);
  const shape = TreeShape.from(session)!;
  const branchChildren = loadedRows(entries, null).rows
    .filter((row) => row.node.children.length > 1)
    .reduce((sum, row) => sum + row.node.children.length, 0);
  assertEquals(counter.trees, 1, "the columns are read once");
  assert(counter.reads <= branchChildren, `drawing parsed ${counter.reads} entries`);
  const labels = entries.filter((entry) => entry.type === "label").length;
  assert(labels > 0, "the session has label entries");
  let before = counter.reads;
  shape.treeRows(entries.at(-1)!.id, 1000, 50);
  assertEquals(counter.reads - before, 50 + labels, "the first page parses its rows and labels");
  before = counter.reads;
  shape.treeRows(entries.at(-1)!.id, 2000, 50);
  assertEquals(counter.reads - before, 50, "a later page parses its rows");
  assertEquals(counter.labelScans, 1, "the store names its labels once");
  assert(counter.reads < entries.length / 10, `only a part of the session is parsed`);
});

test("tree shape: duplicate ids or a parent written after its child wait for the full load", () => {
  const entries = trickySession();
  const duplicate = [...entries, message("a", null, "user", at(20))];
  assertEquals(TreeShape.from(lazySession(header("dup"), duplicate).session), undefined);
  const later = [message("x", "y", "user", at(1)), message("y", null, "user", at(2))];
  assertEquals(TreeShape.from(lazySession(header("later"), later).session), undefined);
});
