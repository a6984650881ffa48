/**
 * `mu export <id> [--leaf ID] [-o FILE]`: a session, or one branch of it, as JSONL. The
 * lines are the store's own export, so unchanged imported entries stay byte-identical.
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "../args.ts";
import { EntryNotFoundError } from "../../src/errors.ts";
import { exportSessionJsonl } from "../../src/store.ts";
import { SessionIndex } from "../../src/tree.ts";
import { resolvePath } from "../context.ts";
import { openStore, resolveSessionId } from "../target.ts";

/** Keep the header line and the lines of the entries on the path to `leafId`, bytes untouched. */
export function branchLines(jsonl: string, index: SessionIndex, leafId: string): string {
  if (!index.byId.has(leafId)) throw new EntryNotFoundError(leafId);
  const onPath = new Set(index.getPath(leafId).map((entry) => entry.id));
  const lines = jsonl.split("\n");
  const kept = [lines[0]];
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    const { id } = JSON.parse(line) as { id?: string };
    if (id !== undefined && onPath.has(id)) kept.push(line);
  }
  return kept.join("\n") + "\n";
}

export const exportCommand: Command = {
  name: "export",
  summary: "Write a session (or one branch with --leaf) as JSONL to stdout or a file.",
  operands: "<id>",
  arity: [1, 1],
  flags: {
    leaf: { type: "string", value: "ID", help: "only the branch ending at this entry" },
    output: { type: "string", short: "o", value: "FILE", help: "write to FILE instead of stdout" },
  },
  async run(invocation, cli) {
    const store = await openStore(invocation, cli);
    try {
      const id = await resolveSessionId(store, invocation.operands[0]);
      let jsonl = await exportSessionJsonl(store, id);
      const leaf = invocation.flags.leaf as string | undefined;
      if (leaf !== undefined) {
        jsonl = branchLines(jsonl, SessionIndex.build((await store.load(id)).entries), leaf);
      }
      const output = invocation.flags.output as string | undefined;
      if (output === undefined) cli.out(jsonl);
      else await writeFile(resolvePath(cli, output), jsonl, { mode: 0o600 });
      return 0;
    } finally {
      await store.close();
    }
  },
};
