/**
 * `mu export <id> [--leaf ID] [-o FILE] [--html]`: a session, or one branch of it, as JSONL.
 * The lines are the store's own export, so unchanged imported entries stay byte-identical.
 * With `--html`, the branch (default: to the last entry) as one self-contained HTML file.
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "../args.ts";
import { exportBranchJsonl } from "../../src/export_branch.ts";
import { exportSessionJsonl } from "../../src/store.ts";
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
  },
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
      if (output === undefined) cli.out(jsonl);
      else await writeFile(resolvePath(cli, output), jsonl, { mode: 0o600 });
      return 0;
    } finally {
      await store.close();
    }
  },
};
