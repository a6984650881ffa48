/**
 * The conversation view and the HTML export (issue 15), registered from
 * `tests/deno/viewer.test.ts`: markdown renders (a fenced block highlighted, its `<script>`
 * and raw HTML staying text, only http(s) links live), an edit call is a numbered diff, ANSI
 * output is coloured, markers hide, j/k and "Jump to latest" move between messages, and the
 * exported file opened from disk with the network off shows the conversation and runs no
 * script from the session. Counts what is in the DOM; nothing is timed.
 *
 * @module
 */
import { auditContrast } from "./contrast.ts";
import type { Page } from "playwright-core";
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, openFromList, readDownload } from "./page.ts";
import { CONV, conversationSession } from "./conversation_fixture.ts";

/** What the conversation shows, read from the DOM (the viewer's tab or an export). */
async function inspect(page: Page) {
  return await page.evaluate(() => {
    const q = (s: string) => document.querySelector<HTMLElement>(s);
    const all = (s: string) => [...document.querySelectorAll<HTMLElement>(s)];
    const code = q(".conv-user pre.code-block code");
    const red = q(".tool-bash .ansi-fg-1");
    const rgb = all(".tool-bash span").find((s) => s.textContent === "truecolor");
    return {
      pwned: (globalThis as unknown as { __pwned?: unknown }).__pwned ?? null,
      codeText: code?.textContent ?? "",
      keywords: code?.querySelectorAll(".hljs-keyword").length ?? 0,
      scriptsInContent: document.querySelectorAll(".conv-list script, .conv-list img[src=x]")
        .length,
      rawHtml: all(".md-raw-html").map((n) => n.textContent).join(""),
      links: [...document.querySelectorAll<HTMLAnchorElement>(".conv-list a")].map((a) => ({
        href: a.getAttribute("href"),
        rel: a.rel,
        target: a.target,
      })),
      table: all(".conv-user table td").map((n) => n.textContent),
      heading: q(".conv-user h1")?.textContent ?? "",
      diff: all(".tool-edit .diff-line").map((line) =>
        [...line.children].map((c) => c.textContent).join("|")
      ),
      editPath: q(".tool-edit .tool-path")?.textContent ?? "",
      bashText: q(".tool-bash pre.tool-output")?.textContent ?? "",
      redText: red?.textContent ?? "",
      redColor: red ? getComputedStyle(red).color : "",
      plainColor: q(".tool-bash pre.tool-output")
        ? getComputedStyle(q(".tool-bash pre.tool-output")!).color
        : "",
      boldGreen: q(".tool-bash .ansi-bold.ansi-fg-2")?.textContent ?? "",
      rgb: rgb ? getComputedStyle(rgb).color : "",
      writeKeywords: document.querySelectorAll(".tool-write pre .hljs-keyword").length,
      thinkingOpen: q("details.thinking")?.hasAttribute("open") ?? null,
    };
  });
}

function assertRendered(view: Awaited<ReturnType<typeof inspect>>, where: string): void {
  assertEquals(view.pwned, null, `${where}: a script from the session ran`);
  assertEquals(view.scriptsInContent, 0, `${where}: script or img element from content`);
  assert(view.codeText.includes("<script>window.__pwned = 1</script>"), view.codeText);
  assert(view.keywords >= 1, `${where}: the ts block is highlighted`);
  assert(view.rawHtml.includes("<script>window.__pwned = 2</script>"), `${where}: raw html text`);
  assertEquals(view.links, [{
    href: "https://example.com/docs",
    rel: "noopener noreferrer",
    target: "_blank",
  }], `${where}: only the https link is live`);
  assertEquals(view.table, ["1", "2"], `${where}: table`);
  assertEquals(view.heading, "Render check");
  assertEquals(view.editPath, "src/a.ts");
  assertEquals(view.diff, [
    "1|1| |one",
    "2||-|two",
    "|2|+|TWO",
    "3|3| |three",
  ], `${where}: numbered diff`);
  assert(!view.bashText.includes("\x1b") && !view.bashText.includes("[31m"), view.bashText);
  assert(view.bashText.includes("truecolordone"), `${where}: other escapes stripped`);
  assertEquals(view.redText, "FAIL");
  assert(view.redColor !== view.plainColor, `${where}: FAIL is coloured (${view.redColor})`);
  assertEquals(view.boldGreen, "PASS");
  assertEquals(view.rgb, "rgb(10, 120, 200)", `${where}: truecolor`);
  assert(view.writeKeywords >= 1, `${where}: the written python file is highlighted`);
  assertEquals(view.thinkingOpen, false, `${where}: thinking collapsed`);
}

