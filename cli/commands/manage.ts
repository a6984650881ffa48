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
 * system with one; `nowhere` (the delete is permanent) for a JSONL file on a system without
 * one; a database's name for a session stored in a database (a row has no trash).
 */
async function deletionOf(
  store: SessionStore,
  id: string,
): Promise<{ trash: string } | { nowhere: "no-trash" | "database"; where: string }> {
  const source = store instanceof SourcesSessionStore ? await store.sourceOf(id) : undefined;
  const owner = source?.store ?? store;
  if (owner.kind !== "jsonl") {
    return { nowhere: "database", where: source ? `${source.label} (${source.location})` : "" };
  }
  const trash = await trashDestination();
  return trash === undefined ? { nowhere: "no-trash", where: "" } : { trash };
}

/** After a delete: a copy of the session another source still holds, which lists now. */
async function remainingCopy(store: SessionStore, id: string): Promise<string | undefined> {
  if (!(store instanceof SourcesSessionStore)) return undefined;
  const source = await store.sourceOf(id);
  return source && `${source.label} (${source.location})`;
}

export const rm: Command = {
  name: "rm",
  summary:
    "Delete a session (asks first unless --yes; a JSONL file goes to the trash where the system has one).",
  operands: "<id|file>",
  arity: [1, 1],
  flags: { yes: { type: "boolean", short: "y", help: "do not ask" } },
  globals: ["storage"],
  async run(invocation, cli) {
    const { store, id } = await resolveNamedSession(invocation, cli, invocation.operands[0]);
    try {
      const deletion = await deletionOf(store, id);
      const question = "trash" in deletion
        ? `Move session ${id} to the trash?`
        : deletion.nowhere === "database"
        ? `Delete session ${id} permanently from ${
          deletion.where || "the store"
        }? A database keeps no trash to restore it from.`
        : `Delete session ${id} permanently? This system has no trash to restore it from.`;
      if (!(await confirm(cli, question, invocation.flags.yes === true))) {
        cli.err("not deleted\n");
        return 1;
      }
      await store.delete(id);
      cli.out(
        "trash" in deletion
          ? `moved ${id} to the trash (${deletion.trash})\n`
          : deletion.nowhere === "database"
          ? `deleted ${id} permanently\n`
          : `deleted ${id} permanently (this system has no trash)\n`,
      );
      const copy = await remainingCopy(store, id);
      if (copy) cli.err(`a copy of ${id} remains in ${copy} and is listed now\n`);
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
