/**
 * Values some driver could not keep exactly are refused the same way by every store
 * (issue 11, findings 2, 7 and 8): node:sqlite read `"a\0x"` back as `"a"` and both
 * `"\ud800"` and `"\udc00"` as U+FFFD, so distinct ids merged and a branch load returned
 * another branch; a message time of 1e300 made SQLite fail on a NULL `modified`. The
 * rule is `src/_wellformed.ts`: such ids and times are an `InvalidArgumentError` at the
 * seam, before anything is written.
 */
import { InvalidArgumentError, type SessionEntry, type SessionStore } from "../../core.ts";
import { MAX_NESTING_DEPTH } from "../../src/_wellformed.ts";
import { assertEquals, assertRejects } from "./assert.ts";
import type { Register, StoreSubject } from "./harness.ts";
import { withStore } from "./harness.ts";
import { freshId, header, userEntry } from "./store_suite.ts";

const UNSTORABLE_IDS = ["a\u0000x", "tab\there", "\u007f", "\ud800", "x\udc00", "\udc00\ud800"];

export function valuesSuite(register: Register, subject: StoreSubject): void {
  const t = (name: string, fn: (store: SessionStore) => Promise<void>) =>
    register(`${subject.name}: values: ${name}`, () => withStore(subject, fn));

  t(
    "entry ids and parent ids with control characters or lone surrogates are refused, nothing written",
    async (store) => {
      const id = freshId();
      const root = userEntry("root", null);
      await store.create(header(id), [root]);
      for (const bad of UNSTORABLE_IDS) {
        await assertRejects(
          () => store.append(id, [userEntry("x", root.id, bad)]),
          InvalidArgumentError,
        );
        await assertRejects(() => store.append(id, [userEntry("x", bad)]), InvalidArgumentError);
        await assertRejects(
          () => store.create(header(freshId()), [userEntry("x", null, bad)]),
          InvalidArgumentError,
        );
        await assertRejects(
          () => store.replace(header(id), [userEntry("x", null, bad)]),
          InvalidArgumentError,
        );
      }
      assertEquals((await store.load(id)).entries, [root]);
    },
  );

  t("session ids with lone surrogates are refused", async (store) => {
    for (const bad of ["s\ud800", "s\udc00"]) {
      await assertRejects(() => store.create(header(bad)), InvalidArgumentError);
    }
  });

  t("ids with astral characters (paired surrogates) are kept exactly", async (store) => {
    const id = freshId("\u{1F600}");
    const a = userEntry("a", null, "\u{1F600}a");
    const b = userEntry("b", a.id, "\u{1F600}b");
    await store.create(header(id), [a, b]);
    assertEquals((await store.load(id)).entries, [a, b]);
  });

  t("entries nested deeper than MAX_NESTING_DEPTH are refused, nothing written", async (store) => {
    const id = freshId();
    const root = userEntry("root", null);
    await store.create(header(id), [root]);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < MAX_NESTING_DEPTH + 10; i++) deep = { a: deep };
    const entry = { ...userEntry("deep", root.id), details: deep } as SessionEntry;
    await assertRejects(() => store.append(id, [entry]), InvalidArgumentError);
    await assertRejects(() => store.create(header(freshId()), [entry]), InvalidArgumentError);
    assertEquals((await store.load(id)).entries, [root]);
  });

  t("message timestamps outside the Date range are refused; listing stays valid", async (store) => {
    const id = freshId();
    await store.create(header(id));
    for (const bad of [1e300, -1e300, 8.64e15 + 1]) {
      const entry = userEntry("far", null);
      (entry.message as { timestamp?: number }).timestamp = bad;
      await assertRejects(() => store.append(id, [entry as SessionEntry]), InvalidArgumentError);
      await assertRejects(() => store.create(header(freshId()), [entry]), InvalidArgumentError);
    }
    const edge = userEntry("edge", null);
    (edge.message as { timestamp?: number }).timestamp = 8.64e15;
    await store.append(id, [edge]);
    const row = (await store.list()).find((info) => info.id === id);
    assertEquals(row?.modified.getTime(), 8.64e15);
  });
}
