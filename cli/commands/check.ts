/**
 * `mu check <file|id|folder>`: an integrity report per session. Exit 1 when any session has
 * a defect. What counts: a torn final record or any other format error (line and reason),
 * duplicate entry ids, missing parents, unanswered tool calls of `toolUse` turns, and
 * entry types this library does not know (kept and inert, but worth knowing about).
 *
 * @module
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "../args.ts";
import { SessionFormatError } from "../../src/errors.ts";
import { parseSessionJsonl } from "../../src/jsonl.ts";
import { KNOWN_ENTRY_TYPES, type SessionEntry } from "../../src/schema.ts";
import { exportSessionJsonl } from "../../src/store.ts";
import { SessionIndex } from "../../src/tree.ts";
import { readLocalFile } from "../../stores/jsonl/_local.ts";
import { resolvePath } from "../context.ts";
import { openStore, resolveSessionId } from "../target.ts";

/** One finding of a check. `defect: false` findings are reported but do not fail the check. */
export interface Finding {
  kind:
    | "format"
    | "torn-final-record"
    | "duplicate-id"
    | "missing-parent"
    | "unanswered-tool-call"
    | "unknown-entry-type";
  message: string;
  line?: number;
  defect: boolean;
}

/** The report for one session. */
export interface SessionReport {
  source: string;
  sessionId?: string;
  entries?: number;
  findings: Finding[];
}

/** Check one session's bytes. */
export async function checkSession(
  source: string,
  bytes: ReadableStream<Uint8Array> | string,
): Promise<SessionReport> {
  let parsed;
  try {
    parsed = await parseSessionJsonl(bytes, { source, retainRaw: false });
  } catch (error) {
    if (!(error instanceof SessionFormatError)) throw error;
    const torn = /torn/i.test(error.reason ?? error.message);
    return {
      source,
      findings: [{
        kind: torn ? "torn-final-record" : "format",
        message: error.reason ?? error.message,
        line: error.line,
        defect: true,
      }],
    };
  }
  return {
    source,
    sessionId: parsed.header.id,
    entries: parsed.entries.length,
    findings: entryFindings(parsed.entries),
  };
}

/** Structural findings over parsed entries (file order). */
export function entryFindings(entries: readonly SessionEntry[]): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.id)) {
      findings.push({
        kind: "duplicate-id",
        message: `duplicate entry id ${entry.id}`,
        line: i + 2,
        defect: true,
      });
    }
    seen.add(entry.id);
    if (!KNOWN_ENTRY_TYPES.has(entry.type)) {
      findings.push({
        kind: "unknown-entry-type",
        message: `unknown entry type ${
          JSON.stringify(entry.type)
        } (kept, ignored by the projection)`,
        line: i + 2,
        defect: false,
      });
    }
  });
  const index = SessionIndex.build(entries);
  for (const entryId of index.danglingParents) {
    const parentId = index.get(entryId)?.parentId;
    findings.push({
      kind: "missing-parent",
      message: `parent ${parentId} of entry ${entryId} is missing`,
      defect: true,
    });
  }
  findings.push(...unansweredCalls(entries));
  return findings;
}

function unansweredCalls(entries: readonly SessionEntry[]): Finding[] {
  const answered = new Set<string>();
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role: string; toolCallId?: string };
    if (message.role === "toolResult" && message.toolCallId) answered.add(message.toolCallId);
  }
  const findings: Finding[] = [];
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role: string; stopReason?: string; content?: unknown };
    if (message.role !== "assistant" || message.stopReason !== "toolUse") continue;
    const calls = Array.isArray(message.content) ? message.content : [];
    for (const call of calls as { type?: string; id?: string; name?: string }[]) {
      if (call?.type === "toolCall" && call.id && !answered.has(call.id)) {
        findings.push({
          kind: "unanswered-tool-call",
          message:
            `tool call ${call.id} (${call.name}) in entry ${entry.id} has no result (the context supplies an interrupted result)`,
          defect: true,
        });
      }
    }
  }
  return findings;
}

async function jsonlFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const item of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) found.push(...await jsonlFiles(path));
    else if (item.isFile() && item.name.endsWith(".jsonl")) found.push(path);
  }
  return found.sort();
}

export const check: Command = {
  name: "check",
  summary: "Report integrity defects of a session file, a folder of them, or a stored session.",
  operands: "<file|id|folder>",
  arity: [1, 1],
  flags: {},
  async run(invocation, cli) {
    const operand = invocation.operands[0];
    const path = resolvePath(cli, operand);
    const kind = await stat(path).then((s) => s.isDirectory() ? "dir" : "file", () => "id");
    const reports: SessionReport[] = [];
    if (kind === "id") {
      const store = await openStore(invocation, cli);
      try {
        const id = await resolveSessionId(store, operand);
        reports.push(await checkSession(id, await exportSessionJsonl(store, id)));
      } finally {
        await store.close();
      }
    } else {
      for (const file of kind === "dir" ? await jsonlFiles(path) : [path]) {
        reports.push(await checkSession(file, await readLocalFile(file)));
      }
    }
    const failed = reports.filter((report) => report.findings.some((f) => f.defect));
    if (invocation.json) {
      cli.out(JSON.stringify({ sessions: reports, defective: failed.length }, null, 2) + "\n");
    } else {
      for (const report of reports) {
        const status = report.findings.some((f) => f.defect) ? "DEFECTS" : "ok";
        cli.out(
          `${status}  ${report.source}${
            report.entries === undefined ? "" : `  (${report.entries} entries)`
          }\n`,
        );
        for (const finding of report.findings) {
          const where = finding.line === undefined ? "" : `line ${finding.line}: `;
          cli.out(
            `  ${
              finding.defect ? "defect" : "note"
            }  ${finding.kind}  ${where}${finding.message}\n`,
          );
        }
      }
      cli.out(
        `${reports.length} session${
          reports.length === 1 ? "" : "s"
        } checked, ${failed.length} with defects\n`,
      );
    }
    return failed.length ? 1 : 0;
  },
};
