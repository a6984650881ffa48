/**
 * `mu import <files|folders...>` and `mu migrate <jsonl-folder>`: copy JSONL sessions into
 * a store (the source files are kept). An id that is already stored is never overwritten by different content: the
 * same content counts as already present, content that extends the stored session (its
 * entries plus more) appends the new entries, anything else is skipped with the reason.
 * `migrate` also verifies each session reads back byte for byte before counting it.
 *
 * @module
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Command, Invocation } from "../args.ts";
import { type CliContext, resolvePath, UsageError } from "../context.ts";
import { SessionStorageError } from "../../src/errors.ts";
import { type ImportOutcome, importSession } from "../../src/import_rule.ts";
import type { SessionStore } from "../../src/store.ts";
import { byteSize, cliAdvice, counted } from "../format.ts";
import { openTargetStore } from "../target.ts";

/** What happened to one file: the import rule's outcome, or a failed read-back (`migrate`). */
export type FileOutcome =
  & (ImportOutcome | { status: "unverified"; sessionId: string; reason: string })
  & { file: string };

async function collectFiles(cli: CliContext, operands: string[]): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string) => {
    for (
      const item of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : 1
      )
    ) {
      const path = join(dir, item.name);
      if (item.isDirectory()) await walk(path);
      else if (item.isFile() && item.name.endsWith(".jsonl")) files.push(path);
    }
  };
  for (const operand of operands) {
    const path = resolvePath(cli, operand);
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new UsageError(`no such file or folder: ${operand}`);
    if (info.isDirectory()) await walk(path);
    else files.push(path);
  }
  return files;
}

/** Import one file under the never-overwrite rule; a failed verification counts as skipped. */
async function importFile(
  store: SessionStore,
  file: string,
  verify: boolean,
): Promise<FileOutcome> {
  try {
    return { file, ...await importSession(store, await readFile(file), { source: file, verify }) };
  } catch (error) {
    if (!(error instanceof SessionStorageError) || !verify) throw error;
    return { file, status: "unverified", sessionId: "", reason: error.message };
  }
}

/** Why a file was skipped, or undefined when it was not. */
function skipReason(outcome: FileOutcome): string | undefined {
  if (outcome.status === "conflict" || outcome.status === "unverified") return outcome.reason;
  if (outcome.status === "invalid") {
    const { line, reason } = outcome.error;
    return line > 0 ? `line ${line}: ${reason}` : reason;
  }
  return undefined;
}

/** Import files into the store the invocation selects, with progress and a summary. */
export async function runImport(
  invocation: Invocation,
  cli: CliContext,
  operands: string[],
  verify: boolean,
): Promise<number> {
  const files = await collectFiles(cli, operands);
  const sizes = await Promise.all(files.map(async (file) => (await stat(file)).size));
  const totalBytes = sizes.reduce((a, b) => a + b, 0);
  const store = await openTargetStore(invocation, cli);
  const outcomes: FileOutcome[] = [];
  let doneBytes = 0;
  try {
    for (const [i, file] of files.entries()) {
      if (cli.stderrIsTTY) progress(cli, i, files.length, doneBytes, totalBytes);
      outcomes.push(await importFile(store, file, verify));
      doneBytes += sizes[i];
    }
    if (cli.stderrIsTTY && files.length) {
      progress(cli, files.length, files.length, totalBytes, totalBytes);
      cli.err("\n");
    }
  } finally {
    await store.close();
  }
  const count = (status: FileOutcome["status"]) =>
    outcomes.filter((o) => o.status === status).length;
  const skipped = outcomes.filter((o) => skipReason(o) !== undefined).length;
  if (invocation.json) {
    const rows = outcomes.map((o) => ({
      ...o,
      ...(o.status === "invalid" ? { error: undefined, reason: skipReason(o) } : {}),
    }));
    cli.out(JSON.stringify({ outcomes: rows }, null, 2) + "\n");
  } else {
    for (const outcome of outcomes) {
      const reason = skipReason(outcome);
      if (reason !== undefined) cli.out(`skipped ${outcome.file}: ${cliAdvice(reason)}\n`);
      if (outcome.status === "updated") {
        cli.out(`updated ${outcome.sessionId} (+${counted(outcome.added, "entry", "entries")})\n`);
      }
    }
    cli.out(
      `imported ${count("imported")}, updated ${count("updated")}, already present ${
        count("already-present")
      }, skipped ${skipped}\n`,
    );
  }
  return skipped ? 1 : 0;
}

function progress(
  cli: CliContext,
  files: number,
  total: number,
  bytes: number,
  totalBytes: number,
) {
  const width = 24;
  const filled = totalBytes ? Math.round((bytes / totalBytes) * width) : width;
  cli.err(
    `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${files}/${total} files  ${
      byteSize(bytes)
    }/${byteSize(totalBytes)}`,
  );
}

export const importCommand: Command = {
  name: "import",
  summary: "Import JSONL session files (or folders of them) into the store; never overwrites.",
  operands: "<files|folders...>",
  arity: [1, Infinity],
  flags: {},
  run: (invocation, cli) => runImport(invocation, cli, invocation.operands, false),
};

export const migrate: Command = {
  name: "migrate",
  summary:
    "Copy a JSONL session folder (pi's layout too) into a store, verifying each session byte for byte; the source files are kept; safe to re-run.",
  operands: "<jsonl-folder>",
  arity: [1, 1],
  flags: {
    to: {
      type: "string",
      value: "sqlite|jsonl",
      help: "target store (default: the configured one); jsonl also needs --session-dir DIR",
    },
  },
  async run(invocation, cli) {
    const to = invocation.flags.to as string | undefined;
    if (to !== undefined && to !== "sqlite" && to !== "jsonl") {
      throw new UsageError(`--to must be sqlite or jsonl, not ${JSON.stringify(to)}`);
    }
    if (to === "jsonl" && invocation.sessionDir === undefined) {
      throw new UsageError("--to jsonl needs the folder to copy into: add --session-dir DIR");
    }
    return await runImport(
      { ...invocation, store: to ?? invocation.store },
      cli,
      invocation.operands,
      true,
    );
  },
};
