/**
 * The script inlined into an HTML export (`html.ts`): reads the embedded session JSON and
 * shows it as the conversation view (the viewer's own list and renderer), a header with the
 * session's facts, and in an all-branches export a switcher between the branches. Content reaches the page only as text nodes and checked attributes.
 *
 * @module
 */
import { el, factList, formatCount, formatDate } from "../dom.ts";
import { ConversationList } from "../conversation/list.ts";
import { clampedTitle } from "../views/clamped_title.ts";
import { outlineRows } from "../conversation/outline_model.ts";
import { DATA_ELEMENT_ID, type ExportBranch, type ExportDoc } from "./html.ts";
import type { ConvItem } from "../conversation/model.ts";
import type { BranchSummaryView } from "../worker/branch_summary.ts";

function main(): void {
  const root = document.getElementById("export-root")!;
  const raw = document.getElementById(DATA_ELEMENT_ID)?.textContent ?? "null";
  const doc = JSON.parse(raw) as ExportDoc | null;
  if (!doc || doc.format !== 1 || !Array.isArray(doc.items)) {
    root.replaceChildren(el("p", { class: "error" }, "This export holds no session."));
    return;
  }
  const mount = (items: ConvItem[], summary: BranchSummaryView | undefined) => {
    const list = new ConversationList({
      page: (start, count) =>
        Promise.resolve({ total: items.length, items: items.slice(start, start + count) }),
      summary: summary ? () => Promise.resolve(summary) : undefined,
      outline: () => Promise.resolve(outlineRows(items)),
    });
    return list;
  };
  let list = mount(doc.items, doc.summary);
  const branches = Array.isArray(doc.branches) && doc.branches.length > 1 ? doc.branches : [];
  const switcher = branches.length ? branchSwitcher(branches, doc.leafId) : null;
  switcher?.addEventListener("change", () => {
    const branch = branches[Number(switcher.value)];
    if (!branch) return;
    const next = mount(branch.items, branch.summary);
    list.dispose();
    list.element.replaceWith(next.element);
    list = next;
    leafFact.textContent = branch.leafId;
    void list.start();
  });
  const leafFact = el("code", { attrs: { id: "export-leaf" } }, doc.leafId ?? "—");
  root.replaceChildren(
    el(
      "header",
      { class: "export-head" },
      clampedTitle("h1", "session-title", doc.title || doc.sessionId),
      factList([
        ["session", doc.sessionId],
        ["cwd", doc.cwd || "—"],
        ["created", formatDate(doc.created)],
        ["entries", formatCount(doc.entryCount)],
        ["exported", doc.exportedAt],
      ], "facts inline"),
      el(
        "p",
        { class: "export-branch" },
        "Branch leaf ",
        leafFact,
        switcher ? " · " : "",
        switcher,
      ),
    ),
    list.element,
  );
  document.body.dataset.ready = "true";
  void list.start();
}

/** A select of the export's branches (the one the export was made from chosen). */
function branchSwitcher(branches: ExportBranch[], leafId: string | null): HTMLSelectElement {
  const select = el("select", {
    attrs: { id: "branch-switcher", "aria-label": `Branch (${branches.length} in this export)` },
  });
  branches.forEach((branch, i) => {
    const option = el("option", { attrs: { value: String(i) } }, branch.name);
    option.selected = branch.leafId === leafId;
    select.append(option);
  });
  return select;
}

main();
