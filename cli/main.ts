/**
 * `mu`: the command line of mu-sessions. One file per command under `commands/`; this
 * module dispatches, prints errors and maps them to exit codes: 0 ok, 1 failure or defects
 * found, 2 usage error (unknown flags and missing values included). Runs in Deno and Node.
 *
 * @example
 * ```ts
 * import { runCli } from "./main.ts";
 * const code = await runCli(["ls", "--all"]);
 * ```
 *
 * @module
 */
import process from "node:process";
import { createInterface } from "node:readline/promises";
import { type Command, commandHelp, parseInvocation } from "./args.ts";
import { type CliContext, EXIT_FAILURE, EXIT_USAGE, UsageError } from "./context.ts";
import { SessionError } from "../src/errors.ts";
import { check } from "./commands/check.ts";
import { context } from "./commands/context.ts";
import { exportCommand } from "./commands/export.ts";
import { importCommand, migrate } from "./commands/import.ts";
import { ls } from "./commands/ls.ts";
import { fork, rm } from "./commands/manage.ts";
import { repair } from "./commands/repair.ts";
import { search } from "./commands/search.ts";
import { serve } from "./commands/serve.ts";
import { show } from "./commands/show.ts";
import { stats } from "./commands/stats.ts";
import { sync } from "./commands/sync.ts";
import { MU_VERSION } from "./version.ts";

/** Every command, in the order `mu --help` lists them. */
export const COMMANDS: readonly Command[] = [
  ls,
  search,
  show,
  context,
  importCommand,
  exportCommand,
  fork,
  rm,
  check,
  repair,
  migrate,
  stats,
  serve,
  sync,
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "usage: mu <command> [arguments] [flags]",
    "",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Commands that read a store take --store sqlite|jsonl|postgres, --session-dir DIR,",
    "--approve or --no-approve; --json where the output is data; mu <command> --help lists",
    "the flags each one honours.",
    "mu --version prints the version.",
    "Exit codes: 0 ok, 1 failure or defects found, 2 usage error.",
    "",
  ].join("\n");
}

/**
 * Where the user ran the command. `deno task mu` (and `npm run mu`, which calls it) runs in
 * the repository folder, so the task passes the caller's directory as `MU_CALLER_CWD`. It
 * is read once and removed, so processes started from here do not inherit it (`INIT_CWD`
 * is not used for the same reason: any npm script sets it for everything below it).
 */
function callerDirectory(): string {
  const passed = process.env.MU_CALLER_CWD;
  delete process.env.MU_CALLER_CWD;
  return passed || process.cwd();
}

/**
 * Standard output closed early (`mu ls | head`) is not an error: stop writing quietly.
 * Other stream errors still surface.
 */
function exitQuietlyOnClosedPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

/** The real process as a {@link CliContext}. */
export function processContext(): CliContext {
  exitQuietlyOnClosedPipe();
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    cwd: callerDirectory(),
    env: process.env,
    stderrIsTTY: process.stderr.isTTY === true,
    async ask(question) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      // End of input (no terminal, `< /dev/null`) answers "" instead of waiting forever.
      const closed = new Promise<string>((resolve) => rl.once("close", () => resolve("")));
      try {
        return await Promise.race([rl.question(question), closed]);
      } catch {
        return "";
      } finally {
        rl.close();
      }
    },
    onInterrupt(handler) {
      // Installed only while a command asks: every other command keeps the default (exit).
      process.on("SIGINT", handler);
      process.on("SIGTERM", handler);
      return () => {
        process.off("SIGINT", handler);
        process.off("SIGTERM", handler);
      };
    },
  };
}

/** Run one command line; resolves with the exit code. */
export async function runCli(argv: string[], cli: CliContext = processContext()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-V" || name === "version") {
    cli.out(`mu ${MU_VERSION}\n`);
    return 0;
  }
  // `mu help ls` is how many users ask; answer as `mu ls --help` does.
  const asked = name === "help" ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
  if (asked) {
    cli.out(commandHelp(asked));
    return 0;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? cli.err : cli.out)(overview());
    return name === undefined ? EXIT_USAGE : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    cli.err(`mu: unknown command ${JSON.stringify(name)}\n\n${overview()}`);
    return EXIT_USAGE;
  }
  try {
    const invocation = parseInvocation(command, rest);
    if (invocation.flags.help) {
      cli.out(commandHelp(command));
      return 0;
    }
    return await command.run(invocation, cli);
  } catch (error) {
    if (error instanceof UsageError) {
      cli.err(`mu ${command.name}: ${error.message}\n\n${commandHelp(command)}`);
      return EXIT_USAGE;
    }
    if (error instanceof SessionError) {
      cli.err(`mu ${command.name}: ${error.name}: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "EACCES" || code === "EISDIR" || code === "ENOTDIR") {
      cli.err(`mu ${command.name}: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
    throw error;
  }
}
