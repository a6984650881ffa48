/**
 * One round of `mu sync` between the two sides (each direction in turn, the cursor saved
 * after each), and how a round is told to people. Shared by a single run and `--watch`.
 *
 * @module
 */
import type { CliContext } from "../context.ts";
import type { SessionStore } from "../../src/store.ts";
import { type SyncReport, syncStores } from "../../src/sync.ts";
import type { LocalSide, RemotePlan } from "./sync_sides.ts";
import { cliAdvice } from "../format.ts";

/** A direction of a round. */
export type Direction = "push" | "pull";
type Cursor = SyncReport["cursor"];

/** What one round did, per direction (`cursor` left out: it is saved, not shown). */
export type RoundReport = Partial<Record<Direction, Omit<SyncReport, "cursor">>>;

/** Everything a round needs; `cursor` is updated in place after each direction. */
export interface SyncPair {
  local: LocalSide;
  remote: RemotePlan;
  directions: Direction[];
  cursor: Cursor;
  /** Persist `cursor` (atomically). */
  save(): Promise<void>;
}

/**
 * One sync of the pair: each direction in turn, the cursor saved after each, so an
 * interrupted run keeps what completed. A progress line goes to a terminal's stderr.
 */
export async function syncRound(
  pair: SyncPair,
  remote: SessionStore,
  context: CliContext,
  signal?: AbortSignal,
): Promise<RoundReport> {
  const round: RoundReport = {};
  for (const direction of pair.directions) {
    const onProgress = context.stderrIsTTY
      ? (done: number, total: number) =>
        context.err(`\r\x1b[Kmu sync: ${direction} ${done}/${total} sessions`)
      : undefined;
    let report: SyncReport;
    try {
      report = await syncStores(pair.local.store, remote, {
        direction,
        cursor: pair.cursor,
        signal,
        onProgress,
      });
    } finally {
      if (onProgress) context.err("\r\x1b[K");
    }
    const { cursor, ...shown } = report;
    // Both maps: a pull also records, in the push cursor, the sessions it wrote and read back.
    pair.cursor.push = cursor.push;
    pair.cursor.pull = cursor.pull;
    await pair.save();
    round[direction] = shown;
  }
  return round;
}

/** Conflicts in a round. */
export function conflictCount(round: RoundReport): number {
  return (round.push?.conflicts.length ?? 0) + (round.pull?.conflicts.length ?? 0);
}

/** The round for people: one line per direction, then each conflict and skip. */
export function describeRound(round: RoundReport, remoteLabel: string): string {
  const lines: string[] = [];
  const told = new Set<string>(); // a conflict met both ways is told once
  for (const direction of ["push", "pull"] as const) {
    const report = round[direction];
    if (!report) continue;
    const arrow = direction === "push" ? `pushed to ${remoteLabel}` : `pulled from ${remoteLabel}`;
    lines.push(
      `${arrow}: ${count(report.sessionsCreated, "session")} created, ` +
        `${count(report.entriesCopied, "entry", "entries")} copied, ` +
        `${report.alreadyPresent} already present, ${report.sessionsUnchanged} unchanged`,
    );
    for (const conflict of report.conflicts) {
      const key = `${conflict.sessionId}\n${conflict.entryId ?? ""}`;
      if (told.has(key)) continue;
      told.add(key);
      const what = conflict.entryId === undefined
        ? "the headers differ"
        : `entry ${conflict.entryId} differs`;
      const field = conflict.field ? ` at ${conflict.field}` : "";
      lines.push(
        `  conflict: session ${conflict.sessionId}: ${what}${field} (left as it was on both sides)`,
      );
    }
    for (const skipped of report.skipped) {
      lines.push(`  skipped ${skipped.sessionId}: ${cliAdvice(skipped.reason)}`);
    }
  }
  return lines.join("\n") + "\n";
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Whether a round copied, conflicted or skipped anything (quiet rounds print nothing). */
export function roundMoved(round: RoundReport): boolean {
  return Object.values(round).some((report) =>
    report.sessionsCreated + report.entriesCopied + report.conflicts.length +
        report.skipped.length > 0
  );
}
