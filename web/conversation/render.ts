/**
 * A conversation item as DOM (the viewer's conversation tab and the HTML export both use
 * it): an `<article>` with the item's description (`item.ts`) built by `toDom`, its entry
 * id shown on hover or focus only, focusable for keyboard navigation.
 *
 * @module
 */
import { el } from "../dom.ts";
import { toDom } from "./hnode.ts";
import { itemBody, itemHead } from "./item.ts";
import type { ConvItem } from "./model.ts";

function time(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${
    pad(date.getHours())
  }:${pad(date.getMinutes())}`;
}

/**
 * Render one item.
 *
 * @example
 * ```ts
 * import { renderItem } from "./render.ts";
 * renderItem({ id: "a1", kind: "user", time: "", blocks: [{ type: "text", text: "**hi**" }] });
 * // <article class="conv-item conv-user" data-id="a1"> ... <strong>hi</strong> ...
 * ```
 */
export function renderItem(item: ConvItem): HTMLElement {
  const idNode = el("code", { class: "conv-id", title: "entry id" }, item.id);
  if (item.kind === "meta") {
    return el(
      "div",
      { class: "conv-item conv-marker", dataset: { id: item.id }, attrs: { tabindex: -1 } },
      el("span", { class: "conv-marker-text" }, item.title ?? ""),
      idNode,
    );
  }
  const head = toDom(itemHead(item)) as HTMLElement;
  head.append(el("span", { class: "conv-time" }, time(item.time)), idNode);
  const body = el("div", { class: "conv-body" });
  for (const node of itemBody(item)) body.appendChild(toDom(node));
  return el(
    "article",
    { class: `conv-item conv-${item.kind}`, dataset: { id: item.id }, attrs: { tabindex: -1 } },
    head,
    body,
  );
}
