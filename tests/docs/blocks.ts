/**
 * The fenced code blocks of the user documentation (README.md and docs/*.md), with the
 * marker comment that may precede each one. A block runs unless a marker says otherwise:
 *
 * - `<!-- docs-test: skip (why) -->`: not run (it installs, serves until stopped, or is a
 *   configuration file another tool reads); the reason is required.
 * - `<!-- docs-test: typecheck (why) -->`: type-checked only (it needs a browser, a server
 *   or a platform); the reason is required.
 * - `<!-- docs-test: node -->`: a block for Node: run in Node 20 as well as type-checked.
 */

/** What a marker asks for; `run` when there is none. */
export type BlockMode = "run" | "skip" | "typecheck" | "node";

/** One fenced block of one page. */
export interface DocBlock {
  /** Repository-relative path of the page, e.g. `docs/cli.md`. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string (`ts`, `sh`, ...), empty when none. */
  lang: string;
  code: string;
  mode: BlockMode;
  /** The marker's reason, required for skip and typecheck. */
  reason?: string;
}

const MARKER = /^<!--\s*docs-test:\s*(skip|typecheck|node)\s*(?:\((.*)\))?\s*-->$/;
const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** Every fenced block of `text` (the page at `page`), in order. */
export function extractBlocks(page: string, text: string): DocBlock[] {
  const lines = text.split("\n");
  const blocks: DocBlock[] = [];
  let marker: { mode: BlockMode; reason?: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i].trim();
    const found = trimmed.match(MARKER);
    if (found) {
      marker = { mode: found[1] as BlockMode, reason: found[2]?.trim() || undefined };
      continue;
    }
    const fence = lines[i].match(FENCE);
    if (!fence) {
      if (trimmed !== "") marker = undefined; // a marker applies to the next block only
      continue;
    }
    const [, indent, ticks, info] = fence;
    const body: string[] = [];
    let end = i + 1;
    while (end < lines.length && !lines[end].trim().startsWith(ticks)) {
      body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end]);
      end++;
    }
    blocks.push({
      page,
      line: i + 1,
      lang: info.trim().split(/\s+/)[0] ?? "",
      code: body.join("\n") + "\n",
      mode: marker?.mode ?? "run",
      reason: marker?.reason,
    });
    marker = undefined;
    i = end;
  }
  return blocks;
}

/** One shell command line of an `sh` block: its words and the exit code it documents. */
export interface ShellLine {
  text: string;
  words: string[];
  /** From a trailing `# exit N` comment; 0 otherwise. */
  expectedCode: number;
}

/**
 * Split an `sh` block into command lines (comments and blank lines dropped), expanding `~`
 * and `$HOME` to `home`. Quotes group words as the shell would; nothing else is expanded.
 */
export function shellLines(code: string, home: string): ShellLine[] {
  const result: ShellLine[] = [];
  for (const raw of code.split("\n")) {
    const { words, comment } = splitWords(raw);
    if (words.length === 0) continue;
    const exit = comment.match(/^exit (\d+)/);
    result.push({
      text: raw.trim(),
      words: words.map((word) => word.replace(/^~(?=\/|$)/, home).replaceAll("$HOME", home)),
      expectedCode: exit ? Number(exit[1]) : 0,
    });
  }
  return result;
}

function splitWords(line: string): { words: string[]; comment: string } {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= "";
    } else if (c === "#" && word === undefined) {
      return { words, comment: line.slice(i + 1).trim() };
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return { words, comment: "" };
}
