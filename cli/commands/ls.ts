/**
 * `mu ls [--all] [--cwd DIR] [--internal]`: the sessions of the current project (or of
 * every project), newest first.
 *
 * @module
 */
import type { Command } from "../args.ts";
import { resolvePath } from "../context.ts";
import { shortDate, table, visible } from "../format.ts";
import { openStore } from "../target.ts";
import { canonicalDir } from "../../stores/default/trust.ts";

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
    const store = await openStore(invocation, context);
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
      if (invocation.json) {
        context.out(JSON.stringify({ sessions, skipped }, null, 2) + "\n");
        return 0;
      }
      const rows = sessions.map((info) => [
        visible(info.name ?? info.summary ?? info.firstMessage).slice(0, 60),
        ...(cwd === undefined ? [visible(info.cwd)] : []),
        shortDate(info.modified),
        String(info.messageCount),
        info.id,
      ]);
      const head = ["title", ...(cwd === undefined ? ["cwd"] : []), "modified", "msgs", "id"];
      context.out(
        sessions.length ? table([head, ...rows]) : `no sessions${cwd ? ` in ${cwd}` : ""}\n`,
      );
      for (const line of skipped) context.err(`skipped ${line}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
