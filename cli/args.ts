/**
 * Command-line parsing for `mu`: `node:util` `parseArgs` in strict mode, so an unknown flag
 * or a flag without its value is a usage error (exit 2), never ignored. The shared flags
 * (storage, `--json`) are accepted, and listed in `--help`, only by the commands that honour
 * them (`Command.globals`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type CliContext, UsageError } from "./context.ts";

/** One flag of a command. */
export interface FlagSpec {
  type: "string" | "boolean";
  short?: string;
  /** Shown in `--help`, e.g. `--cwd DIR  only sessions of DIR`. */
  help: string;
  /** The value's name in `--help` (string flags). */
  value?: string;
  multiple?: boolean;
}

/** A `mu` command: its flags, its help text and what it does. */
export interface Command {
  name: string;
  /** One line for `mu --help`. */
  summary: string;
  /** Positional arguments as shown in the usage line, e.g. `<id|file>`. */
  operands: string;
  /** Least and most positional arguments (`Infinity` for no upper bound). */
  arity: [number, number];
  flags: Record<string, FlagSpec>;
  /**
   * The shared flags it honours: `storage` (`--store`, `--session-dir`, `--approve`,
   * `--no-approve`) where it reads a store, `json` where its output is data. Default: both.
   */
  globals?: readonly GlobalGroup[];
  run(invocation: Invocation, context: CliContext): Promise<number>;
}

/** A group of shared flags a command can honour (see {@link Command.globals}). */
export type GlobalGroup = "storage" | "json";

/** Shared flags, by the group a command honours them as. */
const GLOBAL_GROUPS: Record<GlobalGroup, Record<string, FlagSpec>> = {
  storage: {
    store: {
      type: "string",
      value: "sqlite|jsonl|postgres",
      help: "storage to use (default: the configured storage, as the library resolves it); " +
        "postgres: the server in $MU_SESSIONS_POSTGRES_URL or the global settings",
    },
    "session-dir": { type: "string", value: "DIR", help: "JSONL session folder to use" },
    approve: {
      type: "boolean",
      help: "trust this project's .pi/settings.json for this run (storage settings included)",
    },
    "no-approve": { type: "boolean", help: "do not trust this project's settings for this run" },
  },
  json: { json: { type: "boolean", help: "print data as JSON" } },
};

/** The shared flags `command` takes: those of the groups it honours, and `--help`. */
export function globalFlags(command: Command): Record<string, FlagSpec> {
  const groups = command.globals ?? (["storage", "json"] as const);
  return Object.assign(
    {},
    ...groups.map((group) => GLOBAL_GROUPS[group]),
    { help: { type: "boolean", short: "h", help: "show this help" } },
  );
}

/** A parsed command line. */
export interface Invocation {
  operands: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
  store?: string;
  sessionDir?: string;
  /** `--approve` (true) / `--no-approve` (false): the one-run project trust override. */
  approve?: boolean;
}

/** Parse `argv` (after the command name) for `command`; usage problems throw {@link UsageError}. */
export function parseInvocation(command: Command, argv: string[]): Invocation {
  const specs = { ...globalFlags(command), ...command.flags };
  const options = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, {
      type: spec.type,
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    }]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(usageMessage(error as Error, command));
  }
  const flags = parsed.values as Invocation["flags"];
  if (flags.help) return { operands: [], flags, json: false };
  const [least, most] = command.arity;
  if (parsed.positionals.length < least) {
    throw new UsageError(`missing ${command.operands || "argument"}`);
  }
  if (parsed.positionals.length > most) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[most])}`);
  }
  const store = flags.store as string | undefined;
  if (store !== undefined && !["sqlite", "jsonl", "postgres"].includes(store)) {
    throw new UsageError(`--store must be sqlite, jsonl or postgres, not ${JSON.stringify(store)}`);
  }
  if (flags.approve && flags["no-approve"]) {
    throw new UsageError("--approve and --no-approve cannot be used together");
  }
  return {
    operands: parsed.positionals,
    flags,
    json: flags.json === true,
    store,
    sessionDir: flags["session-dir"] as string | undefined,
    approve: flags.approve ? true : flags["no-approve"] ? false : undefined,
  };
}

/**
 * `parseArgs`'s message, made to read right: its unknown-option hint ends in an unbalanced
 * quote (`as in '-- "--x"`), so that hint is rewritten whole, and given only where the
 * command takes arguments (a search for "-draft" needs it; `mu ls --bogus` is a typo).
 */
function usageMessage(error: Error, command: Command): string {
  const unknown = /^Unknown option '([^']*)'/.exec(error.message);
  if (unknown) {
    const option = unknown[1];
    return command.arity[1] === 0
      ? `unknown option ${option}`
      : `unknown option ${option} (an argument that starts with "-" goes after "--", as in: -- ${option})`;
  }
  return error.message;
}

/** The `--help` text of a command. */
export function commandHelp(command: Command): string {
  const lines = [
    `usage: mu ${command.name}${command.operands ? " " + command.operands : ""} [flags]`,
  ];
  lines.push("", command.summary, "");
  const flagLines = Object.entries({ ...command.flags, ...globalFlags(command) }).map(
    ([name, spec]) => {
      const short = spec.short ? `-${spec.short}, ` : "";
      const left = `  ${short}--${name}${spec.value ? " " + spec.value : ""}`;
      return [left, spec.help];
    },
  );
  const width = Math.max(...flagLines.map(([left]) => left.length));
  for (const [left, help] of flagLines) lines.push(`${left.padEnd(width)}  ${help}`);
  return lines.join("\n") + "\n";
}

/** Ask for confirmation unless `yes`; resolves true only for an explicit y/yes. */
export async function confirm(context: CliContext, question: string, yes: boolean) {
  if (yes) return true;
  const answer = (await context.ask(`${question} [y/N] `)).trim().toLowerCase();
  return answer === "y" || answer === "yes";
}
