/**
 * Counts in the viewer are grouped without Intl: the page's first `toLocaleString` loads
 * ICU's number data (50-70 ms of main-thread script in Chromium), which landed inside the
 * task that opens a 100k-entry session (issue 15: no main-thread task over 50 ms).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatCount, formatTokens } from "../../web/dom.ts";

test("formatCount groups digits as en-US toLocaleString does", () => {
  const samples = [0, 7, 42, 999, 1000, 1001, 12_345, 100_000, 999_999, 1_000_000, 123_456_789];
  for (const n of [...samples, ...samples.slice(1).map((n) => -n)]) {
    assert.equal(formatCount(n), n.toLocaleString("en-US"), String(n));
  }
  assert.equal(formatCount(Number.MAX_SAFE_INTEGER), "9,007,199,254,740,991");
  assert.equal(formatTokens(9_999), "9,999");
});

test("the viewer's page code never calls toLocaleString (its first call costs 50+ ms)", async () => {
  const root = new URL("../../web/", import.meta.url);
  const offenders: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) {
        if (entry.name !== "demo") await walk(url);
        continue;
      }
      // build.ts runs in Deno (console output); dom.ts keeps it for non-integers only.
      if (!entry.name.endsWith(".ts") || /\/web\/(build|dom)\.ts$/.test(url.pathname)) continue;
      const lines = (await Deno.readTextFile(url)).split("\n");
      lines.forEach((line, i) => {
        if (/\.toLocale(String|DateString|TimeString)\(/.test(line)) {
          offenders.push(`${url.pathname.split("/web/")[1]}:${i + 1}`);
        }
      });
    }
  };
  await walk(root);
  assert.deepEqual(offenders, []);
});
