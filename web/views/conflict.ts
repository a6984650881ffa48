/**
 * The question asked when an imported file has the id of a stored session but different
 * content: keep both (the file gets a new id), replace the stored session, or skip the
 * file. Keeping both is the default: it is focused, and closing the dialog (Escape) picks
 * it, because it is the only answer that loses nothing.
 *
 * @module
 */
import { button, el } from "../dom.ts";
import type { ImportConflictChoice, ImportConflictView } from "../types.ts";

/** Show the dialog and resolve with the user's choice. */
export function askImportConflict(conflict: ImportConflictView): Promise<ImportConflictChoice> {
  return new Promise((resolve) => {
    let choice: ImportConflictChoice = "keep-both";
    const pick = (picked: ImportConflictChoice) => () => {
      choice = picked;
      dialog.close();
    };
    const keep = button("Keep both", pick("keep-both"), { attrs: { id: "conflict-keep-both" } });
    const dialog = el(
      "dialog",
      { class: "card conflict", attrs: { id: "import-conflict", "aria-label": "Import conflict" } },
      el("h2", {}, "This session is already stored, with different content"),
      el(
        "p",
        {},
        `${conflict.path} has the id ${conflict.sessionId}, which a stored session already uses. ` +
          `Stored: ${conflict.storedEntries} entries; file: ${conflict.fileEntries} entries; ` +
          `${conflict.sharedEntries} in common.`,
      ),
      el(
        "p",
        { class: "muted" },
        "Keep both stores the file under a new id. Replace drops the stored entries the file lacks.",
      ),
      el(
        "div",
        { class: "actions" },
        keep,
        button("Replace the stored session", pick("replace"), {
          attrs: { id: "conflict-replace" },
        }),
        button("Skip this file", pick("skip"), { attrs: { id: "conflict-skip" } }),
      ),
    );
    // Escape fires "cancel" and then "close" with the default choice unchanged.
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(choice);
    });
    document.body.append(dialog);
    dialog.showModal();
    keep.focus();
  });
}
