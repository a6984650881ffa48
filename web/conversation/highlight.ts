/**
 * Syntax highlighting with lowlight (highlight.js grammars giving a hast tree, never an
 * HTML string), registered for the common languages only: a full grammar set would add
 * about a megabyte to the bundle. The hast tree becomes {@link HNode}s: spans with the
 * `hljs-*` classes the stylesheet colours, text as text.
 *
 * @module
 */
import { createLowlight } from "lowlight";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import type { HNode } from "./hnode.ts";

const lowlight = createLowlight(
  {
    bash,
    css,
    diff,
    go,
    javascript,
    json,
    markdown,
    python,
    rust,
    sql,
    typescript,
    xml,
    yaml,
    // The grammars are plain JS whose inferred types do not match highlight.js's declaration.
  } as unknown as Parameters<typeof createLowlight>[0],
);
lowlight.registerAlias({
  bash: ["sh", "shell", "zsh", "console"],
  javascript: ["js", "jsx", "mjs", "cjs"],
  typescript: ["ts", "tsx", "mts", "cts"],
  python: ["py"],
  rust: ["rs"],
  markdown: ["md"],
  xml: ["html", "htm", "svg"],
  yaml: ["yml"],
  json: ["jsonl", "jsonc"],
  diff: ["patch"],
});

/** Longest code highlighted; longer code is shown plain (highlighting it would stall the page). */
export const HIGHLIGHT_LIMIT = 50_000;

const EXTENSIONS: Readonly<Record<string, string>> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  json: "json",
  jsonl: "json",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  py: "python",
  diff: "diff",
  patch: "diff",
  go: "go",
  rs: "rust",
  css: "css",
  html: "xml",
  htm: "xml",
  xml: "xml",
  svg: "xml",
  yaml: "yaml",
  yml: "yaml",
  md: "markdown",
  sql: "sql",
};

/** The registered language for a file path's extension, if any. */
export function languageOfPath(path: string): string | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext && Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext] : undefined;
}

/** Whether a fence's language (`ts`, `python`, ...) is registered. */
export function knownLanguage(lang: string | undefined | null): string | undefined {
  if (!lang) return undefined;
  const name = lang.toLowerCase();
  return lowlight.registered(name) ? name : undefined;
}

interface HastNode {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

function fromHast(node: HastNode): HNode[] {
  if (node.type === "text") return [node.value ?? ""];
  const children = (node.children ?? []).flatMap(fromHast);
  if (node.type !== "element") return children;
  const classes = Array.isArray(node.properties?.className)
    ? (node.properties.className as unknown[]).filter((c): c is string =>
      typeof c === "string" && /^hljs-[\w-]+$/.test(c)
    )
    : [];
  return [{ tag: "span", class: classes.join(" ") || undefined, children }];
}

/** The registered grammars, by their main name. */
const GRAMMARS = lowlight.listLanguages();

/**
 * Compile every registered grammar ahead of use, one per `pause()` (a frame), so the first
 * code block of each language does not pay its grammar's compilation (a long burst of
 * regular expressions in a traced scroll of a large session) inside a rendering task.
 *
 * @example
 * ```ts
 * await prepareGrammars(() => new Promise((r) => setTimeout(r, 0)));
 * ```
 */
export async function prepareGrammars(pause: () => Promise<void>): Promise<void> {
  for (const name of GRAMMARS) {
    lowlight.highlight(name, "x"); // highlight.js compiles a grammar on its first use
    await pause();
  }
}

/**
 * Code as highlighted {@link HNode}s (plain text when the language is unknown or the code
 * is too long).
 *
 * @example
 * ```ts
 * highlight("const a = 1;", "ts"); // [{ tag: "span", class: "hljs-keyword", children: ["const"] }, " a = ", ...]
 * ```
 */
export function highlight(code: string, lang: string | undefined): HNode[] {
  const name = knownLanguage(lang);
  if (!name || code.length > HIGHLIGHT_LIMIT) return [code];
  return fromHast(lowlight.highlight(name, code) as unknown as HastNode);
}
