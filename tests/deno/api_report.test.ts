/**
 * The public API is a decision: the checked-in report (api/report.md) must list exactly what
 * each export-map entry exports, every exported function and class has an `@example`, and
 * the main entry is the runtime-agnostic one plus its storage additions.
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

Deno.test("every exported function and class has an @example", async () => {
  const missing = (await api()).flatMap((entry) =>
    entry.symbols
      .filter((s) => (s.kind === "function" || s.kind === "class") && !s.hasExample)
      .map((s) => `${entry.specifier}: ${s.name} (${s.kind})`)
  );
  assertEquals(missing, []);
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
    symbols: names.map((name) => ({ name, kind: "function", hasExample: true })),
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
