/**
 * Bulk writes of the PostgreSQL store (binary COPY, `stores/postgres/_copy.ts`), shared by
 * the Deno and Node runners: a long write's texts go through COPY, never as statement
 * parameters; a bulk create of a taken id or rows the server refuses (part way through or
 * after the last row was sent) reject with a typed error, keep what was committed, and
 * leave the connection able to write again.
 */
import postgres from "postgres";
import {
  type SessionEntry,
  SessionExistsError,
  type SessionHeader,
  SessionStorageError,
} from "../../core.ts";
import { openPostgresStore } from "../../stores/postgres/store.ts";
import { COPY_MIN_CHARS } from "../../stores/postgres/_rows.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import type { Register } from "../conformance/harness.ts";
import { adminSql, freshSchema, settles, sharedCluster, withFreshStore } from "./subject.ts";

const head = (id: string): SessionHeader => ({
  type: "session",
  version: 4,
  id,
  createdAt: "2026-04-01T00:00:00.000Z",
  cwd: "/pg",
});

/** `count` messages in a chain, ids `${prefix}0`..., each with `size` characters of text. */
function chain(prefix: string, count: number, size = 10, parent: string | null = null) {
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    entries.push({
      type: "message",
      id: `${prefix}${i}`,
      parentId: i === 0 ? parent : `${prefix}${i - 1}`,
      timestamp: "2026-04-01T00:00:01.000Z",
      message: { role: "user", content: `${prefix}${i} ${"x".repeat(size)}`, timestamp: 1 },
    });
  }
  return entries;
}

/** Characters of text per entry that make 20 entries a write long enough for COPY. */
const LONG = Math.ceil(COPY_MIN_CHARS / 20);

/** Make the server refuse any entry row whose JSON holds `marker`. */
async function refuseRowsWith(schema: string, marker: string): Promise<void> {
  await adminSql((sql) =>
    sql.unsafe(
      `ALTER TABLE "${schema}".entries
         ADD CONSTRAINT refused CHECK (position('${marker}' in json) = 0)`,
    )
  );
}

export function postgresCopyCases(t: Register, runtime: string): void {
  const name = (what: string) => `postgres (${runtime}): bulk write: ${what}`;

  t(name("entry texts go through COPY, never as statement parameters"), async () => {
    const { url } = await sharedCluster();
    const sent: { query: string; parameters: unknown[] }[] = [];
    const sql = postgres(url, {
      max: 1,
      onnotice: () => {},
      debug: (_connection, query, parameters) => sent.push({ query, parameters }),
    });
    const store = await openPostgresStore({ sql, schema: freshSchema() });
    try {
      const entries = chain("m", 40, LONG);
      await store.create(head("bulk"), entries.slice(0, 20));
      await store.append("bulk", entries.slice(20));
      assertEquals((await store.load("bulk")).entries, entries);
      const copies = sent.filter(({ query }) => query.startsWith("COPY "));
      assertEquals(copies.length, 2);
      const texts = JSON.stringify(sent.map(({ parameters }) => parameters));
      assert(!texts.includes("m7 xxx"), "an entry text was sent as a parameter");
      // A short bulk write stays one statement: COPY's round trips would cost it more.
      await store.create(head("short"), chain("s", 20));
      assertEquals(sent.filter(({ query }) => query.startsWith("COPY ")).length, 2);
      assertEquals((await store.load("short")).entries, chain("s", 20));
    } finally {
      await store.close();
      await sql.end();
    }
  });

  t(name("a bulk create of a taken id rejects and changes nothing"), async () => {
    await withFreshStore(async (store) => {
      const first = chain("a", 20, LONG);
      await store.create(head("taken"), first);
      await assertRejects(
        () => settles(store.create(head("taken"), chain("b", 30, LONG)), "the create"),
        SessionExistsError,
      );
      assertEquals((await store.load("taken")).entries, first);
      await store.append("taken", chain("c", 20, LONG, "a19")); // the connection writes on
      assertEquals((await store.load("taken")).entries.length, 40);
    });
  });

  t(name("rows refused after the last one was sent: typed error, nothing lost"), async () => {
    await withFreshStore(async (store, schema) => {
      await refuseRowsWith(schema, "refuse-me");
      const kept = chain("k", 20);
      await store.create(head("s"), kept);
      const refused = chain("r", 20, LONG, "k19");
      (refused[15] as { message: { content: string } }).message.content = "refuse-me";
      const error = await assertRejects(
        () => settles(store.append("s", refused), "the append"),
        SessionStorageError,
      );
      // The COPY's own error is gone by then: the message must not blame the statements
      // that followed it for an aborted transaction.
      assert(!/transaction is aborted/.test(error.message), error.message);
      await assertRejects(
        () => settles(store.create(head("t"), refused), "the create"),
        SessionStorageError,
      );
      assertEquals(await store.has("t"), false);
      assertEquals((await store.load("s")).entries, kept);
      const more = chain("n", 20, LONG, "k19");
      await store.append("s", more);
      assertEquals((await store.load("s")).entries, [...kept, ...more]);
    });
  });

  t(name("rows refused in a COPY of many pieces: typed error, nothing lost"), async () => {
    await withFreshStore(async (store, schema) => {
      await refuseRowsWith(schema, "refuse-me");
      const kept = chain("k", 10);
      await store.create(head("s"), kept);
      // About 4 MB: sent in many pieces, the client waiting for the socket between them.
      const refused = chain("r", 200, 20_000, "k9");
      (refused[1] as { message: { content: string } }).message.content = "refuse-me";
      await assertRejects(
        () => settles(store.append("s", refused), "the append"),
        SessionStorageError,
        "refused",
      );
      assertEquals((await store.load("s")).entries, kept);
      const more = chain("n", 200, 20_000, "k9");
      await store.append("s", more);
      assertEquals((await store.load("s")).entries.length, kept.length + more.length);
    });
  });
}
