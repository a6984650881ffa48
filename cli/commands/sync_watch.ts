/**
 * `mu sync --watch`: after the first round, follow the local store's change token (and,
 * with `--both` or `--from`, the other side's) and run another round when one moves and
 * then holds still for {@link SETTLE_MS} (at most {@link MAX_WAIT_MS} later), so a local append reaches
 * the server within about a second and a burst of appends costs one round, not one a poll. When the other side cannot be
 * reached the watcher prints one line, retries with a growing pause (capped, so a server
 * back after a restart is caught up within seconds), and says when it caught up. Ctrl-C
 * or SIGTERM ends it between rounds, with the cursor saved.
 *
 * @module
 */
import { SessionStorageError } from "../../src/errors.ts";
import type { SessionStore } from "../../src/store.ts";
import { type CliContext, EXIT_FAILURE, EXIT_OK } from "../context.ts";
import {
  conflictCount,
  describeRound,
  roundMoved,
  type SyncPair,
  syncRound,
} from "./sync_round.ts";

/** How often the change tokens are read, at most. */
const POLL_MS = 200;
/**
 * The pause between polls is at least this many times what reading the tokens took: a
 * JSONL folder's token lists the folder (a tenth of a second or more for thousands of
 * sessions), and the watcher must not keep a core busy beside the agent it follows.
 */
const POLL_COST_FACTOR = 3;
/** How long the token must hold still before a round: the next poll comes this soon. */
const SETTLE_MS = 50;
/** The longest a change waits for the writes around it to pause. */
const MAX_WAIT_MS = 800;
/** The first pause after a failure, doubled per failure up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 2000;

/**
 * A store's change token for the whole store. Every store `mu sync` opens has one; a store
 * without one gets a new value each time, so it is synced at every poll rather than never.
 */
let untracked = 0;
async function storeToken(store: SessionStore): Promise<string> {
  return store.changeToken ? await store.changeToken() : `untracked ${untracked++}`;
}

/** Run rounds until interrupted; resolves with the exit code (1 if the last round conflicted). */
export async function watchSync(
  pair: SyncPair,
  machine: string,
  json: boolean,
  context: CliContext,
): Promise<number> {
  const stopping = new AbortController();
  let wake = () => {};
  const undo = context.onInterrupt?.(() => {
    stopping.abort(new DOMException("interrupted", "AbortError"));
    wake();
  });
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const pulls = pair.directions.includes("pull");
  let remote: SessionStore | undefined;
  let seen: string | undefined;
  let settling: string | undefined;
  let changedAt: number | undefined;
  let failing = false;
  let retryMs = FIRST_RETRY_MS;
  let conflicted = false;
  context.err(`mu sync: watching; ${pair.remote.label} is kept up to date (Ctrl-C stops)\n`);
  try {
    while (!stopping.signal.aborted) {
      try {
        remote ??= await pair.remote.open(machine);
        // Read before the round: a write during it moves the token and brings another.
        const readStart = Date.now();
        const tokens = [await storeToken(pair.local.store)];
        if (pulls) tokens.push(await storeToken(remote));
        const pollMs = Math.max(POLL_MS, (Date.now() - readStart) * POLL_COST_FACTOR);
        const now = tokens.join("\n\0");
        // A burst of appends is synced once it holds still for SETTLE_MS (or after
        // MAX_WAIT_MS), not at every poll: a round reads the changed sessions whole.
        const settled = seen === undefined || now === settling ||
          (changedAt !== undefined && Date.now() - changedAt >= MAX_WAIT_MS);
        if (now !== seen && !settled) {
          settling = now;
          changedAt ??= Date.now();
        } else if (now !== seen) {
          const round = await syncRound(pair, remote, context, stopping.signal);
          seen = now;
          settling = changedAt = undefined;
          conflicted = conflictCount(round) > 0;
          if (roundMoved(round)) {
            context.out(
              json
                ? JSON.stringify({ remote: pair.remote.label, ...round }) + "\n"
                : describeRound(round, pair.remote.label),
            );
          }
        }
        if (failing) {
          context.err(`mu sync: ${pair.remote.label} is back; caught up\n`);
          failing = false;
          retryMs = FIRST_RETRY_MS;
        }
        await pause(settling === undefined ? pollMs : SETTLE_MS);
      } catch (error) {
        if (stopping.signal.aborted) break;
        if (!(error instanceof SessionStorageError)) throw error;
        if (!failing) {
          context.err(`mu sync: ${error.message}; retrying until it answers\n`);
          failing = true;
        }
        seen = undefined; // whatever happened meanwhile is synced once it answers
        await pause(retryMs);
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      }
    }
  } finally {
    undo?.();
    await remote?.close();
  }
  context.err("mu sync: stopped; the cursor is saved\n");
  return conflicted ? EXIT_FAILURE : EXIT_OK;
}
