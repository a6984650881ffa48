/**
 * What the npm package says about itself: its package.json without what only this checkout
 * needs (scripts, devDependencies, `allowScripts`), and a README whose relative links all
 * resolve inside the package.
 *
 * npm always packs the root package.json and README.md as they are on disk, so for the
 * length of `npm pack` they are swapped: `prepack` (`deno task build:npm --pack`) keeps the
 * originals in {@link ORIGINALS_DIR} and writes the published versions; `postpack`
 * (running this module) puts the originals back. A pack that died in between leaves
 * the originals there, and the next build restores them first.
 *
 * The user guides (docs/*.md) are copied into the package (`dist/npm/docs/`); their links
 * and the README's are rewritten to where the linked file is in the package. A link to a
 * file the package does not carry (an image, the benchmarks, the tests) keeps its text and
 * loses its target; an image the package does not carry is left out.
 *
 * @module
 */
import { dirname, join, normalize, relative } from "node:path";
import { NPM_OUT_DIR } from "./exports.ts";

/** Where the checkout's own package.json and README.md wait while `npm pack` runs. */
export const ORIGINALS_DIR = "dist/pack-originals";

/** The root files npm packs as they are, swapped for their published versions. */
const SWAPPED = ["package.json", "README.md"];

/** Fields of package.json that only serve development in this checkout. */
const DEVELOPMENT_FIELDS = ["scripts", "devDependencies", "allowScripts"];

/**
 * package.json as published: without scripts, devDependencies and `allowScripts`.
 *
 * @example
 * ```ts
 * import { publishedManifest } from "./published.ts";
 * publishedManifest({ name: "x", scripts: { test: "t" } }); // { name: "x" }
 * ```
 */
export function publishedManifest(pkg: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(pkg).filter(([field]) => !DEVELOPMENT_FIELDS.includes(field)),
  );
}

/** A Markdown link or image: `[text](target)` or `![alt](target "title")`. */
const LINK = /(!?)\[([^\]]*)\]\(([^)\s]+)((?:\s+"[^"]*")?)\)/g;

/** Whether a link target is relative to the file (not a URL, an anchor or an absolute path). */
export function isRelativeTarget(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#") &&
    !target.startsWith("/");
}

/**
 * Rewrite a Markdown file's relative links for where it is written in the package.
 * `from` is the file's path in the checkout, `to` its path in the package; `packed` maps a
 * checkout path to its path in the package, for the files the package carries. Fenced code
 * is left as it is.
 *
 * @example
 * ```ts
 * import { rewriteMarkdownLinks } from "./published.ts";
 * const packed = new Map([["docs/cli.md", "dist/npm/docs/cli.md"]]);
 * rewriteMarkdownLinks("[cli](docs/cli.md#ls) ![shot](docs/a.png)", "README.md", "README.md", packed);
 * // "[cli](dist/npm/docs/cli.md#ls) "
 * ```
 */
export function rewriteMarkdownLinks(
  text: string,
  from: string,
  to: string,
  packed: ReadonlyMap<string, string>,
): string {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) return line;
    return line.replace(LINK, (whole, bang: string, label: string, target: string, title) => {
      if (!isRelativeTarget(target)) return whole;
      const hash = target.indexOf("#");
      const path = hash < 0 ? target : target.slice(0, hash);
      const fragment = hash < 0 ? "" : target.slice(hash);
      const inPackage = packed.get(normalize(join(dirname(from), decodeURI(path))));
      if (inPackage !== undefined) {
        return `${bang}[${label}](${relative(dirname(to), inPackage)}${fragment}${title})`;
      }
      return bang ? "" : label;
    });
  }).join("\n");
}

/** The guides the package carries: each docs/*.md → its path in the package. */
async function packedGuides(root: string): Promise<Map<string, string>> {
  const packed = new Map<string, string>();
  for await (const entry of Deno.readDir(`${root}docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      packed.set(`docs/${entry.name}`, `${NPM_OUT_DIR}/docs/${entry.name}`);
    }
  }
  return packed;
}

/**
 * Copy the guides into the package with their links rewritten; returns what it packed
 * (checkout path → package path), for the README's links.
 */
export async function packGuides(root: string): Promise<Map<string, string>> {
  const packed = await packedGuides(root);
  await Deno.mkdir(`${root}${NPM_OUT_DIR}/docs`, { recursive: true });
  for (const [from, to] of packed) {
    const text = await Deno.readTextFile(`${root}${from}`);
    await Deno.writeTextFile(`${root}${to}`, rewriteMarkdownLinks(text, from, to, packed));
  }
  return packed;
}

/**
 * Put the published package.json and README.md in place for `npm pack`, keeping the
 * originals in {@link ORIGINALS_DIR} (see the module doc).
 */
export async function swapInPublished(root: string, packed: Map<string, string>): Promise<void> {
  await restoreOriginals(root);
  await Deno.mkdir(`${root}${ORIGINALS_DIR}`, { recursive: true });
  const pkg = JSON.parse(await Deno.readTextFile(`${root}package.json`));
  const readme = await Deno.readTextFile(`${root}README.md`);
  for (const name of SWAPPED) {
    await Deno.copyFile(`${root}${name}`, `${root}${ORIGINALS_DIR}/${name}`);
  }
  await Deno.writeTextFile(
    `${root}package.json`,
    JSON.stringify(publishedManifest(pkg), null, 2) + "\n",
  );
  await Deno.writeTextFile(
    `${root}README.md`,
    rewriteMarkdownLinks(readme, "README.md", "README.md", packed),
  );
}

/** Put back the originals a pack swapped out, if any are waiting; true when it did. */
export async function restoreOriginals(root: string): Promise<boolean> {
  let restored = false;
  for (const name of SWAPPED) {
    const kept = `${root}${ORIGINALS_DIR}/${name}`;
    try {
      await Deno.rename(kept, `${root}${name}`);
      restored = true;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return restored;
}

if (import.meta.main) await restoreOriginals(new URL("../", import.meta.url).pathname);
