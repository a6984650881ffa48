/**
 * The public API is a decision: the checked-in report (api/report.md) must list exactly what
 * each export-map entry exports, every public symbol has an `@example` (the zod schemas and
 * the types inferred from them are shown by their modules' examples instead), and the main
 * entry is the runtime-agnostic one plus its storage additions.
 */
import { assert, assertEquals } from "../conformance/assert.ts";
import {
  type ApiEntry,
  collectApi,
  describeDifferences,
  formatMarkdown,
  REGENERATE_COMMAND,
  renderReport,
  REPORT_PATH,
  uniqueNames,
} from "../../tools/api_report.ts";

const root = new URL("../../", import.meta.url);
let cached: Promise<ApiEntry[]> | undefined;
const api = () => cached ??= collectApi();

Deno.test("api/report.md lists every entry point's exports (regenerate with deno task api:report)", async () => {
  const checkedIn = await Deno.readTextFile(new URL(REPORT_PATH, root)).catch(() => "");
  const problems = describeDifferences(checkedIn, await formatMarkdown(renderReport(await api())));
  assert(
    problems.length === 0,
    `${REPORT_PATH} is out of date; run \`${REGENERATE_COMMAND}\`:\n  ${problems.join("\n  ")}`,
  );
});

/**
 * The format's types and their zod schemas (one name for both): exampled per module, the
 * types in `src/schema.ts`, the schemas in the `@mu/sessions/schema` entry.
 */
const SCHEMA_MODULES = new Set(["src/schema.ts", "schema.ts"]);

Deno.test("every public symbol has an @example", async () => {
  const missing = (await api()).flatMap((entry) =>
    entry.symbols
      .filter((s) => !s.hasExample && !SCHEMA_MODULES.has(s.declaredIn))
      .map((s) => `${entry.specifier}: ${s.name} (${s.kind}, ${s.declaredIn})`)
  );
  assertEquals(missing, []);
});

Deno.test("the schema modules show their schemas and types in a module example", async () => {
  for (const file of SCHEMA_MODULES) {
    const source = await Deno.readTextFile(new URL(file, root));
    const moduleDoc = source.slice(0, source.indexOf("@module"));
    assert(moduleDoc.includes("@example"), `${file}: the module doc has no @example`);
  }
});

/** The API diet's ceiling: a new public name needs a place under it, or another to go. */
const MAX_UNIQUE_NAMES = 170; // the API diet's target, with room for three deliberate additions

Deno.test(`at most ${MAX_UNIQUE_NAMES} unique public names across all entry points`, async () => {
  const names = uniqueNames(await api());
  assert(names.size <= MAX_UNIQUE_NAMES, `${names.size} unique public names`);
});

Deno.test("@mu/sessions exports all of @mu/sessions/core", async () => {
  const entries = await api();
  const names = (specifier: string) =>
    new Set(entries.find((e) => e.specifier === specifier)?.symbols.map((s) => s.name));
  const main = names("@mu/sessions");
  assertEquals([...names("@mu/sessions/core")].filter((name) => !main.has(name)), []);
});

Deno.test("the report names the differences and the command to fix them", () => {
  const entry = (names: string[]): ApiEntry[] => [{
    specifier: "@mu/sessions/core",
    file: "./core.ts",
    symbols: names.map((name) => ({
      name,
      kind: "function",
      hasExample: true,
      declaredIn: "src/jsonl.ts",
    })),
  }];
  const problems = describeDifferences(
    renderReport(entry(["parseSessionJsonl", "toJsonLine"])),
    renderReport(entry(["parseSessionJsonl", "serializeSessionJsonl"])),
  );
  assertEquals(problems, [
    "@mu/sessions/core: exported but not in the report: serializeSessionJsonl (function); " +
    "in the report but not exported: toJsonLine (function)",
  ]);
});
