/**
 * The single-file HTML export: one page that shows a branch as the conversation view,
 * with no network and no script but its own. The renderer (`page.ts`, bundled by
 * `asset.ts` at build time with its stylesheet) is inlined, allowed by the hash of its exact
 * text in the page's CSP (`script-src 'sha256-…'`, nothing else: no `'unsafe-inline'`, no
 * origin); the session rides along as JSON in a `<script type="application/json">` (data,
 * never run) with every `<` escaped as `\u003c`, so no text in it can close the element.
 * The renderer builds DOM from that data with the viewer's text-only helpers.
 *
 * @module
 */
import type { BranchSummaryView } from "../worker/branch_summary.ts";
import type { ConvItem } from "../conversation/model.ts";

/** The bundled renderer and its stylesheet, with the CSP hashes of their exact text. */
export interface ExportAsset {
  script: string;
  style: string;
  /** `sha256-<base64>` of `script`. */
  scriptHash: string;
  /** `sha256-<base64>` of `style`. */
  styleHash: string;
}

/** What the export shows: the session's facts and the branch's conversation. */
export interface ExportDoc {
  /** Format of this object (1). */
  format: 1;
  sessionId: string;
  title: string;
  cwd: string;
  /** Epoch ms. */
  created: number;
  leafId: string | null;
  /** ISO time of the export. */
  exportedAt: string;
  entryCount: number;
  items: ConvItem[];
  /** The branch's summary block (absent in exports made before it existed). */
  summary?: BranchSummaryView;
  /** With "all branches": every branch (one per leaf of the tree), for the switcher. */
  branches?: ExportBranch[];
}

/** One branch of an all-branches export. */
export interface ExportBranch {
  leafId: string;
  /** What the switcher calls it: the leaf's text, shortened. */
  name: string;
  items: ConvItem[];
  summary: BranchSummaryView;
}

/** The element id of the embedded JSON. */
export const DATA_ELEMENT_ID = "mu-session";
/** File name of the built asset, next to the viewer (`dist/web/`, the package's `viewer/`). */
export const ASSET_FILE = "export-asset.json";

/**
 * The document of a branch.
 *
 * @example
 * ```ts
 * import { exportDoc } from "./html.ts";
 * exportDoc({ id: "s1", title: "Fix it", cwd: "/w", created: 0, entryCount: 0 }, null, []);
 * ```
 */
export function exportDoc(
  session: { id: string; title: string; cwd: string; created: number; entryCount: number },
  leafId: string | null,
  items: ConvItem[],
  summary?: BranchSummaryView,
): ExportDoc {
  return {
    format: 1,
    sessionId: session.id,
    title: session.title,
    cwd: session.cwd,
    created: session.created,
    leafId,
    exportedAt: new Date().toISOString(),
    entryCount: session.entryCount,
    items,
    ...(summary ? { summary } : {}),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot end its `<script>` element or open a comment: every `<` escaped. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * The export as one HTML string.
 *
 * @example
 * ```ts
 * import { exportDoc, exportHtml, type ExportAsset } from "./html.ts";
 * declare const asset: ExportAsset; // dist/web/export-asset.json
 * const html = exportHtml(asset, exportDoc({ id: "s1", title: "t", cwd: "", created: 0, entryCount: 0 }, null, []));
 * ```
 */
export function exportHtml(asset: ExportAsset, doc: ExportDoc): string {
  if (/<\/script/i.test(asset.script) || /<\/style/i.test(asset.style)) {
    throw new Error("the export asset would end its own element");
  }
  const csp = [
    "default-src 'none'",
    `script-src '${asset.scriptHash}'`,
    `style-src '${asset.styleHash}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mu-sessions export">
<title>${escapeHtml(doc.title.slice(0, 200))} · mu session</title>
<style>${asset.style}</style>
</head>
<body>
<main id="export-root"><noscript>This export shows the session with its own inline script; allow scripts for this file to read it.</noscript></main>
<script type="application/json" id="${DATA_ELEMENT_ID}">${embedJson(doc)}</script>
<script>${asset.script}</script>
</body>
</html>
`;
}

/** A file name for an export (`<session>-<leaf>.html`), safe on every file system. */
export function exportFileName(sessionId: string, leafId: string | null): string {
  const safe = (s: string, n: number) => s.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, n);
  return `${safe(sessionId, 80)}${leafId ? `-${safe(leafId, 40)}` : ""}.html`;
}