/** The outline rail: filters narrow the rows; a labeled row jumps to its message. */
async function checkOutline(page: Page, where: string): Promise<void> {
  await page.waitForSelector("#conv-outline .outline-row");
  const open = await page.locator("#conv-outline").evaluate((d) => (d as HTMLDetailsElement).open);
  if (!open) await page.click("#conv-outline > summary");
  const kinds = () =>
    page.locator("#conv-outline .outline-row").evaluateAll((rows) =>
      rows.map((row) => row.className.replace("outline-row kind-", ""))
    );
  await page.click('.outline-filter[data-filter="all"]');
  assert((await kinds()).includes("meta"), `${where}: all shows markers`);
  await page.click('.outline-filter[data-filter="user"]');
  assertEquals(await kinds(), ["user"], `${where}: user only`);
  await page.click('.outline-filter[data-filter="labeled"]');
  const labeled = page.locator("#conv-outline .outline-row");
  assertEquals(await labeled.count(), 1, `${where}: one labeled message`);
  assert((await labeled.innerText()).includes("the fix"), `${where}: the label is shown`);
  await labeled.click();
  await page.waitForFunction(
    (id) => document.querySelector(".conv-current")?.getAttribute("data-id") === id,
    CONV.edit,
  );
  await page.click('.outline-filter[data-filter="default"]');
}

