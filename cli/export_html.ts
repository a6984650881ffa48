/**
 * `mu export <id> --html`: the branch to the leaf (default: the last entry) as the viewer's
 * single-file HTML export. The renderer is the one built with the viewer
 * (`export-asset.json`, in the package's `viewer/` or the repository's `dist/web/`).
 *
 * @module
 */
import { branchSummary } from "../web/worker/branch_summary.ts";
import { readFile } from "node:fs/promises";
import { EntryNotFoundError } from "../src/errors.ts";
import { listingStateOf, listingToInfo } from "../src/_listing.ts";
import type { SessionStore } from "../src/store.ts";
import { SessionIndex } from "../src/tree.ts";
import { conversationItems } from "../web/conversation/model.ts";
import { ASSET_FILE, type ExportAsset, exportDoc, exportHtml } from "../web/export/html.ts";
import type { CliContext } from "./context.ts";
import { viewerRoot } from "./viewer_root.ts";

/**
 * The HTML export of a stored session's branch.
 *
 * @example
 * ```ts
 * import { sessionHtml } from "./export_html.ts";
 * import type { SessionStore } from "../src/store.ts";
 * import type { CliContext } from "./context.ts";
 * declare const store: SessionStore, cli: CliContext;
 * const html = await sessionHtml(store, "session-id", undefined, cli);
 * ```
 */
export async function sessionHtml(
  store: SessionStore,
  sessionId: string,
  leafId: string | undefined,
  cli: CliContext,
): Promise<string> {
  const loaded = await store.load(sessionId);
  const index = SessionIndex.build(loaded.entries, { source: sessionId });
  const leaf = leafId ?? index.lastEntry?.id ?? null;
  if (leaf !== null && !index.get(leaf)) throw new EntryNotFoundError(leaf);
  const info = listingToInfo(loaded.header, listingStateOf(loaded.entries));
  const doc = exportDoc(
    {
      id: loaded.header.id,
      title: info.name ?? info.summary ?? info.firstMessage,
      cwd: info.cwd,
      created: info.created.getTime(),
      entryCount: loaded.entries.length,
    },
    leaf,
    conversationItems(index.getPath(leaf)),
    branchSummary(index.getPath(leaf)),
  );
  const root = await viewerRoot(cli, false);
  const asset = JSON.parse(await readFile(`${root}/${ASSET_FILE}`, "utf8")) as ExportAsset;
  return exportHtml(asset, doc);
}
