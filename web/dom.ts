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
  "aria-live",
  "aria-valuenow",
  "aria-valuemax",
  "spellcheck",
  "autocomplete",
]);

/** Append children: strings become text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === "string" || typeof child === "number"
        ? document.createTextNode(String(child))
        : child,
    );
  }
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
  append(node, ...children);
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

/** Format a token count as `1,234` or `12.3k` / `4.5M`. */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 1 : 2)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return n.toLocaleString("en-US");
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
