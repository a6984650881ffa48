/**
 * The script inlined into an HTML export (`html.ts`): reads the embedded session JSON and
 * shows it as the conversation view (the viewer's own list and renderer), a header with the
 * session's facts. Content reaches the page only as text nodes and checked attributes.
 *
 * @module
 */
import { el, factList, formatCount, formatDate } from "../dom.ts";
import { ConversationList } from "../conversation/list.ts";
import { clampedTitle } from "../views/clamped_title.ts";
import { outlineRows } from "../conversation/outline_model.ts";
import { DATA_ELEMENT_ID, type ExportDoc } from "./html.ts";

function main(): void {
  const root = document.getElementById("export-root")!;
  const raw = document.getElementById(DATA_ELEMENT_ID)?.textContent ?? "null";
  const doc = JSON.parse(raw) as ExportDoc | null;
  if (!doc || doc.format !== 1 || !Array.isArray(doc.items)) {
    root.replaceChildren(el("p", { class: "error" }, "This export holds no session."));
    return;
  }
  const items = doc.items;
  const list = new ConversationList({
    page: (start, count) =>
      Promise.resolve({ total: items.length, items: items.slice(start, start + count) }),
    summary: doc.summary ? () => Promise.resolve(doc.summary!) : undefined,
    outline: () => Promise.resolve(outlineRows(items)),
  });
  root.replaceChildren(
    el(
      "header",
      { class: "export-head" },
      clampedTitle("h1", "session-title", doc.title || doc.sessionId),
      factList([
        ["session", doc.sessionId],
        ["cwd", doc.cwd || "—"],
        ["created", formatDate(doc.created)],
        ["branch leaf", doc.leafId ?? "—"],
        ["entries", formatCount(doc.entryCount)],
        ["exported", doc.exportedAt],
      ], "facts inline"),
    ),
    list.element,
  );
  document.body.dataset.ready = "true";
  void list.start();
}

main();
