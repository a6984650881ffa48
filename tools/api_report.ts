/**
 * The public API report: for every subpath in deno.json `exports`, the names that entry
 * exports and their kinds, read with `deno doc --json` (so it sees exactly what a consumer
 * of the export map sees, re-exports resolved). `deno task api:report` rewrites
 * `api/report.md`; `--check` only compares and exits 1 on a difference, naming the names.
 * tests/deno/api_report.test.ts runs the same comparison, so an export that changes without
 * the report being regenerated fails the test suite: every public name is a decision.
 *
 * @example
 * ```ts
 * import { collectApi, currentReport } from "./api_report.ts";
 * const entries = await collectApi();
 * console.log(entries.map((entry) => `${entry.specifier}: ${entry.symbols.length}`));
 * console.log(await currentReport()); // what api/report.md must contain
 * ```
 *
 * @module
 */

/** Where the report lives, relative to the repository root. */
export const REPORT_PATH = "api/report.md";

/** The command that regenerates the report (quoted in every failure). */
export const REGENERATE_COMMAND = "deno task api:report";

/** One exported name of an entry point. */
export interface ApiSymbol {
  name: string;
  /** `class`, `function`, `variable`, `interface`, `type` (several joined with `+`). */
  kind: string;
  /** Whether its doc comment has an `@example` (the report does not print this). */
  hasExample: boolean;
  /** The repository-relative file that declares it, e.g. `src/schema.ts`. */
  declaredIn: string;
}

/** One entry point of the export map. */
export interface ApiEntry {
  /** The import specifier, e.g. `@mu/sessions/core`. */
  specifier: string;
  /** The file the export map points to, e.g. `./core.ts`. */
  file: string;
  symbols: ApiSymbol[];
}

interface DocLocation {
  filename: string;
  line: number;
  byteIndex?: number;
}
interface DocDeclaration {
  kind: string;
  location: DocLocation;
  jsDoc?: { tags?: { kind: string }[] };
  def?: { target?: DocLocation };
}
interface DocSymbol {
  name: string;
  declarations: DocDeclaration[];
}

const ROOT = new URL("../", import.meta.url);

/** `deno doc --json` over `files` (absolute file URLs): symbols per module. */
async function denoDoc(files: string[]): Promise<Map<string, DocSymbol[]>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...files.map((file) => new URL(file).pathname)],
    cwd: new URL(".", ROOT).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`deno doc failed:\n${new TextDecoder().decode(output.stderr)}`);
  }
  const json = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  return new Map(Object.entries(json.nodes).map(([file, node]) => [file, node.symbols]));
}

const KIND_NAMES: Record<string, string> = { typeAlias: "type" };

/**
 * Every export-map entry with its exported names, sorted by name. Named re-exports show up
 * in `deno doc` as references to their declaration; they are followed (loading the
 * declaring modules as needed) so each name gets the kind it really has.
 */
export async function collectApi(): Promise<ApiEntry[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const exportMap = Object.entries(config.exports as Record<string, string>);
  const urlOf = (file: string) => new URL(file, ROOT).href;
  const docs = new Map<string, DocSymbol[]>();
  let pending = exportMap.map(([, file]) => urlOf(file));
  while (pending.length > 0) {
    for (const [file, symbols] of await denoDoc(pending)) docs.set(file, symbols);
    const targets = new Set<string>();
    for (const symbols of docs.values()) {
      for (const symbol of symbols) {
        for (const declaration of symbol.declarations) {
          const target = declaration.def?.target?.filename;
          if (declaration.kind === "reference" && target && !docs.has(target)) targets.add(target);
        }
      }
    }
    pending = [...targets];
  }
  const resolve = (declaration: DocDeclaration, depth = 0): DocDeclaration => {
    const target = declaration.def?.target;
    if (declaration.kind !== "reference" || !target || depth > 20) return declaration;
    for (const symbol of docs.get(target.filename) ?? []) {
      for (const candidate of symbol.declarations) {
        const at = candidate.location;
        const same = target.byteIndex !== undefined && at.byteIndex !== undefined
          ? at.byteIndex === target.byteIndex
          : at.line === target.line;
        if (at.filename === target.filename && same) return resolve(candidate, depth + 1);
      }
    }
    throw new Error(`cannot resolve a re-export to ${target.filename}:${target.line}`);
  };
  return exportMap.map(([subpath, file]) => {
    const symbols = (docs.get(urlOf(file)) ?? []).map((symbol) => {
      const declarations = symbol.declarations.map((declaration) => resolve(declaration));
      const kinds = [...new Set(declarations.map((d) => KIND_NAMES[d.kind] ?? d.kind))].sort();
      const hasExample = declarations.some((d) =>
        d.jsDoc?.tags?.some((tag) => tag.kind === "example") ?? false
      );
      const declaredIn = declarations[0].location.filename.replace(new URL(".", ROOT).href, "");
      return { name: symbol.name, kind: kinds.join("+"), hasExample, declaredIn };
    });
    symbols.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { specifier: config.name + subpath.slice(1), file, symbols };
  });
}

