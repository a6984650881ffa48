/**
 * Lazy entries (src/lazy_index.ts) against today's full index: a view over a lazy index
 * must answer every getter and builder exactly like a view over the parsed entries, on
 * every parseable fixture and every leaf, on generated sessions and on the hand-made
 * tool-pairing sessions, before and after appends; it must decline the sessions whose
 * rules only the full index applies (duplicate ids, a parent written after its child); and
 * resuming (`buildSessionContext` at the last entry) must parse only the context range.
 * Runs under `deno test` and, bundled, under Node 20.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type SessionEntry, type SessionHeader, SessionView } from "../../core.ts";
import { contextFlags } from "../../src/context_load.ts";
import { LazyIndex, type LazySession } from "../../src/lazy_index.ts";
import { listingStateOf } from "../../src/_listing.ts";
import type { LazySource } from "../../src/session_view.ts";
import { generatedSession, handMadeSessions, parseableFixtures } from "./context_sessions.ts";
import { leafAnswers, sessionAnswers } from "./lazy_answers.ts";

/** A lazy session over `entries` whose reads parse a fresh copy and are counted. */
function lazySession(header: SessionHeader, entries: SessionEntry[]) {
  const texts = entries.map((entry) => JSON.stringify(entry));
  const counter = { reads: 0 };
  const session: LazySession = {
    header,
    ids: entries.map((entry) => entry.id),
    parents: entries.map((entry) => entry.parentId),
    flags: entries.map(contextFlags),
    listing: listingStateOf(entries),
    read: (position) => (counter.reads++, JSON.parse(texts[position])),
    labelPositions: () => entries.flatMap((entry, i) => entry.type === "label" ? [i] : []),
  };
  return { session, counter };
}

/** A view that can publish appended entries, as the manager does. */
class TestView extends SessionView {
  push(entry: SessionEntry): void {
    this.publish(entry);
  }
}

function lazyView(header: SessionHeader, entries: SessionEntry[]) {
  const { session, counter } = lazySession(header, entries);
  const index = LazyIndex.from(session);
  if (!index) return undefined;
  const source: LazySource = { header, entries: [], lazy: { index, listing: session.listing } };
  return { view: new TestView(source), counter };
}

function moveTo(view: SessionView, leaf: string | null) {
  if (leaf === null) view.resetLeaf();
  else view.branch(leaf);
}

/** Compare lazy and full views on every `step`-th leaf; false when the lazy index declined. */
function compare(name: string, header: SessionHeader, entries: SessionEntry[], step = 1) {
  if (!lazyView(header, entries)) return false;
  const full = new TestView({ header, entries });
  const ids = entries.map((entry) => entry.id);
  const leaves: (string | null)[] = [null, ...ids.filter((_, i) => i % step === 0)];
  for (const leaf of leaves) {
    const lazy = lazyView(header, entries)!.view; // fresh: nothing parsed yet
    moveTo(lazy, leaf);
    moveTo(full, leaf);
    assert.deepStrictEqual(leafAnswers(lazy), leafAnswers(full), `${name}, leaf ${leaf}`);
  }
  const lazy = lazyView(header, entries)!.view;
  assert.deepStrictEqual(lazy.getLeafId(), new TestView({ header, entries }).getLeafId(), name);
  const sample = ids.filter((_, i) => i % step === 0);
  assert.deepStrictEqual(sessionAnswers(lazy, sample), sessionAnswers(full, sample), name);
  return true;
}

test("a lazy view answers like the full one on every fixture and every leaf", () => {
  let lazy = 0;
  const fixtures = parseableFixtures();
  for (const { name, header, entries } of fixtures) {
    if (compare(name, header, entries)) lazy++;
  }
  assert.ok(lazy >= fixtures.length - 10, `${lazy} of ${fixtures.length} fixtures indexed lazily`);
});

test("a lazy view answers like the full one on generated and hand-made sessions", () => {
  for (const size of [3_000, 6_000]) {
    const { name, header, entries } = generatedSession(size, size);
    assert.ok(compare(name, header, entries, 97), name);
  }
  for (const { name, header, entries } of handMadeSessions()) compare(name, header, entries);
});

test("appends after a lazy open: the same answers as appends after a full load", () => {
  const { header, entries } = generatedSession(1_500, 7);
  const cut = 1_200;
  const opened = entries.slice(0, cut);
  const lazy = lazyView(header, opened)!.view;
  const full = new TestView({ header, entries: opened });
  // Some answers asked before the appends, so the lazy index keeps its parsed state current.
  assert.deepStrictEqual(lazy.getLabel(entries[5].id), full.getLabel(entries[5].id));
  assert.deepStrictEqual(lazy.getChildren(entries[3].id), full.getChildren(entries[3].id));
  for (const entry of entries.slice(cut)) {
    lazy.push(entry);
    full.push(entry);
    if (entry.type === "label" || entry.type === "compaction") {
      assert.deepStrictEqual(leafAnswers(lazy), leafAnswers(full), `after ${entry.id}`);
    }
  }
  const ids = entries.map((entry) => entry.id);
  assert.deepStrictEqual(leafAnswers(lazy), leafAnswers(full));
  assert.deepStrictEqual(sessionAnswers(lazy, ids), sessionAnswers(full, ids));
});

test("resuming parses the context range only; whole-session getters parse each entry once", () => {
  const { header, entries } = generatedSession(6_000, 6_000);
  const { view, counter } = lazyView(header, entries)!;
  view.buildSessionContext();
  const context = view.buildContextEntries().length;
  assert.ok(counter.reads < entries.length / 4, `${counter.reads} of ${entries.length} parsed`);
  assert.ok(counter.reads >= context, "the context range was parsed");
  view.getEntries();
  view.getTree();
  view.getBranch();
  assert.equal(counter.reads, entries.length, "no entry parsed twice");
});

test("duplicate ids and parents written after their child decline the lazy index", () => {
  const { header, entries } = generatedSession(200, 3);
  const duplicate = entries.map((entry, i) => i === 50 ? { ...entry, id: entries[10].id } : entry);
  assert.equal(lazyView(header, duplicate), undefined);
  const later = entries.map((entry, i) =>
    i === 50 ? { ...entry, parentId: entries[120].id } : entry
  );
  assert.equal(lazyView(header, later), undefined);
  const self = entries.map((entry, i) => i === 50 ? { ...entry, parentId: entry.id } : entry);
  assert.equal(lazyView(header, self), undefined);
  const dangling = entries.map((entry, i) => i === 50 ? { ...entry, parentId: "gone" } : entry);
  assert.ok(compare("dangling parent", header, dangling, 7), "a missing parent stays lazy");
});
