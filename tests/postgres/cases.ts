/**
 * PostgreSQL behaviour beyond the conformance suite, shared by the Deno and Node runners:
 * errors that name the server but never the password, two stores migrating an empty
 * schema at once, the loadContext query, change tokens, sessions not blocking each other,
 * many writer processes, and a server crash in the middle of appends.
 */
import postgres from "postgres";
import {
  EntryConflictError,
  EntryNotFoundError,
  type SessionEntry,
  type SessionHeader,
  SessionStorageError,
} from "../../core.ts";
import { openPostgresStore, type PostgresSessionStore } from "../../stores/postgres/store.ts";
import { POSTGRES_SCHEMA_VERSION } from "../../stores/postgres/_schema.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import type { Register } from "../conformance/harness.ts";
import { goId, markerHeader, readyId, workerEntryId } from "../sqlite/append_worker_core.ts";
import { startCluster } from "./cluster.ts";
import { adminSql, closeAdmin, freshSchema, settles, sharedCluster } from "./subject.ts";
import type { WriterArgs } from "./writer_core.ts";

/** How a runtime starts one writer process (runs `runWriter` to completion). */
export type SpawnWriter = (args: WriterArgs) => Promise<{ code: number; output: string }>;

/** Appends per writer process; `MU_PG_APPENDS=1000` for the full run the issue asks for. */
export function appendsPerWriter(env: (name: string) => string | undefined): number {
  return Number(env("MU_PG_APPENDS") ?? 100);
}

const WAITING_FOR_LOCK =
  "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND state = 'active'";

const head = (id: string, cwd = "/pg"): SessionHeader => ({
  type: "session",
  version: 4,
  id,
  createdAt: "2026-04-01T00:00:00.000Z",
  cwd,
});

const message = (id: string, parentId: string | null): SessionEntry => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-04-01T00:00:01.000Z",
  message: { role: "user", content: id, timestamp: 1 },
});

/** A fresh schema and a store on it, closed afterwards (the schema is left for the cluster). */
async function withFreshStore(fn: (store: PostgresSessionStore, schema: string) => Promise<void>) {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  const store = await openPostgresStore({ url, schema });
  try {
    await fn(store, schema);
  } finally {
    await store.close();
  }
}

