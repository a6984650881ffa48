/**
 * The body of one appender process in the two-process SQLite test, shared by the Deno
 * worker script and the Node test bundle (which re-runs itself as the worker). Runtime
 * neutral: it talks to the store only. The processes meet at a barrier kept in the
 * database itself (marker sessions), so their appends really overlap.
 */
import type { SessionEntry, SessionHeader, SessionStore } from "../../core.ts";

/** What one appender does; passed to the child process as JSON. */
export interface AppendWorkerArgs {
  path: string;
  sessionId: string;
  /** Entry id prefix, one letter per process (ids stay 8 hex-ish characters). */
  prefix: string;
  count: number;
}

export const readyId = (args: { sessionId: string; prefix: string }) =>
  `${args.sessionId}-ready-${args.prefix}`;
export const goId = (sessionId: string) => `${sessionId}-go`;

export function markerHeader(id: string): SessionHeader {
  return { type: "session", version: 4, id, createdAt: new Date().toISOString(), cwd: "/marker" };
}

export function workerEntryId(prefix: string, i: number): string {
  return prefix + i.toString(16).padStart(7, "0");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Announce readiness, wait for the go marker, then append `count` entries one call each. */
export async function runAppendWorker(store: SessionStore, args: AppendWorkerArgs): Promise<void> {
  await store.create(markerHeader(readyId(args)));
  const deadline = Date.now() + 60_000;
  while (!(await store.has(goId(args.sessionId)))) {
    if (Date.now() > deadline) throw new Error("appender: no go signal within 60 s");
    await sleep(2);
  }
  let parentId: string | null = null;
  for (let i = 0; i < args.count; i++) {
    const entry: SessionEntry = {
      type: "message",
      id: workerEntryId(args.prefix, i),
      parentId,
      timestamp: new Date().toISOString(),
      message: { role: "user", content: `${args.prefix} ${i}`, timestamp: Date.now() },
    };
    await store.append(args.sessionId, [entry]);
    parentId = entry.id;
    // A real agent pauses between appends; without a pause SQLite's busy handler (which
    // sleeps) would let one process take the lock back every time and starve the other.
    await sleep(0);
  }
}
