/**
 * Small sessions the list and layout tests write to disk: three sessions in two projects
 * (one a fork of another, one with a word only in its message text) whose created, modified
 * and size orders all differ, a format-3 session with a retired summary compaction, and a long
 * chain of wordy messages.
 *
 * @module
 */

/** The forked-from session, the fork, and the other project's session. */
export const LIST = {
  parent: "list-parent-0001",
  fork: "list-fork-0002",
  other: "list-other-0003",
  /** A word only in a later message of `other` (never in a title, cwd or id). */
  word: "quokkamagic",
} as const;

const at = (iso: string, s: number) => new Date(Date.parse(iso) + s * 1000).toISOString();

/** One session as JSONL: a v4 header, then alternating user / assistant messages. */
function session(
  id: string,
  cwd: string,
  created: string,
  lastAt: string,
  texts: string[],
  parentSessionId?: string,
): string {
  const header: Record<string, unknown> = {
    type: "session",
    version: 4,
    id,
    createdAt: created,
    cwd,
  };
  if (parentSessionId) header.parentSessionId = parentSessionId;
  const lines = [header];
  let parent: string | null = null;
  texts.forEach((text, i) => {
    const ts = at(lastAt, i - texts.length + 1);
    const entryId = `${id.slice(5, 9)}${String(i).padStart(4, "0")}`;
    const time = Date.parse(ts);
    lines.push({
      type: "message",
      id: entryId,
      parentId: parent,
      timestamp: ts,
      message: i % 2 === 0
        ? { role: "user", content: text, timestamp: time }
        : { role: "assistant", content: [{ type: "text", text }], timestamp: time },
    });
    parent = entryId;
  });
  return lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
}

/**
 * Write the three list sessions into `dir`; returns their paths. Orders:
 * modified parent, fork, other; created other, fork, parent; size fork, parent, other.
 */
export async function writeListSessions(dir: string): Promise<string[]> {
  const files: Array<[string, string]> = [
    [
      "parent.jsonl",
      session(
        LIST.parent,
        "/home/dev/alpha",
        "2026-01-01T00:00:00.000Z",
        "2026-03-01T00:00:00.000Z",
        [
          "plan the alpha migration",
          "Here is a plan.",
          "go ahead",
          "Done.",
        ],
      ),
    ],
    [
      "fork.jsonl",
      session(
        LIST.fork,
        "/home/dev/alpha",
        "2026-01-03T00:00:00.000Z",
        "2026-01-03T01:00:00.000Z",
        ["try the other approach", "Sure.", "and test it", "Tested.", "ship it", "Shipped."],
        LIST.parent,
      ),
    ],
    [
      "other.jsonl",
      session(
        LIST.other,
        "/home/dev/beta",
        "2026-01-04T00:00:00.000Z",
        "2026-02-01T00:00:00.000Z",
        [
          "why is the beta build slow",
          `The ${LIST.word} step rebuilds everything.`,
        ],
      ),
    ],
  ];
  const paths: string[] = [];
  for (const [name, text] of files) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
    paths.push(`${dir}/${name}`);
  }
  return paths;
}

/** The retired-compaction session: its id, the record and the entry it keeps from. */
export const RETIRED = {
  id: "retired-summary-0001",
  compaction: "c0000001",
  firstKept: "m0000003",
  summary: "The user asked about the flaky login test and its retry loop.",
} as const;

/**
 * A format-3 (pi) session: four messages, a summary compaction keeping from the third,
 * then two more. Format 4 leaves all six in context; the older agent sent the summary,
 * then messages 3 to 6.
 */
export async function writeRetiredCompaction(dir: string): Promise<string> {
  const t = (s: number) => at("2025-05-01T09:00:00.000Z", s);
  const message = (id: string, parentId: string, s: number, role: string, text: string) => ({
    type: "message",
    id,
    parentId,
    timestamp: t(s),
    message: role === "user"
      ? { role, content: text, timestamp: Date.parse(t(s)) }
      : { role, content: [{ type: "text", text }], timestamp: Date.parse(t(s)) },
  });
  const lines = [
    { type: "session", version: 3, id: RETIRED.id, timestamp: t(0), cwd: "/home/dev/login" },
    {
      ...message("m0000001", "", 1, "user", "first: why does the login test flake?"),
      parentId: null,
    },
    message("m0000002", "m0000001", 2, "assistant", "first answer: a retry loop races."),
    message(RETIRED.firstKept, "m0000002", 3, "user", "second: fix the retry loop"),
    message("m0000004", RETIRED.firstKept, 4, "assistant", "second answer: fixed."),
    {
      type: "compaction",
      id: RETIRED.compaction,
      parentId: "m0000004",
      timestamp: t(5),
      summary: RETIRED.summary,
      firstKeptEntryId: RETIRED.firstKept,
      tokensBefore: 5000,
    },
    message("m0000005", RETIRED.compaction, 6, "user", "third: run it again"),
    message("m0000006", "m0000005", 7, "assistant", "third answer: green."),
  ];
  const path = `${dir}/retired-compaction.jsonl`;
  await Deno.writeTextFile(path, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return path;
}

/** A chain of `n` user/assistant messages of about 27 × `words` characters each (2,000). */
export function wordySession(n: number, words = 74): string {
  const lines = [JSON.stringify({
    type: "session",
    version: 4,
    id: "frame-budget-0001",
    createdAt: "2026-03-01T00:00:00.000Z",
    cwd: "/wordy",
  })];
  const filler = "lorem ipsum dolor sit amet ".repeat(words); // 1,998 characters at 74
  for (let i = 1; i <= n; i++) {
    const role = i % 2 ? "user" : "assistant";
    const text = `wordy ${i} ${filler}`;
    lines.push(JSON.stringify({
      type: "message",
      id: `w${String(i).padStart(7, "0")}`,
      parentId: i === 1 ? null : `w${String(i - 1).padStart(7, "0")}`,
      timestamp: new Date(Date.UTC(2026, 2, 1) + i * 1000).toISOString(),
      message: role === "user"
        ? { role, content: text, timestamp: i }
        : { role, content: [{ type: "text", text }], stopReason: "stop", timestamp: i },
    }));
  }
  return lines.join("\n") + "\n";
}