export function postgresCases(
  t: Register,
  runtime: { name: string; spawnWriter: SpawnWriter; appends: number },
): void {
  const name = (what: string) => `postgres (${runtime.name}): ${what}`;

  t(name("a server that cannot be reached: typed error naming host, never password"), async () => {
    const { port } = await sharedCluster();
    const password = "s3cr%40t-pw";
    // A closed port (the cluster's port + 1 is not listening) and a missing database.
    const urls = [
      `postgres://agent:${password}@127.0.0.1:${port + 1}/teamdb`,
      `postgres://agent:${password}@127.0.0.1:${port}/no_such_db`,
    ];
    for (const url of urls) {
      const error = await assertRejects(
        () => openPostgresStore({ url, connectTimeoutSeconds: 5 }),
        SessionStorageError,
      );
      const text = `${error.message}\n${error.stack}\n${String(error.cause ?? "")}`;
      assert(text.includes(`127.0.0.1:${new URL(url).port}`), `names the server: ${text}`);
      assert(text.includes(new URL(url).pathname.slice(1)), `names the database: ${text}`);
      for (const secret of [password, decodeURIComponent(password)]) {
        assert(!text.includes(secret), `the password stays out of the error: ${text}`);
      }
    }
  });

  t(name("without a server to start, the tests fail saying why"), async () => {
    const error = await startCluster({ bin: "/nonexistent/pg/bin" }).then(
      () => undefined,
      (e: Error) => e,
    );
    assert(error?.message.includes("Cannot create a PostgreSQL test cluster"), `${error}`);
  });

  t(name("a client handed in stays open when the store closes"), async () => {
    await adminSql(async (sql) => {
      const store = await openPostgresStore({ sql, schema: freshSchema() });
      await store.create(head("s"));
      await store.close();
      assertEquals((await sql.unsafe("SELECT 1 AS one"))[0].one, 1);
    });
  });

  t(name("two stores opening an empty schema at once both migrate it once"), async () => {
    const { url } = await sharedCluster();
    const schema = freshSchema();
    const stores = await Promise.all(
      [0, 1, 2].map(() => openPostgresStore({ url, schema, max: 1 })),
    );
    try {
      await stores[0].create(head("s"));
      assert(await stores[2].has("s"), "all three see one schema");
      const rows = await adminSql((sql) =>
        sql.unsafe(`SELECT version FROM "${schema}".schema_version`)
      );
      assertEquals(rows.map((row) => Number(row.version)), [POSTGRES_SCHEMA_VERSION]);
    } finally {
      for (const store of stores) await store.close();
    }
  });

  t(name("a bulk write keeps every text exact and compresses long ones with lz4"), async () => {
    const { url } = await sharedCluster();
    const schema = freshSchema();
    const store = await openPostgresStore({ url, schema });
    try {
      const { importSession } = await import("../../core.ts");
      // Spacing, tabs, escapes (a JSON-escaped record separator too) and a long text: each
      // survives the joined parameter of a bulk write byte for byte.
      const odd = [
        '{"type":"message",\t"id":"m0","parentId":null,"timestamp":"2026-04-01T00:00:00.000Z",' +
        '"message":{"role":"user","content":"tab\\t back\\\\ sep\\u001e \\"q\\"",  "timestamp":1}}',
      ];
      for (let i = 1; i < 12; i++) {
        odd.push(JSON.stringify({
          ...message(`m${i}`, `m${i - 1}`),
          message: { role: "user", content: `${i} `.repeat(2_000), timestamp: i },
        }));
      }
      const text = `${JSON.stringify(head("bulk"))}\n${odd.join("\n")}\n`;
      await importSession(store, text);
      assertEquals(await store.exportJsonl("bulk"), text);
      const [row] = await adminSql((sql) =>
        sql.unsafe(
          `SELECT pg_column_compression(json) AS how FROM "${schema}".entries
           WHERE session_id = 'bulk' AND entry_id = 'm5'`,
        )
      );
      assertEquals(row.how, "lz4");
    } finally {
      await store.close();
    }
  });

  t(name("loadContext walks parent links in the database"), async () => {
    await withFreshStore(async (store) => {
      const [a, b, c, d] = [
        message("a", null),
        message("b", "a"),
        message("c", "b"),
        message("d", "a"),
      ];
      await store.create(head("s"), [a, b, c]);
      await store.append("s", [d]);
      assertEquals((await store.loadContext("s")).entries, [a, d], "default leaf: last entry");
      assertEquals((await store.loadContext("s", "c")).entries, [a, b, c]);
      assertEquals((await store.loadContext("s", null)).entries, []);
      await assertRejects(() => store.loadContext("s", "zz"), EntryNotFoundError);
      const b2 = { ...message("b", "a"), timestamp: "2026-04-01T00:00:09.000Z" };
      await assertRejects(() => store.append("s", [b2, message("e", "b")]), EntryConflictError);
      await store.append("s", [b]); // a retry of a committed append: nothing written
      assertEquals((await store.load("s")).entries, [a, b, c, d]);
    });
  });

  t(
    name("change tokens follow other writers; another session's append leaves one alone"),
    async () => {
      await withFreshStore(async (store, schema) => {
        const other = await openPostgresStore({ url: (await sharedCluster()).url, schema });
        try {
          await store.create(head("s"), [message("a", null)]);
          await store.create(head("t"));
          const [s0, all0] = [await store.changeToken("s"), await store.changeToken()];
          await other.append("t", [message("x", null)]);
          assertEquals(await store.changeToken("s"), s0, "t's append leaves s's token");
          const all1 = await store.changeToken();
          assert(all1 !== all0, "the store token moved");
          await other.append("s", [message("b", "a")]);
          assert((await store.changeToken("s")) !== s0, "another process's append moves s");
          const all2 = await store.changeToken();
          await other.delete("t");
          assert((await store.changeToken()) !== all2, "a delete moves the store token");
          assertEquals((await store.load("s")).entries.length, 2, "the reader sees the append");
          const listed = new Map<string, string>();
          await store.list({ onChangeToken: (id, token) => listed.set(id, token) });
          assertEquals([...listed], [["s", await store.changeToken("s")]], "the listing's token");
        } finally {
          await other.close();
        }
      });
    },
  );

  t(
    name("a store opened with a machine label records it for the sessions it creates"),
    async () => {
      await withFreshStore(async (store, schema) => {
        const { url } = await sharedCluster();
        const laptop = await openPostgresStore({ url, schema, machine: "laptop:~/.pi/agent" });
        try {
          await store.create(head("plain"), [message("a", null)]);
          await laptop.create(head("synced"), [message("a", null)]);
          await laptop.append("plain", [message("b", "a")]); // appending is not creating
          assertEquals([...(await store.machines())], [["synced", "laptop:~/.pi/agent"]]);
          assertEquals([...(await store.machines(["plain"]))], []);
          // The label lives beside the session: its bytes are those of an unlabelled copy.
          assertEquals(
            await laptop.exportJsonl("synced"),
            (await store.exportJsonl("plain")).split("\n").slice(0, 2).join("\n")
              .replace('"id":"plain"', '"id":"synced"') + "\n",
          );
          await store.delete("synced");
          assertEquals((await store.machines()).size, 0, "the label goes with the session");
        } finally {
          await laptop.close();
        }
      });
    },
  );

  t(name("a writer holding one session's lock does not block another session"), async () => {
    await withFreshStore(async (store, schema) => {
      await store.create(head("held"));
      await store.create(head("free"));
      let heldDone = false;
      let held: Promise<void> | undefined;
      await adminSql((sql) =>
        sql.begin(async (tx) => {
          await tx.unsafe(`SELECT 1 FROM "${schema}".sessions WHERE id = 'held' FOR UPDATE`);
          held = store.append("held", [message("h", null)]).then(() => void (heldDone = true));
          await settles(store.append("free", [message("f", null)]), "the other session's append");
          assert(!heldDone, "the held session's append waits for the lock");
        })
      );
      await settles(held!, "the held append after the lock is released");
      assertEquals((await store.load("held")).entries.length, 1);
    });
  });

  t(name(`writer processes: 4 x ${runtime.appends} into 4 sessions, 2 into one`), async () => {
    await withFreshStore(async (store, schema) => {
      const { url } = await sharedCluster();
      const jobs: WriterArgs[] = [
        ..."abcd".split("").map((prefix) => ({ sessionId: `own-${prefix}`, prefix })),
        { sessionId: "shared", prefix: "e" },
        { sessionId: "shared", prefix: "f" },
      ].map((job) => ({ ...job, url, schema, count: runtime.appends, path: "" }));
      for (const id of new Set(jobs.map((job) => job.sessionId))) {
        await store.create({ ...head(id), cwd: "/writers" });
      }
      let exited: { code: number; output: string } | undefined;
      const runs = jobs.map((job) => runtime.spawnWriter(job).then((r) => exited ??= r));
      // A barrier kept in the database, so all six really write at the same time.
      for (const job of jobs) {
        while (!(await store.has(readyId(job)))) {
          if (exited) throw new Error(`a writer exited early:\n${exited.output}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      const released = Date.now();
      for (const id of new Set(jobs.map((job) => job.sessionId))) {
        await store.create(markerHeader(goId(id)));
      }
      for (const result of await Promise.all(runs)) assertEquals(result.code, 0, result.output);
      const seconds = (Date.now() - released) / 1000;
      console.log(
        `  [${runtime.name}] ${jobs.length} x ${runtime.appends} appends in ${seconds} s ` +
          `(${Math.round(jobs.length * runtime.appends / seconds)} appends/s)`,
      );
      const listed = await store.list({ cwd: "/writers" });
      for (const id of new Set(jobs.map((job) => job.sessionId))) {
        const mine = jobs.filter((job) => job.sessionId === id);
        const { entries } = await store.load(id);
        assertEquals(entries.length, mine.length * runtime.appends, `${id}: nothing lost`);
        const seen = new Set<string>();
        for (const entry of entries) {
          assert(!seen.has(entry.id), `${id}: ${entry.id} is not duplicated`);
          assert(entry.parentId === null || seen.has(entry.parentId), `${id}: parent first`);
          seen.add(entry.id);
        }
        for (const job of mine) {
          const expected = Array.from(
            { length: runtime.appends },
            (_, i) => workerEntryId(job.prefix, i),
          );
          const got = entries.filter((entry) => entry.id.startsWith(job.prefix));
          assertEquals(got.map((entry) => entry.id), expected, `${id}: ${job.prefix} in order`);
        }
        const row = listed.find((info) => info.id === id);
        assertEquals(row?.messageCount, entries.length, `${id}: listing fold saw every append`);
      }
      const shared = (await store.load("shared")).entries;
      const switches = shared.filter((e, i) => i > 0 && e.id[0] !== shared[i - 1].id[0]).length;
      assert(switches >= 2, `the two writers of one session interleaved (${switches})`);
    });
  });

  t(
    name("a crash while an append waits inside its transaction only rejects that append"),
    async () => {
      // postgres.js 3.4.9 alone answers this with an uncaught TypeError from a timer (its
      // ROLLBACK written to the dead socket), which fails the whole Node test file.
      const cluster = await sharedCluster();
      await closeAdmin();
      await withFreshStore(async (store, schema) => {
        await store.create(head("s"));
        const holder = postgres(cluster.url, { max: 2, onnotice: () => {} });
        const locked = await holder.reserve();
        await locked.unsafe("BEGIN");
        await locked.unsafe(`SELECT 1 FROM "${schema}".sessions WHERE id = 's' FOR UPDATE`);
        const waiting = store.append("s", [message("w", null)]).then(() => undefined, (e) => e);
        while ((await holder.unsafe(WAITING_FOR_LOCK)).length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await cluster.crash();
        const error = await waiting;
        assert(error instanceof SessionStorageError, `typed: ${error}`);
        await cluster.start();
        await new Promise((resolve) => setTimeout(resolve, 100)); // let a stray timer fire here
        await holder.end({ timeout: 0 }).catch(() => {});
        await store.append("s", [message("after", null)]);
        assertEquals((await store.load("s")).entries.map((entry) => entry.id), ["after"]);
      });
    },
  );

  t(
    name("a server crash mid-append keeps every acknowledged append; the store reconnects"),
    async () => {
      const cluster = await sharedCluster();
      await closeAdmin();
      await withFreshStore(async (store, schema) => {
        await store.create(head("s"));
        const acknowledged: number[] = [];
        let crashed = false;
        let crashing: Promise<void> | undefined;
        let failure: unknown;
        const pair = (i: number) => [message(`${i}a`, null), message(`${i}b`, `${i}a`)];
        const writing = (async () => {
          for (let i = 0; failure === undefined; i++) {
            try {
              await store.append("s", pair(i));
              acknowledged.push(i);
            } catch (error) {
              failure = error;
            }
            if (acknowledged.length === 50 && !crashed) {
              crashed = true;
              // Not awaited: the next appends are in flight when the server dies.
              crashing = cluster.crash();
            }
          }
        })();
        await writing;
        // The server is gone once pg_ctl returns; restarting before that left pg_ctl waiting
        // on the new server, and its late failure surfaced as an uncaught error at teardown.
        await crashing;
        assert(failure instanceof SessionStorageError, `typed failure: ${failure}`);
        assert((failure as Error).message.includes(`127.0.0.1:${cluster.port}`), "names server");
        while (crashed) {
          // pg_ctl may still be stopping; start succeeds once the old server is gone
          try {
            await cluster.start();
            crashed = false;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
        await store.append("s", pair(100_000)); // the same store, reconnected
        const again = await openPostgresStore({ url: cluster.url, schema });
        try {
          const ids = new Set((await again.load("s")).entries.map((entry) => entry.id));
          for (const i of acknowledged) assert(ids.has(`${i}a`) && ids.has(`${i}b`), `${i} kept`);
          for (const id of ids) {
            const twin = id.endsWith("a") ? id.replace(/a$/, "b") : id.replace(/b$/, "a");
            assert(ids.has(twin), `append ${id} is whole, not torn`);
          }
          assert(ids.has("100000a"), "the append after the restart is there");
        } finally {
          await again.close();
        }
      });
    },
  );
}
