/**
 * `mu repair <file>`: drop a torn final record (a crash mid-append) after writing a backup
 * next to the file, and print what was dropped. The rest of the file is checked first: any
 * other damage (or a file that is no session) is reported, the file is left byte for byte
 * as it was (no backup either), and the command exits 1.
 *
 * @module
 */
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import type { Command } from "../args.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { resolvePath } from "../context.ts";
import { preview } from "../format.ts";
import { isFile } from "../target.ts";
import { UsageError } from "../context.ts";

async function lastBytes(path: string, count: number): Promise<string> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const buffer = new Uint8Array(count);
    await handle.read(buffer, 0, count, size - count);
    return new TextDecoder().decode(buffer);
  } finally {
    await handle.close();
  }
}

export const repair: Command = {
  name: "repair",
  summary: "Drop a torn final record of a session file, keeping a backup; refuse anything else.",
  operands: "<file>",
  arity: [1, 1],
  flags: {},
  globals: ["json"],
  async run(invocation, cli) {
    const operand = invocation.operands[0];
    if (!(await isFile(cli, operand))) throw new UsageError(`${operand} is not a file`);
    const path = resolvePath(cli, operand);
    const store = await openJsonlFsStore(dirname(path));
    try {
      const report = await store.repairSession({ path });
      const dropped = report.action === "dropped-torn-record" && report.backupPath
        ? await lastBytes(report.backupPath, report.droppedBytes)
        : undefined;
      if (invocation.json) {
        cli.out(JSON.stringify({ ...report, dropped }, null, 2) + "\n");
      } else if (report.remainingProblem) {
        cli.err(
          `${report.path}: not repaired, nothing was changed (only a torn final record of a session can be dropped safely): ${report.remainingProblem}\n`,
        );
      } else if (report.action === "none") {
        cli.out(`${report.path}: the final record is whole; nothing to repair\n`);
      } else {
        cli.out(`${report.path}: ${report.action}, backup ${report.backupPath}\n`);
        if (dropped !== undefined) {
          cli.out(`dropped ${report.droppedBytes} bytes: ${preview(dropped, 200)}\n`);
        }
      }
      if (report.remainingProblem) return 1;
      return 0;
    } finally {
      await store.close();
    }
  },
};
