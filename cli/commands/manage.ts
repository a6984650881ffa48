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
import { openStore, resolveSessionId } from "../target.ts";

export const rm: Command = {
  name: "rm",
  summary: "Delete a session (asks first unless --yes; uses the trash where the store has one).",
  operands: "<id>",
  arity: [1, 1],
  flags: { yes: { type: "boolean", short: "y", help: "do not ask" } },
  async run(invocation, cli) {
    const store = await openStore(invocation, cli);
    try {
      const id = await resolveSessionId(store, invocation.operands[0]);
      if (!(await confirm(cli, `Delete session ${id}?`, invocation.flags.yes === true))) {
        cli.err("not deleted\n");
        return 1;
      }
      await store.delete(id);
      cli.out(`deleted ${id}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

export const fork: Command = {
  name: "fork",
  summary: "Copy a session (all branches) into a new session that records where it came from.",
  operands: "<id>",
  arity: [1, 1],
  flags: {
    cwd: { type: "string", value: "DIR", help: "the new session's cwd (default: the source's)" },
  },
  async run(invocation, cli) {
    const store = await openStore(invocation, cli);
    try {
      const source = await SessionManager.open(
        store,
        await resolveSessionId(store, invocation.operands[0]),
      );
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
