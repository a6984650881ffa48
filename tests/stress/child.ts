/**
 * The writer process of the stress suite, runtime neutral (Deno runs it directly; Node 20
 * runs an esbuild bundle of it). One JSON argument says what to do; after every write the
 * store resolved it prints `ack <id>` (synchronously, so a kill right after the write
 * cannot reorder the two). The parent SIGKILLs it at a random moment (kill modes) or waits
 * for it (writer mode).
 *
 * Modes: `append` (one entry per call onto one session), `create` (sessions with three
 * entries), `import` (a 200-entry export per call), `upgrade` (open an older-format
 * session for writing, which persists the upgrade, then append one entry; on SQLite, whose
 * store holds format 4 only, importing a format-3 export), `writer` (the multi-writer
 * test: wait for a go file, append `count` entries, print `done`).
 */
import { existsSync, writeSync } from "node:fs";
import process from "node:process";
import { type SessionEntry, SessionManager, type SessionStore } from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { header, messageEntry } from "./_shared.ts";
import { exportText, KILL_SIZES } from "./_sources.ts";

/** What the parent asks a child to do. */
export interface ChildArgs {
  mode: "append" | "create" | "import" | "upgrade" | "writer";
  store: "jsonl" | "sqlite";
  /** JSONL directory or SQLite file. */
  location: string;
  /** Session appended to (append, writer). */
  sessionId?: string;
  /** Unique per child: ids of its entries and sessions start with it. */
  prefix: string;
  /** Sessions to open for writing (upgrade on JSONL). */
  ids?: string[];
  /** Entries to append (writer). */
  count?: number;
  /** File whose existence releases the writers at once (writer). */
  goFile?: string;
}

function ack(line: string): void {
  const bytes = new TextEncoder().encode(line + "\n");
  let written = 0;
  while (written < bytes.length) written += writeSync(1, bytes, written);
}

async function openStore(args: ChildArgs): Promise<SessionStore> {
  return args.store === "jsonl"
    ? await openJsonlFsStore(args.location, { trashCommand: false, lockTimeoutMs: 60_000 })
    : await openSqliteStore(args.location);
}

const id = (prefix: string, i: number) => `${prefix}${i.toString(36).padStart(5, "0")}`;

async function appendLoop(store: SessionStore, args: ChildArgs): Promise<void> {
  const { entries } = await store.load(args.sessionId!);
  let parentId = entries.at(-1)?.id ?? null;
  for (let i = 0;; i++) {
    const entry = messageEntry(id(args.prefix, i), parentId, (i * 37) % 1500);
    await store.append(args.sessionId!, [entry]);
    ack(`ack ${entry.id}`);
    parentId = entry.id;
  }
}

async function createLoop(store: SessionStore, args: ChildArgs): Promise<void> {
  for (let i = 0;; i++) {
    const sessionId = id(args.prefix, i);
    const entries: SessionEntry[] = [];
    for (let n = 0; n < KILL_SIZES.create; n++) {
      entries.push(messageEntry(`${sessionId}e${n}`, entries.at(-1)?.id ?? null, n * 400));
    }
    await store.create(header(sessionId), entries);
    ack(`ack ${sessionId}`);
  }
}

async function importLoop(store: SessionStore, args: ChildArgs, version: 3 | 4): Promise<void> {
  for (let i = 0;; i++) {
    const sessionId = id(args.prefix, i);
    const size = version === 4 ? KILL_SIZES.import : KILL_SIZES.upgrade;
    const text = new TextEncoder().encode(exportText(sessionId, version, size));
    await SessionManager.importFromJsonl(text, "/stress", store);
    ack(`ack ${sessionId}`);
  }
}

async function upgradeLoop(store: SessionStore, args: ChildArgs): Promise<void> {
  for (const sessionId of args.ids ?? []) {
    const manager = await SessionManager.open(store, sessionId);
    const entryId = await manager.appendMessage({
      role: "user",
      content: `after upgrade of ${sessionId}`,
      timestamp: Date.now(),
    });
    ack(`ack ${sessionId} ${entryId}`);
  }
  ack("exhausted");
  await new Promise(() => {}); // wait for the kill like the other modes
}

async function writer(store: SessionStore, args: ChildArgs): Promise<void> {
  ack("ready");
  while (!existsSync(args.goFile!)) await new Promise((resolve) => setTimeout(resolve, 2));
  const started = Date.now();
  let parentId: string | null = null;
  for (let i = 0; i < args.count!; i++) {
    const entry = messageEntry(id(args.prefix, i), parentId, i % 300);
    await store.append(args.sessionId!, [entry]);
    parentId = entry.id;
    // A real agent pauses between appends; without one a busy handler that sleeps lets the
    // same process take the lock back every time.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  ack(`done ${Date.now() - started}`);
}

const args = JSON.parse(process.argv[process.argv.length - 1]) as ChildArgs;
const store = await openStore(args);
try {
  if (args.mode === "append") await appendLoop(store, args);
  else if (args.mode === "create") await createLoop(store, args);
  else if (args.mode === "import") await importLoop(store, args, 4);
  else if (args.mode === "upgrade" && args.store === "sqlite") await importLoop(store, args, 3);
  else if (args.mode === "upgrade") await upgradeLoop(store, args);
  else await writer(store, args);
} finally {
  await store.close();
}
