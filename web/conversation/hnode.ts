/**
 * A tiny, DOM-free description of the markup the conversation view shows ({@link HNode}),
 * and the one function that turns it into DOM ({@link toDom}). Markdown, highlighted code,
 * diffs and ANSI output are all produced as HNodes by pure functions (unit-testable without
 * a browser); only {@link toDom} touches the document, and it does so through the viewer's
 * text-only helpers: text is always a text node, tags come from a fixed list, a link's
 * `href` must be `http(s):` or `mailto:`, an image's `src` a raster `data:` URL, and
 * colours are `rgb()` values built from numbers. Nothing is ever parsed as HTML.
 *
 * @module
 */
import { append, el, isSafeImageUrl } from "../dom.ts";

/** Inline colours (ANSI 256 / truecolor): only `rgb(r,g,b)` strings pass {@link toDom}. */
export interface HStyle {
  color?: string;
  background?: string;
}

/** An element of the description. */
export interface HElement {
  tag: HTag;
  class?: string;
  /** Link target (checked by {@link safeHref}). */
  href?: string;
  /** Image source (a raster data URL, checked again in {@link toDom}). */
  src?: string;
  alt?: string;
  title?: string;
  /** `<ol start>`. */
  start?: number;
  /** A checkbox of a task list item. */
  checked?: boolean;
  style?: HStyle;
  /**
   * Children beyond a fold: shown behind a "show all" button and only built when clicked
   * (a long tool output costs nothing until it is opened).
   */
  more?: { label: string; children: HNode[] };
  children?: HNode[];
}

/** Text (always a text node) or an element. */
export type HNode = string | HElement;

/** The tags {@link toDom} builds; anything else is a programming error. */
export const HTAGS = [
  "a",
  "blockquote",
  "br",
  "code",
  "del",
  "details",
  "div",
  "em",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "img",
  "input",
  "li",
  "ol",
  "p",
  "pre",
  "span",
  "strong",
  "summary",
  "table",
  "tbody",
  "td",
  "th",
  "thead",
  "tr",
  "ul",
  "b",
  "i",
  "u",
] as const;

/** A tag {@link toDom} builds. */
export type HTag = typeof HTAGS[number];

const TAG_SET: ReadonlySet<string> = new Set(HTAGS);
const SAFE_HREF = /^(https?:\/\/|mailto:)/i;
const RGB = /^rgb\(\d{1,3},\d{1,3},\d{1,3}\)$/;

/**
 * The link target to use, or undefined when it may not be a link: only `http(s)` and
 * `mailto` (no `javascript:`, `data:`, relative or protocol-less targets).
 *
 * @example
 * ```ts
 * safeHref("https://example.com"); // "https://example.com"
 * safeHref("javascript:alert(1)"); // undefined
 * ```
 */
export function safeHref(url: string | undefined): string | undefined {
  if (typeof url !== "string") return undefined;
  const trimmed = url.trim();
  // deno-lint-ignore no-control-regex -- control characters are what is refused here
  return SAFE_HREF.test(trimmed) && !/[\u0000-\u001f\s]/.test(trimmed) ? trimmed : undefined;
}

/** The text of a description (what a reader would copy). */
export function hText(node: HNode | HNode[]): string {
  if (Array.isArray(node)) return node.map(hText).join("");
  if (typeof node === "string") return node;
  return (node.children ?? []).map(hText).join("");
}

/** Shorthand for an element. */
export function h(
  tag: HTag,
  props: Omit<HElement, "tag" | "children"> = {},
  ...children: HNode[]
): HElement {
  return { tag, ...props, children };
}

/**
 * Build DOM from a description.
 *
 * @example
 * ```ts
 * import { toDom } from "./hnode.ts";
 * toDom({ tag: "p", children: ["<script> stays text"] }); // <p> with one text node
 * ```
 */
export function toDom(node: HNode): Node {
  if (typeof node === "string") {
    const holder = document.createDocumentFragment();
    append(holder, node);
    return holder;
  }
  if (!TAG_SET.has(node.tag)) throw new Error(`tag ${node.tag} is not allowed`);
  if (node.tag === "img") {
    if (!node.src || !isSafeImageUrl(node.src)) {
      return el("span", { class: "note" }, "[image not displayed]");
    }
    const img = document.createElement("img");
    img.alt = node.alt ?? "";
    img.decoding = "async";
    img.loading = "lazy";
    img.referrerPolicy = "no-referrer";
    img.src = node.src;
    return img;
  }
  const element = document.createElement(node.tag);
  if (node.class) element.className = node.class;
  if (node.title !== undefined) element.title = node.title;
  if (node.tag === "a") {
    const href = safeHref(node.href);
    if (href) {
      const link = element as HTMLAnchorElement;
      link.href = href;
      link.rel = "noopener noreferrer";
      link.target = "_blank";
      link.referrerPolicy = "no-referrer";
    }
  }
  if (node.tag === "ol" && node.start !== undefined && node.start !== 1) {
    (element as HTMLOListElement).start = Math.trunc(node.start);
  }
  if (node.tag === "input") {
    const box = element as HTMLInputElement;
    box.type = "checkbox";
    box.disabled = true;
    box.checked = node.checked === true;
  }
  if (node.style?.color && RGB.test(node.style.color)) element.style.color = node.style.color;
  if (node.style?.background && RGB.test(node.style.background)) {
    element.style.backgroundColor = node.style.background;
  }
  for (const child of node.children ?? []) element.appendChild(toDom(child));
  const more = node.more;
  if (more) {
    const show = el("button", { class: "link-button show-all" }, more.label);
    show.type = "button";
    show.addEventListener("click", () => {
      show.remove();
      for (const child of more.children) element.appendChild(toDom(child));
    });
    // The button sits inside the element, after what is shown, so it stays with the text.
    element.appendChild(show);
  }
  return element;
}
