/**
 * The tree's rows on a bushy session: however deep the branch points nest, a row's gutter
 * stays within {@link MAX_PREFIX} characters (shortened from the left with `⋯`), so the
 * entry's kind and text keep their room.
 */
import { test } from "node:test";
import { assert, assertEquals } from "../conformance/assert.ts";
import { flattenTree, MAX_PREFIX } from "../../web/worker/tree_rows.ts";
import { parseSessionJsonlSync } from "../../src/jsonl.ts";
import { SessionIndex } from "../../src/tree.ts";
import { bushySession } from "../viewer/bushy_session.ts";

test("tree rows: 95 nested branch points keep every gutter within the cap", () => {
  const { entries } = parseSessionJsonlSync(bushySession(95));
  const rows = flattenTree(SessionIndex.build(entries).getTree());
  assertEquals(rows.length, 95 * 3);
  const longest = Math.max(...rows.map((row) => row.prefix.length));
  assert(longest <= MAX_PREFIX, `longest gutter ${longest}`);
  assert(MAX_PREFIX <= 24, `cap ${MAX_PREFIX}`);
  const deep = rows.find((row) => row.node.entry.id === "k0094")!;
  assert(deep.prefix.startsWith("⋯"), `deep rows show they were shortened: ${deep.prefix}`);
});