Deno.test({
  name: "viewer: conversation view renders markdown, diffs, ANSI; the HTML export works offline",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-conv-" });
  try {
    const file = `${work}/render.jsonl`;
    await Deno.writeTextFile(file, conversationSession());
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await openFromList(page, viewer.url, CONV.title);
      await page.getByRole("tab", { name: "Conversation" }).click();
      await page.waitForSelector(`#conversation-view .conv-item[data-id="${CONV.last}"]`);
      assert(page.url().includes("tab=conversation"), page.url());
      assertRendered(await inspect(page), "viewer");
      // Highlighted code, diff lines and ANSI colours meet WCAG AA in both schemes.
      for (const scheme of ["dark", "light"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        assertEquals(await page.evaluate(auditContrast), [], `${scheme}: pairs below AA`);
      }

      // Tool results are folded into their calls: no standalone result items.
      assertEquals(await page.locator(".conv-tool").count(), 0, "standalone tool results");
      // Entry ids are there, shown on hover only.
      const id = page.locator(`.conv-item[data-id="${CONV.user}"] .conv-id`);
      assertEquals(await id.evaluate((n) => getComputedStyle(n).visibility), "hidden");
      await page.hover(`.conv-item[data-id="${CONV.user}"]`);
      assertEquals(await id.evaluate((n) => getComputedStyle(n).visibility), "visible");

      // Markers hide; the raw pane toggles.
      assertEquals(await page.locator(".conv-marker:visible").count(), 2, "model change + label");
      await page.uncheck("#conv-markers");
      assertEquals(await page.locator(".conv-marker:visible").count(), 0, "markers hidden");
      assert(await page.locator(".raw-pane").isVisible(), "raw pane shown by default");
      await page.uncheck("#show-raw");
      assert(!(await page.locator(".raw-pane").isVisible()), "raw pane hidden");
      await screenshot(page, "conversation");

      // Keyboard: j/k step through messages (markers hidden are skipped).
      await page.locator("#session-title").click();
      const current = () => page.locator(".conv-current").getAttribute("data-id");
      await page.keyboard.press("j");
      await page.waitForSelector(".conv-current");
      assertEquals(await current(), CONV.user);
      await page.keyboard.press("j");
      await page.waitForFunction(
        (id) => document.querySelector(".conv-current")?.getAttribute("data-id") === id,
        CONV.edit,
      );
      await page.keyboard.press("k");
      await page.waitForFunction(
        (id) => document.querySelector(".conv-current")?.getAttribute("data-id") === id,
        CONV.user,
      );
      await page.click("#conv-latest");
      await page.waitForFunction(
        (id) => document.querySelector(".conv-current")?.getAttribute("data-id") === id,
        CONV.last,
      );

      await checkOutline(page, "viewer");

      // The HTML export, opened from disk with the network off.
      const html = await readDownload(page, () => page.click("#export-html"));
      const exported = `${work}/export.html`;
      await Deno.writeTextFile(exported, html);
      assert(!html.includes("<script>window.__pwned"), "session text embedded unescaped");
      const offline = await browser.context.browser()!.newContext({ offline: true });
      try {
        const requests: string[] = [];
        await offline.route("**/*", (route) => {
          const url = route.request().url();
          if (url.startsWith("file:")) return route.continue();
          requests.push(url);
          return route.abort();
        });
        const reader = await offline.newPage();
        const errors: string[] = [];
        reader.on("pageerror", (error) => errors.push(error.message));
        await reader.addInitScript(() => {
          const w = globalThis as unknown as { __violations: string[] };
          w.__violations = [];
          document.addEventListener("securitypolicyviolation", (event) => {
            w.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
          });
        });
        await reader.goto(`file://${exported}`);
        await reader.waitForSelector("body[data-ready]");
        await reader.waitForSelector(`.conv-item[data-id="${CONV.last}"]`);
        assertRendered(await inspect(reader), "export");
        await checkOutline(reader, "export");
        const page2 = await reader.evaluate(() => ({
          title: document.getElementById("session-title")?.textContent,
          scripts: [...document.scripts].map((s) => s.type || (s.src ? "src" : "inline")),
          violations: (globalThis as unknown as { __violations: string[] }).__violations,
          csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')
            ?.getAttribute("content") ?? "",
        }));
        assert(
          page2.title?.startsWith("# Render check") || page2.title === "Render check",
          String(page2.title),
        );
        assertEquals(
          page2.scripts,
          ["application/json", "inline"],
          "the export's own scripts only",
        );
        assert(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/.test(page2.csp), page2.csp);
        assertEquals(page2.violations, [], "CSP violations");
        assertEquals(errors, [], "export page errors");
        assertEquals(requests, [], "requests from the export");
        await screenshot(reader, "html-export");
      } finally {
        await offline.close();
      }
      assertEquals(watch.errors, [], "page errors");
      assertEquals(watch.outside, [], "requests to other origins");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

/** A long chain of user/assistant pairs (`n` entries). */
export function longSession(n: number): string {
  const lines = [
    JSON.stringify({
      type: "session",
      version: 4,
      id: "conv-long-0001",
      createdAt: "2026-03-01T00:00:00.000Z",
      cwd: "/long",
    }),
  ];
  for (let i = 1; i <= n; i++) {
    const role = i % 2 ? "user" : "assistant";
    const text = `message ${i} with \`code\``;
    lines.push(JSON.stringify({
      type: "message",
      id: `l${String(i).padStart(7, "0")}`,
      parentId: i === 1 ? null : `l${String(i - 1).padStart(7, "0")}`,
      timestamp: new Date(Date.UTC(2026, 2, 1) + i * 1000).toISOString(),
      message: role === "user"
        ? { role, content: text, timestamp: i }
        : { role, content: [{ type: "text", text }], stopReason: "stop", timestamp: i },
    }));
  }
  return lines.join("\n") + "\n";
}

Deno.test({
  name: "viewer: a long conversation holds a window of items; Jump to latest and k cross pages",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-conv-long-" });
  const entries = 3000;
  try {
    const file = `${work}/long.jsonl`;
    await Deno.writeTextFile(file, longSession(entries));
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await openFromList(page, viewer.url, "message 1");
      await page.getByRole("tab", { name: "Conversation" }).click();
      await page.waitForSelector("#conversation-view .conv-item");
      const ids = () =>
        page.locator(".conv-item").evaluateAll((nodes) =>
          nodes.map((n) => Number((n as HTMLElement).dataset.id!.slice(1)))
        );
      // Scroll down far: later pages load, earlier ones are dropped (a window, not all).
      for (let i = 0; i < 12; i++) {
        await page.locator(".conversation").evaluate((n) => n.scrollTop = n.scrollHeight);
        await page.waitForTimeout(150);
      }
      await page.waitForFunction(() => document.querySelectorAll(".conv-item").length >= 150);
      let shown = await ids();
      assert(shown.length <= 150, `window of ${shown.length} items`);
      assert(shown[0] > 1, "the first items were dropped");
      assert(shown.every((id, i) => i === 0 || id === shown[i - 1] + 1), "contiguous");

      await page.click("#conv-latest");
      await page.waitForFunction(
        (last) => document.querySelector(".conv-current")?.getAttribute("data-id") === last,
        `l${String(entries).padStart(7, "0")}`,
      );
      shown = await ids();
      assert(shown.length <= 150 && shown.at(-1) === entries, `${shown[0]}..${shown.at(-1)}`);
      // The outline jumps anywhere: to the 6th message, far outside the window at the end.
      await page.click('.outline-row[data-index="5"]');
      await page.waitForFunction(
        () => document.querySelector(".conv-current")?.getAttribute("data-id") === "l0000006",
      );
      await page.click("#conv-latest");
      await page.waitForFunction(
        (last) => document.querySelector(".conv-current")?.getAttribute("data-id") === last,
        `l${String(entries).padStart(7, "0")}`,
      );
      // k past the first item of the window loads the page before it.
      const first = shown[0];
      for (let i = 0; i < shown.length + 5; i++) {
        await page.keyboard.press("k");
        await page.waitForTimeout(10);
      }
      await page.waitForFunction(
        (first) =>
          Number(document.querySelector(".conv-current")?.getAttribute("data-id")?.slice(1)) <
            first,
        first,
      );
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

/** Nothing from the session is live: no script ran, no handler, frame, foreign SVG, unsafe image or link. */
async function assertInertConversation(page: Page, where: string): Promise<void> {
  const report = await page.evaluate(() => {
    const all = [...document.querySelectorAll("*")];
    return {
      pwned: (globalThis as unknown as { __pwned?: unknown }).__pwned ?? null,
      handlers: all.filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length,
      inContent: document.querySelectorAll(
        ".conv-list :is(script, style, iframe, object, embed, svg, link, meta, base, form)",
      ).length,
      images: [...document.querySelectorAll(".conv-list img")].map((i) => i.getAttribute("src"))
        .filter((src) =>
          !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/.test(src ?? "")
        ),
      links: [...document.querySelectorAll<HTMLAnchorElement>(".conv-list a")].filter((a) =>
        !/^(https?:\/\/|mailto:)/i.test(a.getAttribute("href") ?? "") ||
        a.rel !== "noopener noreferrer"
      ).map((a) => a.outerHTML.slice(0, 80)),
      text: document.querySelector(".conv-list")?.textContent ?? "",
    };
  });
  assertEquals(report.pwned, null, `${where}: a script ran`);
  assertEquals(report.handlers, 0, `${where}: event handler attributes`);
  assertEquals(report.inContent, 0, `${where}: active elements from content`);
  assertEquals(report.images, [], `${where}: unsafe images`);
  assertEquals(report.links, [], `${where}: unsafe links`);
  assert(report.text.includes("<script>window.__pwned="), `${where}: markup shown as text`);
}

Deno.test({
  name:
    "viewer: hostile content stays inert in the conversation view and its export (CSP bypassed)",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-conv-hostile-" });
  try {
    await withViewerBrowser({ bypassCSP: true }, 180_000, async (viewer, browser) => {
      const root = new URL("../../", import.meta.url).pathname;
      const { page, watch } = await openWithImported(viewer, browser, [
        `${root}fixtures/hostile/html-everywhere.jsonl`,
      ]);
      await page.locator("#session-table .session-link").first().click();
      await page.getByRole("tab", { name: "Conversation" }).click();
      await page.waitForSelector("#conversation-view .conv-item");
      await page.locator(".conversation").evaluate((n) => n.scrollTop = n.scrollHeight);
      for (const details of await page.locator(".conv-list details").all()) {
        await details.evaluate((d) => (d as HTMLDetailsElement).open = true);
      }
      for (const more of await page.locator(".conv-list button.show-all").all()) await more.click();
      await assertInertConversation(page, "conversation");
      const html = await readDownload(page, () => page.click("#export-html"));
      await Deno.writeTextFile(`${work}/hostile.html`, html);
      const reader = await browser.context.newPage();
      await reader.goto(`file://${work}/hostile.html`);
      await reader.waitForSelector("body[data-ready] .conv-item");
      await assertInertConversation(reader, "export");
      assertEquals(watch.errors, [], "page errors");
      assertEquals(watch.outside, [], "requests to other origins");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