/** Every name some entry point exports (a name exported by several entries counts once). */
export function uniqueNames(entries: readonly ApiEntry[]): Set<string> {
  return new Set(entries.flatMap((entry) => entry.symbols.map((symbol) => symbol.name)));
}

/** The Markdown report: a heading and a name/kind table per entry point. */
export function renderReport(entries: readonly ApiEntry[]): string {
  const lines = [
    "# Public API report",
    "",
    "Every name each entry point of the export map (deno.json `exports`) makes public, and its",
    `kind. Generated by \`${REGENERATE_COMMAND}\`; do not edit by hand.`,
    "tests/deno/api_report.test.ts fails when the exports and this file disagree.",
    "",
    "| Entry point | File | Names |",
    "| --- | --- | ---: |",
    ...entries.map((e) => `| \`${e.specifier}\` | \`${e.file}\` | ${e.symbols.length} |`),
    "",
    `Unique names across all entry points: ${uniqueNames(entries).size}.`,
  ];
  for (const entry of entries) {
    lines.push(
      "",
      `## \`${entry.specifier}\``,
      "",
      `\`${entry.file}\`: ${entry.symbols.length} names.`,
    );
    lines.push("", "| Name | Kind |", "| --- | --- |");
    for (const symbol of entry.symbols) lines.push(`| \`${symbol.name}\` | ${symbol.kind} |`);
  }
  return lines.join("\n") + "\n";
}

/** `markdown` as `deno fmt` writes it, so the checked-in report passes `deno fmt --check`. */
export async function formatMarkdown(markdown: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(markdown));
  await writer.close();
  const output = await child.output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout);
}

/** The report for the current exports, formatted: what `api/report.md` must contain. */
export async function currentReport(): Promise<string> {
  return await formatMarkdown(renderReport(await collectApi()));
}

/** Names per entry as `name (kind)`, parsed back from a report. */
export function parseReport(markdown: string): Map<string, Set<string>> {
  const result = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of markdown.split("\n")) {
    const heading = /^## `([^`]+)`$/.exec(line);
    if (heading) result.set(heading[1], current = new Set());
    const row = /^\| `([^`]+)`\s*\| ([^|]+?)\s*\|$/.exec(line);
    if (row && current) current.add(`${row[1]} (${row[2]})`);
  }
  return result;
}

/**
 * What differs between the checked-in report and the current exports, one line per entry
 * point (empty when they agree).
 */
export function describeDifferences(checkedIn: string, current: string): string[] {
  const before = parseReport(checkedIn);
  const after = parseReport(current);
  const problems: string[] = [];
  for (const specifier of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(specifier) ?? new Set<string>();
    const now = after.get(specifier) ?? new Set<string>();
    const added = [...now].filter((name) => !old.has(name));
    const removed = [...old].filter((name) => !now.has(name));
    if (added.length === 0 && removed.length === 0) continue;
    const parts = [];
    if (added.length) parts.push(`exported but not in the report: ${added.join(", ")}`);
    if (removed.length) parts.push(`in the report but not exported: ${removed.join(", ")}`);
    problems.push(`${specifier}: ${parts.join("; ")}`);
  }
  if (problems.length === 0 && checkedIn !== current) {
    problems.push("the report's text differs (order or header) from what the tool writes");
  }
  return problems;
}

if (import.meta.main) {
  const report = await currentReport();
  const path = new URL(REPORT_PATH, ROOT);
  if (Deno.args.includes("--check")) {
    const checkedIn = await Deno.readTextFile(path).catch(() => "");
    const problems = describeDifferences(checkedIn, report);
    if (problems.length > 0) {
      console.error(`${REPORT_PATH} is out of date; run \`${REGENERATE_COMMAND}\`:`);
      for (const problem of problems) console.error(`  ${problem}`);
      Deno.exit(1);
    }
  } else {
    await Deno.mkdir(new URL("api/", ROOT), { recursive: true });
    await Deno.writeTextFile(path, report);
    console.log(`wrote ${REPORT_PATH}`);
  }
}
