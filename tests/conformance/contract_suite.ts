/**
 * The guards and write rules every store shares (`src/guarded_store.ts`): every driver goes
 * through the one wrapper, a header `create` cannot store is refused, and a session never
 * holds two entries with one id (a byte-identical retry is a no-op, other content a
 * typed conflict).
 */
import {
  EntryConflictError,
  InvalidArgumentError,
  parseSessionJsonlSync,
  searchSessions,
  type SessionEntry,
  SessionFormatError,
  type SessionHeader,
  SessionStorageError,
  type SessionStore,
} from "../../core.ts";
import { isGuardedStore } from "../../src/guarded_store.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import type { Register, StoreContext, StoreSubject } from "./harness.ts";
import { withStore } from "./harness.ts";
import { freshId, header, oddlySpelledSession, userEntry } from "./store_suite.ts";

export function contractSuite(register: Register, subject: StoreSubject): void {
  const t = (
    name: string,
    fn: (store: SessionStore, ctx: StoreContext) => Promise<void>,
  ) => register(`${subject.name}: contract: ${name}`, () => withStore(subject, fn));

  t("the store goes through the guarded-store wrapper", async (store) => {
    assert(isGuardedStore(store), `${store.kind} does not call guardStoreClass`);
  });

  t(
    "create refuses an invalid header with InvalidArgumentError and writes nothing",
    async (store) => {
      const id = freshId("badheader");
      const invalid = [
        { ...header(id), createdAt: undefined },
        { ...header(id), cwd: 42 },
        { ...header(id), version: 3 },
      ] as unknown as SessionHeader[];
      for (const bad of invalid) {
        await assertRejects(() => store.create(bad, [userEntry("x", null)]), InvalidArgumentError);
      }
      assertEquals(await store.has(id), false);
      assertEquals((await store.list()).map((row) => row.id).filter((row) => row === id), []);
      await store.create(header(id)); // the id is still free
    },
  );

  t("an append of entries already stored byte for byte is a no-op", async (store) => {
    const id = freshId("retry");
    const e1 = userEntry("one", null);
    await store.create(header(id), [e1]);
    const e2 = userEntry("two", e1.id);
    const e3 = userEntry("three", e2.id);
    await store.append(id, [e2, e3]);
    const before = await store.load(id);
    await store.append(id, [e2, e3]); // a retry whose first try committed
    await store.append(id, [structuredClone(e1)]);
    assertEquals((await store.load(id)).entries, before.entries);
    // Stored entries in a batch with new ones: only the new ones are written.
    const e4 = userEntry("four", e3.id);
    await store.append(id, [e3, e4]);
    assertEquals((await store.load(id)).entries, [...before.entries, e4]);
  });

  t("an imported entry appended again with its own bytes is a no-op", async (store) => {
    const id = freshId("rawretry");
    const parsed = parseSessionJsonlSync(oddlySpelledSession(id));
    await store.create(parsed.header, parsed.entries);
    const exported = await exportText(store, id);
    await store.append(id, [parsed.entries[1]]);
    assertEquals(await exportText(store, id), exported);
  });

  t(
    "other content under a stored entry id is an EntryConflictError; nothing written",
    async (store) => {
      const id = freshId("conflict");
      const e1 = userEntry("one", null);
      const e2 = userEntry("two", e1.id);
      await store.create(header(id), [e1, e2]);
      const before = await store.load(id);
      const changed = { ...e2, message: { ...(e2 as { message: object }).message, content: "2" } };
      const fresh = userEntry("new", e2.id);
      const error = await assertRejects(
        () => store.append(id, [fresh, changed as SessionEntry]),
        EntryConflictError,
      );
      assertEquals([error.sessionId, error.entryId], [id, e2.id]);
      // A reused id (another entry type under it) conflicts the same way.
      await assertRejects(
        () => store.append(id, [{ ...userEntry("again", null), id: e1.id }]),
        EntryConflictError,
      );
      assertEquals((await store.load(id)).entries, before.entries);
    },
  );

  t("one write naming an entry id twice is refused before anything is written", async (store) => {
    const id = freshId("twice");
    const e1 = userEntry("one", null);
    await assertRejects(() => store.create(header(id), [e1, e1]), EntryConflictError);
    assertEquals(await store.has(id), false);
    await store.create(header(id), [e1]);
    const e2 = userEntry("two", e1.id);
    await assertRejects(() => store.append(id, [e2, { ...e2 }]), EntryConflictError);
    await assertRejects(
      () => store.replace(header(id), [e1, { ...e2, id: e1.id }]),
      EntryConflictError,
    );
    assertEquals((await store.load(id)).entries, [e1]);
  });

  t("search: a NUL in the query or the text is matched like any character", async (store) => {
    const id = freshId("nul");
    const e1 = userEntry("before a\u0000b after", null);
    const e2 = userEntry("plain words only", e1.id);
    await store.create(header(id), [e1, e2]);
    const found = async (query: string) =>
      (await searchSessions(store, query, { sessionId: id })).map((hit) => hit.entryId);
    assertEquals(await found("a\u0000b"), [e1.id]);
    assertEquals(await found("after \u0000"), [e1.id]); // text past the NUL is searched too
    assertEquals(await found("\u0000"), [e1.id]);
    assertEquals(await found("words"), [e2.id]);
    assertEquals(await found("x\u0000y"), []);
  });

  t(
    "search: a query of more than 256 terms is refused with InvalidArgumentError",
    async (store) => {
      const id = freshId("terms");
      await store.create(header(id), [userEntry("hello world", null)]);
      const words = (n: number, word: string) => Array.from({ length: n }, () => word).join(" ");
      for (const word of ["hello", "hel*", '"hello world"', "-nope"]) {
        const query = word.startsWith("-") ? `hello ${words(255, word)}` : words(256, word);
        assertEquals((await searchSessions(store, query)).length, 1, word);
        const tooMany = word.startsWith("-") ? `hello ${words(256, word)}` : words(257, word);
        await assertRejects(() => searchSessions(store, tooMany), InvalidArgumentError);
      }
    },
  );

  t(
    "a session whose parent links form a cycle is refused with the line; nothing stored",
    async (store) => {
      const id = freshId("cycle");
      const root = userEntry("root", null);
      const a = userEntry("a", "later");
      const b = userEntry("b", a.id, "later");
      const error = await assertRejects(
        () => store.create(header(id), [root, a, b]),
        SessionFormatError,
      );
      assertEquals(error.line, 3); // header, root, then a: its own ancestor through b
      assertEquals(await store.has(id), false);
      await store.create(header(id), [root]);
      await assertRejects(() => store.replace(header(id), [root, a, b]), SessionFormatError);
      assertEquals((await store.load(id)).entries, [root]);
    },
  );

  t(
    "an append whose entries close a parent cycle is refused; what was stored stays",
    async (store) => {
      const id = freshId("cycle-append");
      const root = userEntry("root", null);
      await store.create(header(id), [root]);
      const a = userEntry("a", "later");
      const b = userEntry("b", a.id, "later");
      const self = userEntry("self", "itself", "itself");
      for (const batch of [[a, b], [userEntry("c", root.id), self]]) {
        const error = await assertRejects(() => store.append(id, batch), SessionFormatError);
        assert(error.reason.includes("cycle"), error.message);
      }
      assertEquals((await store.load(id)).entries, [root]);
      await store.append(id, [userEntry("d", root.id)]); // the session still takes appends
      assertEquals((await store.load(id)).entries.length, 2);
    },
  );

  t(
    "an append that closes a cycle through an earlier append's dangling parent is refused",
    async (store) => {
      const id = freshId("cycle-across");
      const root = userEntry("root", null);
      await store.create(header(id), [root]);
      // Stored: x names "later", which is not in the session yet (a dangling parent), y below x.
      const x = userEntry("x", "later", "x");
      const y = userEntry("y", "x", "y");
      await store.append(id, [x]);
      await store.append(id, [y]);
      const closing = [
        [userEntry("closes", "x", "later")], // later -> x -> later
        [userEntry("closes", "y", "later")], // later -> y -> x -> later
        [userEntry("m", "y", "m"), userEntry("closes", "m", "later")], // through the batch and the store
        [userEntry("fine", root.id), userEntry("self", "later", "later")], // its own parent
      ];
      for (const batch of closing) {
        const error = await assertRejects(() => store.append(id, batch), SessionFormatError);
        assert(error.reason.includes("cycle"), error.message);
      }
      assertEquals((await store.load(id)).entries, [root, x, y]);
      // The dangling parent can still arrive where it closes no cycle; appends go on.
      const later = userEntry("arrives", root.id, "later");
      await store.append(id, [later]);
      await store.append(id, [userEntry("z", "y", "z")]);
      const loaded = await store.load(id);
      assertEquals(loaded.entries.map((entry) => entry.id), [root.id, "x", "y", "later", "z"]);
      assertEquals(loaded.entries[3], later);
    },
  );

  t("a closed store refuses every call with SessionStorageError", async (store) => {
    const id = freshId("closed");
    await store.create(header(id));
    await store.close();
    const calls: Array<() => Promise<unknown>> = [
      () => store.load(id),
      () => store.has(id),
      () => store.list(),
      () => store.append(id, [userEntry("late", null)]),
      () => store.delete(id),
    ];
    if (store.exportJsonl) calls.push(() => store.exportJsonl!(id));
    if (store.search) calls.push(() => store.search!("x"));
    for (const call of calls) await assertRejects(call, SessionStorageError);
  });
}

async function exportText(store: SessionStore, id: string): Promise<string> {
  if (store.exportJsonl) return await store.exportJsonl(id);
  const { header, entries } = await store.load(id);
  return JSON.stringify([header, entries satisfies SessionEntry[]]);
}
