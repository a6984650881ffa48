/**
 * `mu export <id> --html` (issue 15): one self-contained file, its only script allowed by
 * the hash of its exact text in the CSP, the session embedded as JSON data in which no
 * `<` survives (so session text cannot end the element or start markup), the branch cut at
 * `--leaf`. The file's behaviour in a browser is tested in tests/viewer/conversation_tests.ts.
 */
import { readFile } from "node:fs/promises";
import { assert, assertEquals } from "../conformance/assert.ts";
import { cliTest } from "../cli/harness.ts";
import { CONV, conversationSession } from "../viewer/conversation_fixture.ts";

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

function embedded(html: string): { items: Array<{ id: string; kind: string }>; leafId: string } {
  const match = /<script type="application\/json" id="mu-session">([^<]*)<\/script>/.exec(html);
  assert(match, "embedded session data");
  return JSON.parse(match[1]);
}

cliTest(
  "export --html writes one file whose only script is its own, hashed in the CSP",
  async (world) => {
    const file = `${world.root}/render.jsonl`;
    await Deno.writeTextFile(file, conversationSession());
    assertEquals((await world.mu(["import", file])).code, 0);
    const result = await world.mu(["export", CONV.sessionId, "--html", "-o", "out.html"]);
    assertEquals(result.code, 0, result.stderr);
    const html = await readFile(`${world.cwd}/out.html`, "utf8");

    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assertEquals(scripts.map((s) => s[1].trim()), ['type="application/json" id="mu-session"', ""]);
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    assert(csp.includes("default-src 'none'"), csp);
    assertEquals(/script-src ([^;]+)/.exec(csp)?.[1], `'sha256-${await sha256(scripts[1][2])}'`);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    assertEquals(/style-src ([^;]+)/.exec(csp)?.[1], `'sha256-${await sha256(style)}'`);
    // Nothing in the markup or the stylesheet loads anything (the CSP would refuse it anyway).
    const markup = html.replace(scripts[0][2], "").replace(scripts[1][2], "").replace(style, "")
      .replace(/<title>[^<]*<\/title>/, ""); // the title is session text, entity-escaped
    assert(!/https?:|src=|href=/.test(markup), /.{80}(https?:|src=|href=).{80}/s.exec(markup)?.[0]);
    assert(!/url\(|@import/.test(style), "the stylesheet fetches");

    assert(/<title>[^<]*&#60;script&#62;/.test(html), "the title is entity-escaped");
    // The session text is data with every "<" escaped.
    assert(!scripts[0][2].includes("<"), "a raw < in the embedded JSON");
    assert(scripts[0][2].includes("\\u003cscript>window.__pwned = 2"), "the text is kept");
    const doc = embedded(html);
    assertEquals(doc.leafId, CONV.last);
    assertEquals(doc.items.at(-1)?.id, CONV.last);
    assertEquals(doc.items.filter((i) => i.kind === "tool").length, 0, "results in their calls");

    const branch = await world.mu(["export", CONV.sessionId, "--html", "--leaf", CONV.edit]);
    assertEquals(branch.code, 0, branch.stderr);
    assertEquals(embedded(branch.stdout).items.at(-1)?.id, CONV.edit, "cut at --leaf");
    const missing = await world.mu(["export", CONV.sessionId, "--html", "--leaf", "nope"]);
    assert(missing.code !== 0 && missing.stderr.includes("nope"), missing.stderr);
  },
);
