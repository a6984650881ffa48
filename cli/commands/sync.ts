/**
 * `mu sync --to postgres|URL|sqlite|PATH` (push), `--from ...` (pull), `--both`, `--watch`:
 * copy sessions between this machine's store and another one (a team's PostgreSQL server,
 * usually) with `syncStores`. Nothing is overwritten or deleted; a conflict (one id, two
 * contents) is reported and that session left alone on both sides. Exit codes: 0 clean,
 * 1 conflicts (or a failure), 2 usage or configuration errors.
 *
 * The cursor of each pair of sides is saved beside the agent folder (`sync_cursor.ts`), so
 * a second run reads no session that did not change. A push to PostgreSQL records which
 * machine created each session there (`--machine`, default host and agent folder).
 *
 * @module
 */
import type { Command, Invocation } from "../args.ts";
import { type CliContext, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "../context.ts";
import { cursorPath, loadCursor, saveCursor } from "./sync_cursor.ts";
import {
  conflictCount,
  describeRound,
  type Direction,
  type SyncPair,
  syncRound,
} from "./sync_round.ts";
import { machineLabel, openLocalSide, planRemote, SyncConfigError } from "./sync_sides.ts";
import { watchSync } from "./sync_watch.ts";

/** The pair the flags name, opened on the local side; configuration errors say why. */
async function preparePair(invocation: Invocation, context: CliContext): Promise<SyncPair> {
  const to = invocation.flags.to as string | undefined;
  const from = invocation.flags.from as string | undefined;
  if ((to === undefined) === (from === undefined)) {
    throw new UsageError("name the other side with exactly one of --to or --from");
  }
  const directions: Direction[] = invocation.flags.both
    ? ["push", "pull"]
    : to !== undefined
    ? ["push"]
    : ["pull"];
  const local = await openLocalSide(invocation, context);
  try {
    const remote = await planRemote((to ?? from)!, context, local);
    const path = cursorPath(local.agentDir, local.identity, remote.identity);
    const loaded = invocation.flags.full
      ? { cursor: { push: {}, pull: {} } }
      : await loadCursor(path, local.identity, remote.identity);
    if ("note" in loaded && loaded.note) {
      context.err(`mu sync: ignoring the saved cursor (${loaded.note}); comparing every session\n`);
    }
    const pair: SyncPair = {
      local,
      remote,
      directions,
      cursor: loaded.cursor,
      save: () => saveCursor(path, local.identity, remote.identity, pair.cursor),
    };
    return pair;
  } catch (error) {
    await local.store.close();
    throw error;
  }
}

export const sync: Command = {
  name: "sync",
  summary: "Copy sessions between this machine's store and a server (--to postgres).",
  operands: "",
  arity: [0, 0],
  flags: {
    to: {
      type: "string",
      value: "postgres|URL|sqlite|PATH",
      help: "push this machine's sessions there (postgres: the server in " +
        "$MU_SESSIONS_POSTGRES_URL or the global settings; PATH: a .db file or a JSONL folder)",
    },
    from: { type: "string", value: "postgres|URL|sqlite|PATH", help: "pull sessions from there" },
    both: { type: "boolean", help: "push and pull (with --to or --from)" },
    watch: {
      type: "boolean",
      help: "keep running: push new entries within about a second, wait out a server that " +
        "is away; Ctrl-C stops",
    },
    machine: {
      type: "string",
      value: "LABEL",
      help: "machine label recorded on the server (default: host:agent folder)",
    },
    full: { type: "boolean", help: "compare every session, ignoring the saved cursor" },
  },
  async run(invocation, context) {
    let pair: SyncPair;
    try {
      pair = await preparePair(invocation, context);
    } catch (error) {
      if (!(error instanceof SyncConfigError)) throw error;
      context.err(`mu sync: ${error.message}\n`);
      return EXIT_USAGE;
    }
    const machine = (invocation.flags.machine as string | undefined) ??
      machineLabel(context, pair.local.agentDir);
    try {
      if (invocation.flags.watch) return await watchSync(pair, machine, invocation.json, context);
      const remote = await pair.remote.open(machine);
      try {
        const round = await syncRound(pair, remote, context);
        if (invocation.json) {
          const json = { remote: pair.remote.label, machine, ...round };
          context.out(JSON.stringify(json, null, 2) + "\n");
        } else context.out(describeRound(round, pair.remote.label));
        return conflictCount(round) > 0 ? EXIT_FAILURE : EXIT_OK;
      } finally {
        await remote.close();
      }
    } finally {
      await pair.local.store.close();
    }
  },
};
