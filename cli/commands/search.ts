/**
 * `mu search <query> [--cwd DIR] [--role R] [--json]`: full-text search across sessions,
 * best hits first, as `session  entry  role  snippet`. Query language: words (all must
 * match), "quoted phrases", prefix*, -excluded (put `--` before a query that starts with
 * `-`). Every project unless `--cwd`; SQLite through its index, other stores by scanning.
 *
 * @module
 */
import type { Command } from "../args.ts";
import { resolvePath, UsageError } from "../context.ts";
import { table, visible } from "../format.ts";
import { openStore } from "../target.ts";
import { canonicalDir } from "../../stores/default/trust.ts";
import { searchSessions } from "../../src/search.ts";
import { SEARCH_ROLES, type SearchRole } from "../../src/search_text.ts";

export const search: Command = {
  name: "search",
  summary: "Search the text of every session, best hits first.",
  operands: "<query>",
  arity: [1, Infinity],
  flags: {
    cwd: { type: "string", value: "DIR", help: "only sessions of DIR (default: every project)" },
    role: {
      type: "string",
      value: "R",
      multiple: true,
      help: `only texts of role R, repeatable or comma-separated (${SEARCH_ROLES.join(", ")})`,
    },
    limit: { type: "string", value: "N", help: "at most N hits (default 50)" },
    internal: { type: "boolean", help: "include workflow (internal) sessions" },
  },
  async run(invocation, context) {
    const roles = ((invocation.flags.role as string[] | undefined) ?? [])
      .flatMap((value) => value.split(",")).map((role) => role.trim()).filter(Boolean);
    for (const role of roles) {
      if (!(SEARCH_ROLES as readonly string[]).includes(role)) {
        throw new UsageError(`unknown role ${JSON.stringify(role)} (${SEARCH_ROLES.join(", ")})`);
      }
    }
    const limitFlag = invocation.flags.limit as string | undefined;
    const limit = limitFlag === undefined ? undefined : Number(limitFlag);
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
      throw new UsageError(`--limit needs a positive whole number, not ${limitFlag}`);
    }
    const query = invocation.operands.join(" ");
    const store = await openStore(invocation, context);
    try {
      const cwdFlag = invocation.flags.cwd as string | undefined;
      const cwd = cwdFlag === undefined
        ? undefined
        : await canonicalDir(resolvePath(context, cwdFlag));
      const hits = await searchSessions(store, query, {
        cwd,
        roles: roles as SearchRole[],
        limit,
        includeInternal: invocation.flags.internal === true,
      });
      if (invocation.json) {
        context.out(JSON.stringify({ hits }, null, 2) + "\n");
        return 0;
      }
      const rows = hits.map((hit) => [hit.sessionId, hit.entryId, hit.role, visible(hit.snippet)]);
      context.out(
        hits.length ? table([["session", "entry", "role", "snippet"], ...rows]) : "no hits\n",
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
