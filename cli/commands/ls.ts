/**
 * `mu ls [--all] [--cwd DIR] [--internal]`: the sessions of the current project (or of
 * every project), newest first. On a PostgreSQL store, a machine column says whose
 * `mu sync` created each session there (empty for sessions never synced).
 *
 * @module
 */
import type { Command } from "../args.ts";
import { resolvePath } from "../context.ts";
import { cliAdvice, counted, shortDate, table, visible } from "../format.ts";
import { openSources } from "../target.ts";
import type { SessionInfo } from "../../src/store.ts";
import type { OpenedSources } from "../../stores/default/default_sources.ts";
import {
  DuplicateSessionSourceError,
  type SessionSource,
  type SourcedSessionInfo,
} from "../../stores/default/sources.ts";
import { canonicalDir } from "../../stores/default/trust.ts";

/** Where a listed session lives: its JSONL file, else its source's location. */
function locationOf(info: SessionInfo): string {
  const source = (info as Partial<SourcedSessionInfo>).source;
  return source?.kind === "jsonl" || source === undefined ? info.path : source.location;
}

/** An error message without the path it begins with (the line names the path already). */
function withoutPath(message: string, path: string): string {
  for (const lead of [`${path}: `, `${path}, `]) {
    if (message.startsWith(lead)) return message.slice(lead.length);
  }
  return message;
}

/**
 * One line per (hidden source, shown source) pair: how many copies are left out, which are
 * shown, and how `mu migrate` brings the configured store's copies up to date.
 */
function hiddenCopies(errors: readonly DuplicateSessionSourceError[]): string[] {
  const pairs = new Map<string, { error: DuplicateSessionSourceError; count: number }>();
  for (const error of errors) {
    const key = `${error.hidden.location}\0${error.shown.location}\0${error.newer}`;
    const pair = pairs.get(key) ?? { error, count: 0 };
    pair.count++;
    pairs.set(key, pair);
  }
  return [...pairs.values()].map(({ error: { hidden, shown, newer }, count }) => {
    const why = !newer
      ? hidden.kind === "jsonl"
        ? `, whose copies are as new and shown; where pi writes on, the file's newer copy is shown until mu migrate ${hidden.location} brings the store's up to date`
        : ", whose copies are as new and shown"
      : shown.kind === "jsonl"
      ? `, whose newer copies are shown; mu migrate ${shown.location} brings these up to date`
      : ", whose newer copies are shown";
    return `${counted(count, "session", "sessions")} of ${hidden.label} (${hidden.location}) ` +
      `also in ${shown.label} (${shown.location})${why} (mu ls --json names each one)\n`;
  });
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

/**
 * "No sessions here", and how many there are elsewhere (so `--all` is the next step); with
 * none anywhere, where it looked and which agent folders are missing, so a wrong
 * `PI_CODING_AGENT_DIR` or an empty default store shows at once.
 */
async function nothingHere(
  { store, sources, absent }: OpenedSources,
  cwd: string | undefined,
  includeInternal: boolean,
): Promise<string> {
  const elsewhere = cwd === undefined ? 0 : (await store.list({ includeInternal })).length;
  if (elsewhere > 0) {
    return `no sessions in ${cwd}; ${elsewhere} in other folders (mu ls --all lists them)\n`;
  }
  return [
    cwd === undefined ? "no sessions" : `no sessions in ${cwd}`,
    ...sources.map((source) => `  looked in: ${source.location}  (${source.label})`),
    ...absent.map((place) => `  not found: ${place.location}  (${place.label})`),
  ].join("\n") + "\n";
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
    const opened = await openSources(invocation, context);
    const { store, sources } = opened;
    try {
      const cwd = invocation.flags.all
        ? undefined
        : await canonicalDir(resolvePath(context, (invocation.flags.cwd as string) ?? "."));
      const skipped: string[] = [];
      const unreadable: string[] = [];
      const hidden: DuplicateSessionSourceError[] = [];
      const sessions = await store.list({
        cwd,
        includeInternal: invocation.flags.internal === true,
        onSkipped: ({ path, error }) => {
          const line = `${path}: ${withoutPath(error.message, path)}`;
          skipped.push(line);
          if (error instanceof DuplicateSessionSourceError) hidden.push(error);
          else unreadable.push(line);
        },
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
      else context.out(await nothingHere(opened, cwd, invocation.flags.internal === true));
      // A file that cannot be read is named; second copies (every session after a
      // `mu migrate` still has its pi file) are counted, one line per pair of sources.
      for (const line of unreadable) context.err(`skipped ${cliAdvice(line)}\n`);
      for (const line of hiddenCopies(hidden)) context.err(line);
      return 0;
    } finally {
      await store.close();
    }
  },
};
