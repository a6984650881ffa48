/**
 * `mu check <file|id|folder>`: an integrity report per session. Exit 1 only when a session
 * has a defect: a torn final record or any other format error (line and reason), duplicate
 * entry ids, missing parents, parent links that form a cycle, or a file that cannot be read
 * at all (named; the rest of the folder is still checked). Warnings do not fail the check:
 * tool calls left unanswered by an interrupted turn (the projection supplies their results,
 * as pi does) and entry types this library does not know (kept and inert).
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
import { readLocalFile } from "../../stores/jsonl/_local.ts";
import { resolvePath } from "../context.ts";
import { openStore, resolveSessionId } from "../target.ts";
import { cliAdvice, counted } from "../format.ts";

/** One finding of a check. `defect: false` findings are reported but do not fail the check. */
export interface Finding {
  kind:
    | "format"
    | "torn-final-record"
    | "duplicate-id"
    | "missing-parent"
    | "parent-cycle"
    | "unreadable"
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
  for (const entry of entries) {
    if (entry.parentId != null && !seen.has(entry.parentId)) {
      findings.push({
        kind: "missing-parent",
        message: `parent ${entry.parentId} of entry ${entry.id} is missing`,
        defect: true,
      });
    }
  }
  findings.push(...parentCycles(entries));
  findings.push(...unansweredCalls(entries));
  return findings;
}

/** One finding per cycle of parent links (such a session has no root to walk from). */
function parentCycles(entries: readonly SessionEntry[]): Finding[] {
  const parentOf = new Map(entries.map((entry) => [entry.id, entry.parentId ?? null]));
  const settled = new Set<string>();
  const findings: Finding[] = [];
  for (const entry of entries) {
    const walked: string[] = [];
    const onWalk = new Set<string>();
    let id: string | null = entry.id;
    while (id !== null && parentOf.has(id) && !settled.has(id)) {
      if (onWalk.has(id)) {
        const cycle = walked.slice(walked.indexOf(id));
        findings.push({
          kind: "parent-cycle",
          message: `parent links form a cycle: ${cycle.join(" -> ")} -> ${id}`,
          defect: true,
        });
        break;
      }
      onWalk.add(id);
      walked.push(id);
      id = parentOf.get(id)!;
    }
    for (const walkedId of walked) settled.add(walkedId);
  }
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
            `tool call ${call.id} (${call.name}) in entry ${entry.id} has no result: the turn was interrupted (the context supplies an interrupted result)`,
          defect: false,
        });
      }
    }
  }
  return findings;
}

/** Check one file; one that cannot be read or checked at all is a defect naming why. */
async function checkFile(file: string): Promise<SessionReport> {
  try {
    return await checkSession(file, await readLocalFile(file));
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { source: file, findings: [{ kind: "unreadable", message, defect: true }] };
  }
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
        reports.push(await checkFile(file));
      }
    }
    const failed = reports.filter((report) => report.findings.some((f) => f.defect));
    if (invocation.json) {
      cli.out(JSON.stringify({ sessions: reports, defective: failed.length }, null, 2) + "\n");
    } else {
      for (const report of reports) {
        const status = report.findings.some((f) => f.defect)
          ? "DEFECTS"
          : report.findings.length
          ? "ok (warnings)"
          : "ok";
        cli.out(
          `${status}  ${report.source}${
            report.entries === undefined ? "" : `  (${counted(report.entries, "entry", "entries")})`
          }\n`,
        );
        for (const finding of report.findings) {
          const where = finding.line === undefined ? "" : `line ${finding.line}: `;
          cli.out(
            `  ${finding.defect ? "defect " : "warning"}  ${finding.kind}  ${where}${
              cliAdvice(finding.message)
            }\n`,
          );
        }
      }
      cli.out(
        `${reports.length} session${
          reports.length === 1 ? "" : "s"
        } checked, ${failed.length} with defects, ${
          reports.filter((r) => r.findings.some((f) => !f.defect)).length
        } with warnings\n`,
      );
    }
    return failed.length ? 1 : 0;
  },
};
