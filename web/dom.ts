/**
 * Safe DOM building for the viewer. Session content only ever reaches the page as text
 * nodes (`createTextNode` / `textContent`): these helpers have no way to set HTML, event
 * handler attributes, `href`/`src` from data, or `style` strings. Images are accepted only
 * as `data:` URLs of PNG, JPEG, GIF or WebP with clean base64 (never SVG).
 *
 * @module
 */

/** A child: a node, text (always a text node), or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** Properties {@link el} understands. */
export interface ElProps {
  class?: string;
  /** Tooltip; set as a property, so it is plain text. */
  title?: string;
  /** Attributes from the {@link SAFE_ATTRIBUTES} list only. */
  attrs?: Record<string, string | number | boolean | undefined>;
  dataset?: Record<string, string>;
  onClick?: (event: MouseEvent) => void;
}

/** Attributes {@link el} may set; none of them can run script or load a resource. */
export const SAFE_ATTRIBUTES: ReadonlySet<string> = new Set([
  "role",
  "type",
  "tabindex",
  "for",
  "id",
  "name",
  "value",
  "placeholder",
  "disabled",
  "checked",
  "colspan",
  "hidden",
  "open",
  "accept",
  "multiple",
  "aria-label",
  "aria-hidden",
  "aria-selected",
  "aria-current",
  "aria-expanded",
  "aria-controls",
  "aria-pressed",
  "aria-live",
  "aria-valuenow",
  "aria-valuemax",
  "spellcheck",
  "autocomplete",
]);

/** Append children: strings become text nodes (see {@link textNode} for bidi handling). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === "string" || typeof child === "number" ? textNode(String(child)) : child,
    );
  }
}

/** Bidi formatting characters, by the short names shown in their place. */
const BIDI_CONTROLS: Readonly<Record<string, string>> = {
  "\u061c": "ALM",
  "\u200e": "LRM",
  "\u200f": "RLM",
  "\u202a": "LRE",
  "\u202b": "RLE",
  "\u202c": "PDF",
  "\u202d": "LRO",
  "\u202e": "RLO",
  "\u2066": "LRI",
  "\u2067": "RLI",
  "\u2068": "FSI",
  "\u2069": "PDI",
};
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Characters that can reorder the text around them: strong right-to-left ones, controls. */
const BIDI_ACTIVE =
  /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud802\ud803\ud83a\ud83b]/;

/**
 * Session text as a node. Text that can reorder what surrounds it (right-to-left letters,
 * bidi controls) is isolated in a `<bdi>`, so it cannot flip the labels, ids or columns next
 * to it, and every bidi control is shown as a visible marker (`⟨RLO⟩`) instead of acting:
 * `invoice‮gnp.exe` cannot pass for `invoiceexe.png`. Other text is a plain text node.
 *
 * @example
 * ```ts
 * textNode("plain"); // a Text node
 * textNode("invoice\u202egnp.exe"); // <bdi>invoice<span class="bidi-control">⟨RLO⟩</span>gnp.exe</bdi>
 * ```
 */
export function textNode(text: string): Node {
  if (!BIDI_ACTIVE.test(text)) return document.createTextNode(text);
  const isolated = document.createElement("bdi");
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const name = BIDI_CONTROLS[text[i]];
    if (name === undefined) continue;
    if (i > start) isolated.appendChild(document.createTextNode(text.slice(start, i)));
    const marker = document.createElement("span");
    marker.className = "bidi-control";
    marker.title = `U+${text.charCodeAt(i).toString(16).toUpperCase()} (${name})`;
    marker.textContent = `⟨${name}⟩`;
    isolated.appendChild(marker);
    start = i + 1;
  }
  if (start < text.length) isolated.appendChild(document.createTextNode(text.slice(start)));
  return isolated;
}

/** Whether text holds a bidi control (for callers that set `title` and similar). */
export function hasBidiControl(text: string): boolean {
  return BIDI_CONTROL.test(text);
}

/** Characters of long text laid out at once; the rest waits for "Show next". */
export const FOLD_CHARS = 20_000;

/**
 * Show long text in `target` a fold at a time: the first {@link FOLD_CHARS} characters,
 * then a button that adds the next fold. A 1 MB message laid out at once froze the page
 * for over a second (tree rows unclickable meanwhile); one fold lays out quickly.
 *
 * @example
 * ```ts
 * import { el, showFolded } from "./dom.ts";
 * const pre = el("pre", { class: "text" });
 * showFolded(pre, "x".repeat(1_000_000)); // pre holds the first 20,000 characters + a "Show next" button after it
 * ```
 */
