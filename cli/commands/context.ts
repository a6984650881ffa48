/**
 * `mu context <id|file> [--leaf ID] [--json]`: the model-visible context of a session,
 * exactly as `buildSessionProjection` computes it.
 *
 * @module
 */
import type { Command } from "../args.ts";
import { EntryNotFoundError } from "../../src/errors.ts";
import { buildSessionProjection } from "../../src/projection.ts";
import { SessionIndex } from "../../src/tree.ts";
import { preview } from "../format.ts";
import { loadTarget } from "../target.ts";
import { describeMissingParents } from "./show.ts";

export const context: Command = {
  name: "context",
  summary: "Print the projected model context of a session (file or id).",
  operands: "<id|file>",
  arity: [1, 1],
  flags: { leaf: { type: "string", value: "ID", help: "project from this entry (default: last)" } },
  async run(invocation, cli) {
    const target = await loadTarget(invocation, cli, invocation.operands[0]);
    const index = SessionIndex.build(target.entries, { source: target.file });
    const requested = invocation.flags.leaf as string | undefined;
    if (requested !== undefined && !index.byId.has(requested)) {
      throw new EntryNotFoundError(requested);
    }
    const leaf = requested ?? index.lastEntry?.id ?? null;
    const projection = buildSessionProjection(target.entries, leaf, index);
    if (invocation.json) {
      cli.out(JSON.stringify(projection, null, 2) + "\n");
      return 0;
    }
    const { header } = target;
    cli.out(
      `session ${header.id}  cwd ${header.cwd ?? "?"}  format ${target.sourceVersion}${
        target.sourceVersion < 4 ? " (upgraded in memory)" : ""
      }\n`,
    );
    const model = projection.model
      ? `${projection.model.provider}/${projection.model.modelId}`
      : "-";
    cli.out(
      `model ${model}  thinking ${projection.thinkingLevel}  entries ${target.entries.length}  context messages ${projection.messages.length}\n`,
    );
    const missing = describeMissingParents(index);
    if (missing) cli.err(missing);
    for (const message of projection.messages) {
      const role = message.role === "custom"
        ? `custom:${(message as { customType?: string }).customType}`
        : message.role;
      const body = "content" in message
        ? message.content
        : "summary" in message
        ? message.summary
        : "";
      cli.out(`- ${role.padEnd(18)} ${preview(body)}\n`);
    }
    return 0;
  },
};
