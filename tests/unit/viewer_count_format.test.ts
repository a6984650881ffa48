/**
 * Counts in the viewer are grouped without Intl: the page's first `toLocaleString` loads
 * ICU's number data (50-70 ms of main-thread script in Chromium), which landed inside the
 * task that opens a 100k-entry session (issue 15: no main-thread task over 50 ms).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { formatCount, formatTokens } from "../../web/dom.ts";
import { repoRoot } from "./fixtures.ts";

test("formatCount groups digits as en-US toLocaleString does", () => {
  const samples = [0, 7, 42, 999, 1000, 1001, 12_345, 100_000, 999_999, 1_000_000, 123_456_789];
  for (const n of [...samples, ...samples.slice(1).map((n) => -n)]) {
    assert.equal(formatCount(n), n.toLocaleString("en-US"), String(n));
  }
  assert.equal(formatCount(Number.MAX_SAFE_INTEGER), "9,007,199,254,740,991");
  assert.equal(formatTokens(9_999), "9,999");
});

test("the viewer's page code never calls toLocaleString (its first call costs 50+ ms)", () => {
  const offenders: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(repoRoot, "web", relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name !== "demo") walk(path);
        continue;
      }
      // build.ts runs in Deno (console output); dom.ts keeps it for non-integers only.
      if (!entry.name.endsWith(".ts") || path === "build.ts" || path === "dom.ts") continue;
      const lines = readFileSync(join(repoRoot, "web", path), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (/\.toLocale(String|DateString|TimeString)\(/.test(line)) {
          offenders.push(`${path}:${i + 1}`);
        }
      });
    }
  };
  walk("");
  assert.deepEqual(offenders, []);
});
