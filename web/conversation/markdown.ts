/**
 * Markdown (CommonMark + GFM: tables, task lists, strikethrough, autolinks) as
 * {@link HNode}s, built from the mdast syntax tree of `mdast-util-from-markdown`: nothing is
 * ever parsed as HTML. Raw HTML in the markdown stays visible text; links keep their text
 * but only `http(s)`/`mailto` targets become links; images only when they are raster
 * `data:` URLs (else their alt text is shown); fenced code is highlighted (`highlight.ts`).
 *
 * @module
 */
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfm } from "micromark-extension-gfm";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { isSafeImageUrl } from "../dom.ts";
import { highlight, knownLanguage } from "./highlight.ts";
import { type HElement, type HNode, safeHref } from "./hnode.ts";

/**
 * Anything markdown (with GFM) could turn into more than paragraphs: punctuation it acts
 * on, list and block markers at a line start, indented code, autolink-able text.
 */
const MARKDOWN_SYNTAX = /[*_`#[\]<>|~\\!&:=@]|^ {0,3}(?:[-+]|\d{1,9}[.)])|^(?: {4}|\t)|www\./m;

/** Longest text rendered as markdown; longer text is shown as plain, folded text. */
export const MARKDOWN_LIMIT = 30_000;

interface MdNode {
  type: string;
  value?: string;
  depth?: number;
  ordered?: boolean | null;
  start?: number | null;
  checked?: boolean | null;
  url?: string;
  alt?: string | null;
  title?: string | null;
  lang?: string | null;
  align?: Array<string | null> | null;
  identifier?: string;
  children?: MdNode[];
}

const HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"] as const;

/** Fenced/indented code as a highlighted block. */
export function codeBlock(code: string, lang: string | undefined | null): HElement {
  const known = knownLanguage(lang ?? undefined);
  return {
    tag: "pre",
    class: `code-block${known ? ` lang-${known}` : ""}`,
    children: [{
      tag: "code",
      class: known ? `hljs language-${known}` : "hljs",
      children: highlight(code, known),
    }],
  };
}

interface Defs {
  links: Map<string, { url: string; title?: string | null }>;
}

function kids(node: MdNode, defs: Defs): HNode[] {
  return (node.children ?? []).flatMap((child) => convert(child, defs));
}

function cellAlign(align: string | null | undefined): string | undefined {
  return align === "left" || align === "right" || align === "center" ? `align-${align}` : undefined;
}

function table(node: MdNode, defs: Defs): HElement {
  const rows = node.children ?? [];
  const cells = (row: MdNode, tag: "td" | "th"): HElement => ({
    tag: "tr",
    children: (row.children ?? []).map((cell, i) => ({
      tag,
      class: cellAlign(node.align?.[i]),
      children: kids(cell, defs),
    })),
  });
  return {
    tag: "div",
    class: "md-table",
    children: [{
      tag: "table",
      children: [
        { tag: "thead", children: rows.slice(0, 1).map((row) => cells(row, "th")) },
        { tag: "tbody", children: rows.slice(1).map((row) => cells(row, "td")) },
      ],
    }],
  };
}

function link(url: string | undefined, title: string | null | undefined, children: HNode[]): HNode {
  const href = safeHref(url);
  // A target that may not open stays its text (the reader can still see where it pointed).
  if (!href) return { tag: "span", class: "md-link-blocked", title: url ?? "", children };
  return { tag: "a", href, title: title ?? undefined, children };
}

function image(url: string | undefined, alt: string | null | undefined): HNode {
  if (url && isSafeImageUrl(url)) return { tag: "img", src: url, alt: alt ?? "" };
  return { tag: "span", class: "md-image-blocked", children: [`[image: ${alt || "no alt text"}]`] };
}

function convert(node: MdNode, defs: Defs): HNode[] {
  switch (node.type) {
    case "root":
      return kids(node, defs);
    case "text":
      return [node.value ?? ""];
    case "paragraph":
      return [{ tag: "p", children: kids(node, defs) }];
    case "heading":
      return [{
        tag: HEADINGS[Math.min(6, Math.max(1, node.depth ?? 1)) - 1],
        children: kids(node, defs),
      }];
    case "thematicBreak":
      return [{ tag: "hr" }];
    case "blockquote":
      return [{ tag: "blockquote", children: kids(node, defs) }];
    case "list":
      return [{
        tag: node.ordered ? "ol" : "ul",
        start: node.ordered && typeof node.start === "number" ? node.start : undefined,
        children: kids(node, defs),
      }];
    case "listItem": {
      const children = kids(node, defs);
      if (typeof node.checked !== "boolean") return [{ tag: "li", children }];
      return [{
        tag: "li",
        class: "task",
        children: [{ tag: "input", checked: node.checked }, " ", ...children],
      }];
    }
    case "code":
      return [codeBlock(node.value ?? "", node.lang)];
    case "inlineCode":
      return [{ tag: "code", children: [node.value ?? ""] }];
    case "emphasis":
      return [{ tag: "em", children: kids(node, defs) }];
    case "strong":
      return [{ tag: "strong", children: kids(node, defs) }];
    case "delete":
      return [{ tag: "del", children: kids(node, defs) }];
    case "break":
      return [{ tag: "br" }];
    case "link":
      return [link(node.url, node.title, kids(node, defs))];
    case "linkReference": {
      const def = defs.links.get(node.identifier ?? "");
      return def ? [link(def.url, def.title, kids(node, defs))] : kids(node, defs);
    }
    case "image":
      return [image(node.url, node.alt)];
    case "imageReference": {
      const def = defs.links.get(node.identifier ?? "");
      return [image(def?.url, node.alt)];
    }
    case "table":
      return [table(node, defs)];
    case "html":
      // Raw HTML is shown as the text it is, never interpreted.
      return [{ tag: "span", class: "md-raw-html", children: [node.value ?? ""] }];
    case "definition":
    case "footnoteDefinition":
      return [];
    case "footnoteReference":
      return [{ tag: "span", class: "md-footnote", children: [`[^${node.identifier ?? ""}]`] }];
    default:
      return node.children ? kids(node, defs) : node.value ? [node.value] : [];
  }
}

function collectDefinitions(node: MdNode, defs: Defs): void {
  if (node.type === "definition" && node.identifier && node.url !== undefined) {
    defs.links.set(node.identifier, { url: node.url, title: node.title });
  }
  for (const child of node.children ?? []) collectDefinitions(child, defs);
}

/**
 * Markdown text as {@link HNode}s.
 *
 * @example
 * ```ts
 * markdownToHNodes("# Title\n\n<script>alert(1)</script>");
 * // [{ tag: "h1", ... }, { tag: "span", class: "md-raw-html", children: ["<script>alert(1)</script>"] }]
 * ```
 */
export function markdownToHNodes(text: string): HNode[] {
  // Most replies are prose: without a character markdown could act on, paragraphs are all
  // there is, and the parser (the costliest step of a page of items) is skipped.
  if (!MARKDOWN_SYNTAX.test(text)) {
    return text.split(/\n[ \t]*\n/).map((p) => p.trim()).filter(Boolean).map((p) => ({
      tag: "p",
      children: [p.replace(/[ \t]*\n[ \t]*/g, "\n")],
    }));
  }
  const tree = fromMarkdown(text, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  }) as unknown as MdNode;
  const defs: Defs = { links: new Map() };
  collectDefinitions(tree, defs);
  return convert(tree, defs);
}
