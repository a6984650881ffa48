/**
 * The PostgreSQL store's context-only load (`loadContext`, stores/postgres/_context.ts),
 * shared by the Deno and Node runners: equal to the full projection on every fixture and
 * leaf; reading no entry text outside what it returns (a row outside the context range
 * made unreadable does not matter to it, while a full load fails); and answering the same
 * on a schema from before the flags column.
 */
import { SessionFormatError } from "../../core.ts";
import { openPostgresStore } from "../../stores/postgres/store.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import type { Register } from "../conformance/harness.ts";
import { compareAfterMigration, compareEveryFixture } from "../unit/context_compare.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { adminSql, sharedCluster, withFreshStore } from "./subject.ts";

export function postgresContextCases(t: Register, runtime: string): void {
  const name = (what: string) => `postgres (${runtime}): loadContext: ${what}`;

  t(name("equals the full projection on every fixture and every leaf"), async () => {
    await withFreshStore(async (store) => {
      await compareEveryFixture(store);
    });
  });

  t(name("reads only the rows it returns"), async () => {
    await withFreshStore(async (store, schema) => {
      const session = generatedSession(4_000, 4_000);
      await store.create(session.header, session.entries);
      const before = await store.loadContext(session.header.id);
      const kept = new Set([...before.prefix, ...before.entries].map((entry) => entry.id));
      assert(kept.size < session.entries.length / 2, `${kept.size} rows returned`);
      // Every other row's text becomes unparseable: a load that read one would fail.
      await adminSql((sql) =>
        sql.unsafe(
          `UPDATE "${schema}".entries SET json = '{torn' WHERE session_id = $1
             AND NOT (entry_id = ANY($2::text[]))`,
          [session.header.id, [...kept]],
        )
      );
      assertEquals(await store.loadContext(session.header.id), before);
      await assertRejects(() => store.load(session.header.id), SessionFormatError);
    });
  });

  t(name("a schema from before the flags column migrates and answers the same"), async () => {
    const { url } = await sharedCluster();
    const session = generatedSession(1_500, 1_500);
    await withFreshStore(async (store, schema) => {
      await store.create(session.header, session.entries);
      await adminSql(async (sql) => {
        await sql.unsafe(`ALTER TABLE "${schema}".entries DROP COLUMN flags`);
        await sql.unsafe(`UPDATE "${schema}".schema_version SET version = 2`);
      });
      const migrated = await openPostgresStore({ url, schema, max: 2 });
      try {
        await compareAfterMigration(migrated, session);
      } finally {
        await migrated.close();
      }
      const [flags] = await adminSql((sql) =>
        sql.unsafe(
          `SELECT count(*)::int AS rows, count(flags)::int AS known FROM "${schema}".entries`,
        )
      );
      assertEquals(Number(flags.rows) - Number(flags.known), session.entries.length);
      assertEquals(Number(flags.known), 1, "new rows get their flags");
    });
  });
}
