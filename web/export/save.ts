/**
 * The viewer's downloads: a session or branch as JSONL (from the worker), and "Export as
 * HTML": the built renderer comes from `export-asset.json` beside the page, the worker
 * builds the file with it (off the page's thread), and the file is downloaded.
 *
 * @module
 */
import { downloadBlob } from "../dom.ts";
import type { ViewerClient } from "../rpc.ts";
import { ASSET_FILE, type ExportAsset } from "./html.ts";

let asset: Promise<ExportAsset> | undefined;

function loadAsset(): Promise<ExportAsset> {
  asset ??= fetch(new URL(`./${ASSET_FILE}`, location.href)).then((response) => {
    if (!response.ok) throw new Error(`the export renderer is missing (${response.status})`);
    return response.json() as Promise<ExportAsset>;
  });
  asset.catch(() => asset = undefined);
  return asset;
}

/**
 * Download a session (`leafId` null) or a branch as JSONL, or with `html` the branch as
 * the single-file HTML export.
 *
 * @example
 * ```ts
 * import { saveExport } from "./save.ts";
 * import type { ViewerClient } from "../rpc.ts";
 * declare const client: ViewerClient;
 * await saveExport(client, "session-key", "a1000020", true); // <session>-a1000020.html
 * ```
 */
export async function saveExport(
  client: ViewerClient,
  sessionKey: string,
  leafId: string | null,
  html: boolean | "all" = false,
): Promise<void> {
  if (html) return await saveHtmlExport(client, sessionKey, leafId, html === "all");
  const { blob, fileName } = await client.call("exportJsonl", sessionKey, leafId);
  downloadBlob(blob, fileName);
}

/**
 * Download the branch to `leafId` of a session as one HTML file.
 *
 * @example
 * ```ts
 * import { saveHtmlExport } from "./save.ts";
 * import type { ViewerClient } from "../rpc.ts";
 * declare const client: ViewerClient;
 * await saveHtmlExport(client, "session-key", null);
 * ```
 */
export async function saveHtmlExport(
  client: ViewerClient,
  sessionKey: string,
  leafId: string | null,
  allBranches = false,
): Promise<void> {
  const asset = await loadAsset();
  const { blob, fileName } = await client.call(
    "exportHtml",
    sessionKey,
    leafId,
    asset,
    allBranches,
  );
  downloadBlob(blob, fileName);
}
