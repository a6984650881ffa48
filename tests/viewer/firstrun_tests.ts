/**
 * A pi user's first `npm start` (`mu serve`, a real process): the agent directory holds
 * only pi's own session folder (`<agentDir>/sessions/--<cwd>--/*.jsonl`, pi-written
 * fixture files), nothing imported. `mu serve` prints both places it serves, the API lists
 * pi's sessions with where each lives, the page in Chromium lists and opens one, and an
 * entry another process appends to that file shows in the open page; the one torn file is
 * named in a small "could not be read" notice, not left out silently. With no sessions at
 * all, "This computer" says where it looked and what to do. Imported by
 * `tests/deno/viewer.test.ts`; runs alone too.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { buildViewer } from "../../web/build.ts";
import { startServe } from "../cli/serve.ts";
import { copyFixture } from "../jsonl/helpers.ts";
import {
  appendFromAnotherProcess,
  bounded,
  launchBrowser,
  screenshot,
  waitReady,
  watchPage,
} from "./helpers.ts";
import { assert, assertEquals, contextText, sessionTitles } from "./page.ts";

const FORMAT4_ID = "66666666-6666-4666-8666-666666666666";
const FORMAT4_TITLE = "format 4 in the same folder";
const TORN_FILE =
  "--home-u-gamma--/2025-02-02T02-00-00-000Z_55555555-5555-4555-8555-555555555555.jsonl";
const WATCHDOG_MS = 180_000;

Deno.test({
  name: "first run over mu serve: pi's session folder is listed, opens and follows appends",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "mu-viewer-firstrun-" });
  const agentDir = join(root, "agent");
  const sessionsDir = join(agentDir, "sessions");
  await mkdir(sessionsDir, { recursive: true });
  await copyFixture("pi-layout", sessionsDir);
  const emptyAgentDir = join(root, "empty-agent");
  await buildViewer({ outDir: `${root}/viewer`, minify: false });
  const server = await startServe(agentDir, ["--root", `${root}/viewer`]);
  const empty = await startServe(emptyAgentDir, ["--root", `${root}/viewer`]);
  const browser = await launchBrowser();
  const watchdog = setTimeout(() => void browser.close(), WATCHDOG_MS);
  try {
    // It says what it serves, with the paths.
    for (let i = 0; i < 40 && !server.printed().includes(sessionsDir); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert(server.printed().includes(join(agentDir, "sessions.db")), server.printed());
    assert(server.printed().includes(`jsonl ${sessionsDir}`), server.printed());

    // The API lists pi's sessions, each saying where it lives.
    const listing = await (await fetch(`${server.origin}/api/sessions`)).json();
    assertEquals(listing.total, 5, JSON.stringify(listing));
    const row = listing.sessions.find((s: { id: string }) => s.id === FORMAT4_ID);
    assertEquals(row.source.location, sessionsDir);
    assertEquals(
      listing.skipped.map((s: { path: string }) => s.path),
      [join(sessionsDir, TORN_FILE)],
    );
    const info = await (await fetch(`${server.origin}/api/info`)).json();
    assertEquals(info.sources.map((s: { location: string }) => s.location), [
      join(agentDir, "sessions.db"),
      sessionsDir,
    ]);

    const page = await browser.context.newPage();
    const watch = watchPage(page, server.origin);
    await page.goto(`${server.origin}/`);
    await waitReady(page);
    assertEquals(await page.getAttribute("#source-computer", "aria-selected"), "true");
    assert((await sessionTitles(page)).includes(FORMAT4_TITLE), "pi's session is listed");
    // The torn file is not left out silently: a notice, its reason one click away.
    assertEquals(await page.textContent("#unreadable summary"), "1 file could not be read");
    assert(!(await page.isVisible("#unreadable .reason")), "the reasons wait to be asked for");
    await page.click("#unreadable summary");
    assertEquals(await page.textContent("#unreadable .path"), join(sessionsDir, TORN_FILE));
    assert((await page.textContent("#unreadable .reason"))!.includes("torn final record"));
    assertEquals(await page.locator("#unloadable").count(), 0, "not an import failure");
    await page.locator("#session-table .session-link", { hasText: FORMAT4_TITLE }).click();
    await page.waitForSelector(".session-page #context-view .context-item");
    assert(!(await contextText(page)).includes("appended by pi"));
    await screenshot(page, "30-firstrun-pi-session");

    await appendFromAnotherProcess(
      { module: "stores/jsonl/fs.ts", name: "openJsonlFsStore", path: sessionsDir },
      FORMAT4_ID,
      "appended by pi",
    );
    let seen = false;
    for (let i = 0; i < 60 && !seen; i++) {
      seen = (await page.locator(".context-pane").textContent() ?? "").includes("appended by pi");
      if (!seen) await page.waitForTimeout(250);
    }
    assert(seen, "the appended message appears in the open session");
    assertEquals(watch.errors, []);

    // No sessions anywhere: "This computer" names the places it looked and what to do.
    const emptyPage = await browser.context.newPage();
    await emptyPage.goto(`${empty.origin}/`);
    await waitReady(emptyPage);
    await emptyPage.click("#source-computer");
    await emptyPage.waitForSelector(".looked-in li");
    const looked = await emptyPage.locator(".empty-state").textContent() ?? "";
    assert(looked.includes(join(emptyAgentDir, "sessions.db")), looked);
    assert(
      looked.includes(`${join(emptyAgentDir, "sessions")} (pi sessions folder: not there)`),
      looked,
    );
    assert(
      empty.printed().includes(`not found: ${join(emptyAgentDir, "sessions")}`),
      empty.printed(),
    );
    assert(looked.includes("PI_CODING_AGENT_DIR") && looked.includes("--session-dir"), looked);
    await screenshot(emptyPage, "31-firstrun-empty-computer");
  } finally {
    clearTimeout(watchdog);
    await browser.close();
    await bounded(server.stop(), 5000);
    await bounded(empty.stop(), 5000);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
