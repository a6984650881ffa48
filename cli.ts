/**
 * `deno task project <session.jsonl> [--leaf <entryId>] [--json]`: print the model-visible
 * context of a session file (any format version), exactly as `buildSessionProjection`
 * computes it. Reads the file as a stream; never writes.
 *
 * @module
 */
import { buildSessionProjection, parseSessionJsonl, SessionError, SessionIndex } from "./core.ts";

function usage(): never {
  console.error("usage: deno task project <session.jsonl> [--leaf <entryId>] [--json]");
  Deno.exit(2);
}

function preview(content: unknown, width = 160): string {
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((block) =>
      block?.type === "text"
        ? block.text
        : block?.type === "thinking"
        ? `(thinking) ${block.thinking}`
        : block?.type === "toolCall"
        ? `${block.name}(${JSON.stringify(block.arguments)})`
        : `[${block?.type ?? "?"}]`
    ).join(" ")
    : JSON.stringify(content);
  const flat = String(text).replace(/\s+/g, " ").trim();
  return flat.length > width ? flat.slice(0, width - 1) + "…" : flat;
}

if (import.meta.main) {
  const args = [...Deno.args];
  const json = args.includes("--json");
  const leafAt = args.indexOf("--leaf");
  const leaf = leafAt >= 0 ? args[leafAt + 1] : undefined;
  const file = args.find((arg, i) => !arg.startsWith("--") && (leafAt < 0 || i !== leafAt + 1));
  if (!file) usage();
  try {
    const handle = await Deno.open(file, { read: true });
    const parsed = await parseSessionJsonl(handle.readable, { source: file, retainRaw: false });
    const index = SessionIndex.build(parsed.entries, { source: file });
    const missing = index.missingParentIds();
    if (missing.length) {
      // On stderr, so --json output stays parseable; the context may start mid-conversation.
      console.error(
        `warning: entries point at ${missing.length} parent id(s) not in this session: ${
          missing.join(", ")
        } (their branches start there, without the history before them)`,
      );
    }
    const projection = buildSessionProjection(
      parsed.entries,
      leaf ?? index.lastEntry?.id ?? null,
      index,
    );
    if (json) {
      console.log(JSON.stringify(projection, null, 2));
    } else {
      const { header } = parsed;
      console.log(
        `session ${header.id}  cwd ${header.cwd ?? "?"}  format ${parsed.sourceVersion}${
          parsed.upgraded ? " (upgraded in memory)" : ""
        }`,
      );
      console.log(
        `model ${
          projection.model ? `${projection.model.provider}/${projection.model.modelId}` : "-"
        }  thinking ${projection.thinkingLevel}  entries ${parsed.entries.length}  context messages ${projection.messages.length}`,
      );
      for (const message of projection.messages) {
        const role = message.role === "custom"
          ? `custom:${(message as { customType?: string }).customType}`
          : message.role;
        const body = "content" in message
          ? message.content
          : "summary" in message
          ? message.summary
          : "";
        console.log(`- ${role.padEnd(18)} ${preview(body)}`);
      }
    }
  } catch (error) {
    if (error instanceof SessionError || error instanceof Deno.errors.NotFound) {
      console.error(`${(error as Error).name}: ${(error as Error).message}`);
      Deno.exit(1);
    }
    throw error;
  }
}
