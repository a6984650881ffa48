/**
 * The differential check of a store's context-only load (`loadContext`): on every
 * `step`-th leaf of a session, the projection of the loaded context equals the full
 * projection, and `loadSessionProjection` always does. Shared by the SQLite and
 * PostgreSQL cases; runtime neutral.
 *
 * @module
 */
import {
  buildSessionProjection,
  EntryNotFoundError,
  type SessionEntry,
  SessionIndex,
} from "../../core.ts";
import {
  type ContextLoadingStore,
  loadSessionProjection,
  projectLoadedContext,
} from "../../src/context_load.ts";
import { assertEquals, assertRejects } from "../conformance/assert.ts";
import { handMadeSessions, parseableFixtures, type TestSession } from "./context_sessions.ts";

/** Compare on every `step`-th leaf; returns the loads that could not decide alone. */
export async function compareLeaves(
  store: ContextLoadingStore,
  session: TestSession,
  step = 1,
): Promise<number> {
  const { header, entries } = session;
  const index = SessionIndex.build(entries);
  const leaves: (string | null | undefined)[] = [null, undefined];
  for (let i = 0; i < entries.length; i += step) leaves.push(entries[i].id);
  let undecided = 0;
  for (const leaf of leaves) {
    const full = buildSessionProjection(entries, leaf, index);
    const projected = projectLoadedContext(await store.loadContext(header.id, leaf));
    if (projected === undefined) undecided++;
    else assertEquals(projected, full, `${session.name}, leaf ${leaf}`);
    assertEquals(await loadSessionProjection(store, header.id, leaf), full);
  }
  return undecided;
}

/**
 * After a schema migration: compare on the migrated rows, append one entry (written with
 * the new schema's columns) and compare again.
 */
export async function compareAfterMigration(
  store: ContextLoadingStore,
  session: TestSession,
): Promise<void> {
  await compareLeaves(store, session, 97);
  const next: SessionEntry = {
    type: "thinking_level_change",
    id: "after-migration",
    parentId: session.entries.at(-1)!.id,
    timestamp: "2026-05-01T00:00:00.000Z",
    thinkingLevel: "medium",
  };
  await store.append(session.header.id, [next]);
  await compareLeaves(store, { ...session, entries: [...session.entries, next] }, 499);
}

/** Store every parseable fixture and hand-made session, comparing on every leaf of each. */
export async function compareEveryFixture(store: ContextLoadingStore): Promise<void> {
  const ids = new Set<string>();
  for (const session of [...parseableFixtures(), ...handMadeSessions()]) {
    if (ids.has(session.header.id)) continue; // fixtures share a few ids
    ids.add(session.header.id);
    await store.create(session.header, session.entries);
    await compareLeaves(store, session);
  }
  await assertRejects(() => store.loadContext("hidden-call", "nope"), EntryNotFoundError);
}
