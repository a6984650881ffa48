/**
 * `mu ls [--all] [--cwd DIR] [--internal]`: the sessions of the current project (or of
 * every project), newest first. On a PostgreSQL store, a machine column says whose
 * `mu sync` created each session there (empty for sessions never synced).
 *
 * @module
 */
import type { Command } from "../args.ts";
import { resolvePath } from "../context.ts";
import { shortDate, table, visible } from "../format.ts";
import { openSources } from "../target.ts";
import type { SessionInfo, SessionStore } from "../../src/store.ts";
import type { SessionSource, SourcedSessionInfo } from "../../stores/default/sources.ts";
import { canonicalDir } from "../../stores/default/trust.ts";

/** Where a listed session lives: its JSONL file, else its source's location. */
function locationOf(info: SessionInfo): string {
  const source = (info as Partial<SourcedSessionInfo>).source;
  return source?.kind === "jsonl" || source === undefined ? info.path : source.location;
}

/** A store that knows which machine's `mu sync` created each session (PostgreSQL). */
interface MachineLabels {
  machines(ids?: readonly string[]): Promise<Map<string, string>>;
}

/**
 * Session id -> machine label from every source that records them, or undefined when no
 * source does (the listing then has no machine column).
 */
async function machinesOf(
  sources: readonly SessionSource[],
  sessions: readonly SessionInfo[],
): Promise<Map<string, string> | undefined> {
  const labelled = sources.filter((source) =>
    typeof (source.store as Partial<MachineLabels>).machines === "function"
  );
  if (labelled.length === 0) return undefined;
  const ids = sessions.map((info) => info.id);
  const found = new Map<string, string>();
  for (const source of labelled) {
    for (const [id, machine] of await (source.store as unknown as MachineLabels).machines(ids)) {
      found.set(id, machine);
    }
  }
  return found;
}

/** "No sessions here", and how many there are elsewhere (so `--all` is the next step). */
async function nothingHere(
  store: SessionStore,
  cwd: string | undefined,
  includeInternal: boolean,
): Promise<string> {
  if (cwd === undefined) return "no sessions\n";
  const elsewhere = (await store.list({ includeInternal })).length;
  return elsewhere === 0
    ? `no sessions in ${cwd}\n`
    : `no sessions in ${cwd}; ${elsewhere} in other folders (mu ls --all lists them)\n`;
}

export const ls: Command = {
  name: "ls",
  summary: "List sessions of the current project (or all), newest first.",
  operands: "",
  arity: [0, 0],
  flags: {
    all: { type: "boolean", short: "a", help: "sessions of every project" },
    cwd: { type: "string", value: "DIR", help: "sessions of DIR (default: the current directory)" },
    internal: { type: "boolean", help: "include workflow (internal) sessions" },
  },
  async run(invocation, context) {
    const { store, sources } = await openSources(invocation, context);
    try {
      const cwd = invocation.flags.all
        ? undefined
        : await canonicalDir(resolvePath(context, (invocation.flags.cwd as string) ?? "."));
      const skipped: string[] = [];
      const sessions = await store.list({
        cwd,
        includeInternal: invocation.flags.internal === true,
        onSkipped: ({ path, error }) => skipped.push(`${path}: ${error.message}`),
      });
      const machines = await machinesOf(sources, sessions);
      if (invocation.json) {
        const rows = machines
          ? sessions.map((info) =>
            machines.has(info.id) ? { ...info, machine: machines.get(info.id) } : info
          )
          : sessions;
        context.out(JSON.stringify({ sessions: rows, skipped }, null, 2) + "\n");
        return 0;
      }
      // Several sources: say where each session lives (the file, or the database).
      const where = sources.length > 1;
      const rows = sessions.map((info) => [
        visible(info.name ?? info.summary ?? info.firstMessage).slice(0, 60),
        ...(cwd === undefined ? [visible(info.cwd)] : []),
        shortDate(info.modified),
        String(info.messageCount),
        info.id,
        ...(machines ? [visible(machines.get(info.id) ?? "")] : []),
        ...(where ? [visible(locationOf(info))] : []),
      ]);
      const head = [
        "title",
        ...(cwd === undefined ? ["cwd"] : []),
        "modified",
        "msgs",
        "id",
        ...(machines ? ["machine"] : []),
        ...(where ? ["where"] : []),
      ];
      if (sessions.length) context.out(table([head, ...rows]));
      else context.out(await nothingHere(store, cwd, invocation.flags.internal === true));
      for (const line of skipped) context.err(`skipped ${line}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
