/**
 * Library files stay short enough to read in one sitting: of the files the repository
 * tracks outside tests/, bench/ and fixtures/ (`.ts`, `.js`, `.mjs`), at most
 * {@link MAX_LONG_FILES} are longer than {@link MAX_LINES} lines, and each of those says
 * why in its module comment (the first doc comment of the file) with a line that starts
 * with the marker:
 *
 * ```ts
 * /**
 *  * ...
 *  * Why this file is long: one walk over private state that every method shares, ...
 *  *\/
 * ```
 *
 * The reason is the text after the marker (it may go on over the next comment lines); an
 * empty one does not count. Split a file by concept before reaching for the marker.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Longest a library file may be without a reason. */
const MAX_LINES = 400;
/** How many library files may be longer, each with its reason. */
const MAX_LONG_FILES = 3;
/** What a module comment line starts with (after ` * `) to give the reason. */
const MARKER = "Why this file is long:";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Tracked library source files, relative to the repository root. */
function libraryFiles(): string[] {
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" });
  return tracked.split("\0").filter((path) =>
    /\.(ts|js|mjs)$/.test(path) && !/^(tests|bench|fixtures)\//.test(path)
  );
}

/** Lines as `wc -l` counts them, plus a last line without a newline. */
function lineCount(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

/** The reason a file's module comment gives for its length, or `undefined` without one. */
function lengthReason(text: string): string | undefined {
  const comment = /^\s*(?:#![^\n]*\n\s*)?\/\*\*([\s\S]*?)\*\//.exec(text)?.[1];
  if (comment === undefined) return undefined;
  const lines = comment.split("\n").map((line) => line.replace(/^\s*\*\s?/, "").trim());
  const at = lines.findIndex((line) => line.startsWith(MARKER));
  if (at < 0) return undefined;
  const reason = [lines[at].slice(MARKER.length), ...lines.slice(at + 1)];
  // The reason runs to the end of its paragraph (a blank line or a tag such as `@module`).
  const end = reason.findIndex((line, i) => i > 0 && (line === "" || line.startsWith("@")));
  const said = (end < 0 ? reason : reason.slice(0, end)).join(" ").trim();
  return said === "" ? undefined : said;
}

const long = libraryFiles()
  .map((path) => {
    const text = readFileSync(`${root}${path}`, "utf8");
    return { path, lines: lineCount(text), reason: lengthReason(text) };
  })
  .filter((file) => file.lines > MAX_LINES)
  .sort((a, b) => b.lines - a.lines);

test(`at most ${MAX_LONG_FILES} library files are longer than ${MAX_LINES} lines`, () => {
  const listed = long.map((file) => `${file.path} (${file.lines})`);
  assert.ok(long.length <= MAX_LONG_FILES, `${long.length} files: ${listed.join(", ")}`);
});

test(`each library file longer than ${MAX_LINES} lines says why ("${MARKER}")`, () => {
  const silent = long.filter((file) => file.reason === undefined).map((file) => file.path);
  assert.deepEqual(silent, [], `no "${MARKER}" line in the module comment of these`);
});

test("the line counter and the reason finder read files as this test documents", () => {
  assert.equal(lineCount("a\nb\n"), 2);
  assert.equal(lineCount("a\nb"), 2);
  assert.equal(lineCount(""), 0);
  const reasoned =
    `/**\n * Does x.\n *\n * ${MARKER} one walk\n * over shared state.\n *\n * @module\n */\n`;
  assert.equal(lengthReason(reasoned), "one walk over shared state.");
  assert.equal(lengthReason(`/**\n * ${MARKER}\n *\n * @module\n */`), undefined);
  assert.equal(lengthReason(`// ${MARKER} not a module comment\n`), undefined);
  assert.equal(lengthReason(`/** Does x. */\nconst y = 1; /** ${MARKER} later */\n`), undefined);
});
