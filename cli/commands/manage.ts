/**
 * `mu rm <id> [--yes]` and `mu fork <id> [--cwd DIR]`: delete a session (asking first;
 * the JSONL store moves the file to the trash where the system has one) and copy a
 * session, all branches, into a new session.
 *
 * @module
 */
import { type Command, confirm } from "../args.ts";
import { resolvePath } from "../context.ts";
import { SessionManager } from "../../src/manager.ts";
import { resolveNamedSession } from "../target.ts";
import type { SessionStore } from "../../src/store.ts";
import { SourcesSessionStore } from "../../stores/default/sources.ts";
import { trashDestination } from "../../stores/jsonl/_trash.ts";

/**
 * Where deleting `id` puts it: the trash (named) for a session kept in a JSONL file on a
 * system with one, else undefined: the delete is permanent (database stores, no trash).
 */
async function trashOf(store: SessionStore, id: string): Promise<string | undefined> {
  const owner = store instanceof SourcesSessionStore ? (await store.sourceOf(id))?.store : store;
  return owner?.kind === "jsonl" ? await trashDestination() : undefined;
}

export const rm: Command = {
  name: "rm",
  summary:
    "Delete a session (asks first unless --yes; a JSONL file goes to the trash where the system has one).",
  operands: "<id|file>",
  arity: [1, 1],
  flags: { yes: { type: "boolean", short: "y", help: "do not ask" } },
  async run(invocation, cli) {
    const { store, id } = await resolveNamedSession(invocation, cli, invocation.operands[0]);
    try {
      const trash = await trashOf(store, id);
      const how = trash === undefined ? "permanently (this system has no trash)" : "to the trash";
      const question = trash === undefined
        ? `Delete session ${id} permanently? This system has no trash to restore it from.`
        : `Move session ${id} to the trash?`;
      if (!(await confirm(cli, question, invocation.flags.yes === true))) {
        cli.err("not deleted\n");
        return 1;
      }
      await store.delete(id);
      cli.out(
        trash === undefined ? `deleted ${id} ${how}\n` : `moved ${id} ${how} (${trash})\n`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};

export const fork: Command = {
  name: "fork",
  summary: "Copy a session (all branches) into a new session that records where it came from.",
  operands: "<id|file>",
  arity: [1, 1],
  flags: {
    cwd: { type: "string", value: "DIR", help: "the new session's cwd (default: the source's)" },
  },
  async run(invocation, cli) {
    const { store, id } = await resolveNamedSession(invocation, cli, invocation.operands[0]);
    try {
      const source = await SessionManager.open(store, id);
      const cwd = invocation.flags.cwd === undefined
        ? source.getCwd()
        : resolvePath(cli, invocation.flags.cwd as string);
      const forked = await source.forkTo(cwd);
      if (invocation.json) {
        cli.out(
          JSON.stringify({ id: forked.getSessionId(), parentSessionId: source.getSessionId() }) +
            "\n",
        );
      } else {
        cli.out(`forked ${source.getSessionId()} -> ${forked.getSessionId()}\n`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
