/**
 * `mu import <files|folders...>` and `mu migrate <jsonl-folder>`: copy JSONL sessions into
 * a store. An id that is already stored is never overwritten by different content: the
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
import { SessionFormatError } from "../../src/errors.ts";
import { parseSessionJsonl, serializeSessionJsonl } from "../../src/jsonl.ts";
import { exportSessionJsonl, type SessionStore } from "../../src/store.ts";
import { byteSize } from "../format.ts";
import { openStore } from "../target.ts";

/** What happened to one file. */
export type ImportOutcome =
  | { file: string; status: "imported" | "already-present"; sessionId: string }
  | { file: string; status: "updated"; sessionId: string; added: number }
  | { file: string; status: "skipped"; reason: string; sessionId?: string };

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

/** Import one file's bytes into `store` under the never-overwrite rule. */
export async function importOne(
  store: SessionStore,
  file: string,
  bytes: Uint8Array,
  verify: boolean,
): Promise<ImportOutcome> {
  let parsed;
  try {
    parsed = await parseSessionJsonl(bytes, { source: file });
  } catch (error) {
    if (!(error instanceof SessionFormatError)) throw error;
    const where = error.line === undefined ? "" : `line ${error.line}: `;
    return { file, status: "skipped", reason: where + (error.reason ?? error.message) };
  }
  const { header, entries } = parsed;
  const text = serializeSessionJsonl(header, entries);
  const sessionId = header.id;
  if (await store.has(sessionId)) {
    const stored = await exportSessionJsonl(store, sessionId);
    if (stored === text) return { file, status: "already-present", sessionId };
    const storedCount = (await store.load(sessionId)).entries.length;
    if (text.startsWith(stored) && storedCount < entries.length) {
      await store.append(sessionId, entries.slice(storedCount));
      return { file, status: "updated", sessionId, added: entries.length - storedCount };
    }
    return {
      file,
      status: "skipped",
      sessionId,
      reason: `a different session with id ${sessionId} is already stored (not overwritten)`,
    };
  }
  await store.create(header, entries);
  if (verify && (await exportSessionJsonl(store, sessionId)) !== text) {
    await store.delete(sessionId);
    return {
      file,
      status: "skipped",
      sessionId,
      reason: "did not read back byte for byte; removed again",
    };
  }
  return { file, status: "imported", sessionId };
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
  const store = await openStore(invocation, cli);
  const outcomes: ImportOutcome[] = [];
  let doneBytes = 0;
  try {
    for (const [i, file] of files.entries()) {
      if (cli.stderrIsTTY) progress(cli, i, files.length, doneBytes, totalBytes);
      outcomes.push(await importOne(store, file, await readFile(file), verify));
      doneBytes += sizes[i];
    }
    if (cli.stderrIsTTY && files.length) {
      progress(cli, files.length, files.length, totalBytes, totalBytes);
      cli.err("\n");
    }
  } finally {
    await store.close();
  }
  const count = (status: ImportOutcome["status"]) =>
    outcomes.filter((o) => o.status === status).length;
  if (invocation.json) {
    cli.out(JSON.stringify({ outcomes }, null, 2) + "\n");
  } else {
    for (const outcome of outcomes) {
      if (outcome.status === "skipped") cli.out(`skipped ${outcome.file}: ${outcome.reason}\n`);
      if (outcome.status === "updated") {
        cli.out(`updated ${outcome.sessionId} (+${outcome.added} entries)\n`);
      }
    }
    cli.out(
      `imported ${count("imported")}, updated ${count("updated")}, already present ${
        count("already-present")
      }, skipped ${count("skipped")}\n`,
    );
  }
  return count("skipped") ? 1 : 0;
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
    "Move a JSONL session folder (pi's layout too) into a store, verifying each session byte for byte; safe to re-run.",
  operands: "<jsonl-folder>",
  arity: [1, 1],
  flags: {
    to: {
      type: "string",
      value: "sqlite|jsonl",
      help: "target store (default: the configured one)",
    },
  },
  async run(invocation, cli) {
    const to = invocation.flags.to as string | undefined;
    if (to !== undefined && to !== "sqlite" && to !== "jsonl") {
      throw new UsageError(`--to must be sqlite or jsonl, not ${JSON.stringify(to)}`);
    }
    return await runImport(
      { ...invocation, store: to ?? invocation.store },
      cli,
      invocation.operands,
      true,
    );
  },
};
