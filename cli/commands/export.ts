/**
 * `mu export <id> [--leaf ID] [-o FILE] [--html]`: a session, or one branch of it, as JSONL.
 * The lines are the store's own export, so unchanged imported entries stay byte-identical.
 * With `--html`, the branch (default: to the last entry) as one self-contained HTML file.
 * With `--index` (and `-o FILE`), also `FILE.idx`: the export index a range reader plans
 * context-only reads with (src/export_index.ts, docs/edge.md).
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "../args.ts";
import { exportBranchJsonl } from "../../src/export_branch.ts";
import { exportSessionJsonl } from "../../src/store.ts";
import { buildExportIndex, serializeExportIndex } from "../../src/export_index.ts";
import { InvalidArgumentError } from "../../src/errors.ts";
import { resolvePath } from "../context.ts";
import { resolveNamedSession } from "../target.ts";
import { sessionHtml } from "../export_html.ts";

export const exportCommand: Command = {
  name: "export",
  summary: "Write a session (or one branch with --leaf) as JSONL to stdout or a file.",
  operands: "<id|file>",
  arity: [1, 1],
  flags: {
    leaf: { type: "string", value: "ID", help: "only the branch ending at this entry" },
    output: { type: "string", short: "o", value: "FILE", help: "write to FILE instead of stdout" },
    html: {
      type: "boolean",
      help: "the branch as one self-contained HTML file (the viewer's conversation view)",
    },
    index: {
      type: "boolean",
      help: "also write FILE.idx, the index an edge function reads byte ranges with (needs -o)",
    },
  },
  globals: ["storage"],
  async run(invocation, cli) {
    const { store, id } = await resolveNamedSession(invocation, cli, invocation.operands[0]);
    try {
      const leaf = invocation.flags.leaf as string | undefined;
      const jsonl = invocation.flags.html === true
        ? await sessionHtml(store, id, leaf, cli)
        : leaf === undefined
        ? await exportSessionJsonl(store, id)
        : await exportBranchJsonl(store, id, leaf);
      const output = invocation.flags.output as string | undefined;
      const indexed = invocation.flags.index === true;
      if (indexed && (output === undefined || invocation.flags.html === true)) {
        throw new InvalidArgumentError("--index needs -o FILE and a JSONL export (not --html)");
      }
      if (output === undefined) cli.out(jsonl);
      else await writeFile(resolvePath(cli, output), jsonl, { mode: 0o600 });
      if (indexed) {
        const index = serializeExportIndex(await buildExportIndex(jsonl));
        await writeFile(resolvePath(cli, `${output}.idx`), index, { mode: 0o600 });
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