export function showFolded(target: HTMLElement, text: string): void {
  clear(target);
  let shown = 0;
  const next = () => {
    let end = Math.min(text.length, shown + FOLD_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++; // keep pairs whole
    append(target, text.slice(shown, end));
    shown = end;
  };
  next();
  if (shown >= text.length) return;
  const label = () =>
    `Show next ${formatCount(Math.min(FOLD_CHARS, text.length - shown))} of ${
      formatCount(text.length - shown)
    } remaining characters`;
  const more: HTMLButtonElement = button(label(), () => {
    next();
    if (shown >= text.length) more.remove();
    else more.textContent = label();
  }, { class: "link-button fold-more" });
  target.after(more);
}

/**
 * Create an element with text-only children.
 *
 * @example
 * ```ts
 * import { el } from "./dom.ts";
 * declare const userText: string; // untrusted, from a session
 * el("p", { class: "note" }, "Hello ", el("b", {}, userText)); // userText stays text
 * ```
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElProps = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.title !== undefined) node.title = props.title;
  if (props.attrs) {
    for (const [name, value] of Object.entries(props.attrs)) {
      if (!SAFE_ATTRIBUTES.has(name)) throw new Error(`attribute ${name} is not allowed`);
      if (value === undefined || value === false) continue;
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  if (props.dataset) {
    for (const [key, value] of Object.entries(props.dataset)) node.dataset[key] = value;
  }
  const onClick = props.onClick;
  if (onClick) node.addEventListener("click", (event) => onClick(event as MouseEvent));
  append(node, ...children);
  return node;
}

/** Remove every child of a node. */
export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** Replace a node's children. */
export function replaceChildren(node: Node, ...children: Child[]): void {
  clear(node);
  append(node, ...children);
}

/** A `<dl>` of name/value pairs, each pair grouped in a `<div>` so it wraps as one. */
export function factList(pairs: Array<[string, string]>, className = "facts"): HTMLDListElement {
  return el(
    "dl",
    { class: className },
    ...pairs.map(([name, value]) => el("div", {}, el("dt", {}, name), el("dd", {}, value))),
  );
}

/** A button with a text label. */
export function button(
  label: string,
  onClick: (event: MouseEvent) => void,
  props: Omit<ElProps, "onClick"> = {},
): HTMLButtonElement {
  const node = el("button", { ...props, onClick }, label);
  node.type = "button";
  return node;
}

/** An in-page link (`#...` only; never built from arbitrary data). */
export function hashLink(hash: string, props: ElProps, ...children: Child[]): HTMLAnchorElement {
  if (!hash.startsWith("#")) throw new Error("hashLink takes #fragments only");
  const node = el("a", props, ...children);
  node.href = hash;
  return node;
}

const SAFE_IMAGE_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;

/** Whether a URL is a data URL of a raster image type the viewer shows. */
export function isSafeImageUrl(url: string): boolean {
  return SAFE_IMAGE_URL.test(url);
}

/** An `<img>` for a safe data URL, or a text note when the URL is not one. */
export function safeImage(url: string, alt: string): HTMLElement {
  if (!isSafeImageUrl(url)) return el("span", { class: "note" }, "[image not displayed]");
  const img = document.createElement("img");
  img.alt = alt;
  img.decoding = "async";
  img.loading = "lazy";
  img.referrerPolicy = "no-referrer";
  img.src = url;
  return img;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with numeric or literal attributes (the chart's own values only). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (/^on/i.test(name) || /href$/i.test(name) || name === "style") {
      throw new Error(`svg attribute ${name} is not allowed`);
    }
    node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    // Plain text nodes: an HTML <bdi> would not render inside SVG (chart values only).
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Format bytes as `12.3 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

/**
 * An integer with en-US digit grouping (`123456` -> `"123,456"`), as
 * `n.toLocaleString("en-US")` gives it but without Intl: the page's first
 * `toLocaleString` loads ICU's number data (a long main-thread script in Chromium), and it
 * landed inside the task that opens a session.
 *
 * @example
 * ```ts
 * import { formatCount } from "./dom.ts";
 * formatCount(100000); // "100,000"
 * ```
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US"); // fractions, huge: rare
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
  return n < 0 ? `-${digits}` : digits;
}

/** Format a token count as `1,234` or `12.3k` / `4.5M`. */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 1 : 2)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return formatCount(n);
}

/** Format a dollar cost. */
export function formatCost(cost: number): string {
  if (cost === 0) return "$0";
  if (cost < 0.01) return `$${cost.toFixed(4)}`;
  return `$${cost.toFixed(cost < 100 ? 2 : 0)}`;
}

/** Format epoch ms as a short local date-time, or `—`. */
export function formatDate(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "—";
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${
    pad(date.getHours())
  }:${pad(date.getMinutes())}`;
}

/** Save a Blob as a download through a short-lived object URL. */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.rel = "noopener";
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
