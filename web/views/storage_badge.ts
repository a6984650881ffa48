/**
 * The header's storage badge: which storage the viewer's worker opened and whether imported
 * sessions outlive the tab. Separate from `main.ts`, which routes and wires the page; the
 * badge only reads the worker's answer.
 *
 * @module
 */
import type { StorageView } from "../types.ts";

/** Show `view` (the worker's storage) on the badge, and on `body` for styles and tests. */
export function showStorage(storageBadge: HTMLElement, view: StorageView): void {
  const names: Record<string, string> = {
    "sqlite-opfs": "SQLite · OPFS",
    "sqlite-opfs-sahpool": "SQLite · OPFS (pool)",
    indexeddb: "IndexedDB",
    memory: "memory only",
  };
  storageBadge.textContent = Object.hasOwn(names, view.kind) ? names[view.kind] : view.kind;
  storageBadge.title = view.persistent
    ? "Imported sessions stay in this browser across visits."
    : `Nothing is kept after this tab closes.${view.note ? ` (${view.note})` : ""}`;
  storageBadge.classList.toggle("warn", !view.persistent);
  document.body.dataset.storage = view.kind;
}
