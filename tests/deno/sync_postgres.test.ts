/**
 * `syncStores` with a real PostgreSQL server on one side (a throwaway cluster this file
 * starts, tests/postgres/subject.ts): SQLite -> PostgreSQL and back keeps every entry's
 * bytes, a rerun copies nothing, and the cursor spares unchanged sessions.
 */
import { DatabaseSync } from "node:sqlite";
import { syncStores } from "../../sync.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { assertEquals } from "../conformance/assert.ts";
import { header } from "../conformance/store_suite.ts";
import { chain } from "../conformance/sync_chain.ts";
import { stopSharedCluster, withFreshStore } from "../postgres/subject.ts";

Deno.test("sync: SQLite -> PostgreSQL -> SQLite keeps every session byte for byte", async () => {
  await withFreshStore(async (postgres) => {
    const laptop = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
    const ci = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
    for (let s = 0; s < 5; s++) await laptop.create(header(`l${s}`), chain(4, `l${s}`));
    await ci.create(header("c0"), chain(3, "c0"));
    const pushed = await syncStores(laptop, postgres);
    assertEquals([pushed.sessionsCreated, pushed.entriesCopied], [5, 20]);
    await syncStores(ci, postgres);
    const pulled = await syncStores(laptop, postgres, { direction: "both", cursor: pushed.cursor });
    assertEquals(pulled.sessionsUnchanged, 5, "the laptop's sessions were not read again");
    assertEquals([pulled.sessionsCreated, pulled.entriesCopied], [1, 3], "c0 arrived");
    for (const id of ["l0", "l4", "c0"]) {
      const text = await postgres.exportJsonl!(id);
      assertEquals(await laptop.exportJsonl!(id), text, id);
    }
    const again = await syncStores(laptop, postgres, { direction: "both" });
    assertEquals([again.sessionsCreated, again.entriesCopied, again.conflicts], [0, 0, []]);
  });
});

Deno.test("sync: a run with nothing new takes PostgreSQL's change tokens from its listing", async () => {
  await withFreshStore(async (postgres) => {
    const laptop = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
    for (let s = 0; s < 150; s++) await laptop.create(header(`l${s}`), chain(2, `l${s}`));
    // The second run compares what the first created and records that each side holds all.
    const created = await syncStores(postgres, laptop, { direction: "both" });
    const first = await syncStores(postgres, laptop, { direction: "both", cursor: created.cursor });
    const ids = ["l0", "missing", "l149"];
    assertEquals(
      await postgres.changeTokens(ids),
      [await postgres.changeToken("l0"), undefined, await postgres.changeToken("l149")],
    );
    const calls = { one: 0, many: 0 };
    const { changeToken, changeTokens } = postgres;
    Object.assign(postgres, {
      changeToken: (id?: string) => (calls.one++, changeToken.call(postgres, id)),
      changeTokens: (ids: string[]) => (calls.many++, changeTokens.call(postgres, ids)),
    });
    const idle = await syncStores(postgres, laptop, { direction: "both", cursor: first.cursor });
    assertEquals([idle.sessionsUnchanged, idle.entriesCopied], [300, 0]);
    assertEquals(calls, { one: 0, many: 0 }, "the listing's query carries them: no other query");
    await laptop.close();
  });
});

Deno.test("sync: a push asks PostgreSQL which sessions it holds in one call, and merges one created meanwhile", async () => {
  await withFreshStore(async (postgres) => {
    const laptop = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
    for (let s = 0; s < 20; s++) await laptop.create(header(`l${s}`), chain(3, `l${s}`));
    let has = 0;
    const { create } = postgres;
    Object.assign(postgres, {
      has: () => (has++, Promise.resolve(false)),
      // Another machine creates l7 (with its first entry) after the tokens were read.
      create: async (h: Parameters<typeof create>[0], e: Parameters<typeof create>[1]) => {
        if (h.id === "l7") await create.call(postgres, h, (e ?? []).slice(0, 1));
        return await create.call(postgres, h, e);
      },
    });
    const report = await syncStores(laptop, postgres);
    assertEquals(has, 0, "no per-session round trip to ask");
    assertEquals([report.sessionsCreated, report.entriesCopied, report.conflicts], [19, 59, []]);
    assertEquals(await postgres.exportJsonl("l7"), await laptop.exportJsonl!("l7"));
    await laptop.close();
  });
});

Deno.test("sync: stop the test cluster", stopSharedCluster);
