/**
 * Scrolling the opened session in the viewer (issue 15: "a 100k-entry session still opens
 * and scrolls with no main-thread task over 50 ms"). After the import and the first
 * context page, on the Context tab and then on the Conversation tab: scroll down through
 * {@link STEPS} pages (each step goes to the bottom of the pane and waits for the next page
 * to arrive), back up the same way, and on the conversation press "Jump to latest". The
 * `longtask` entries the init script of `viewer.ts` collects are split by phase.
 * @module
 */
import type { Row } from "../jobs.ts";
import type { Page } from "./types.ts";
import { describeSteps, placeLost, wheelUp } from "./scroll_place.ts";

/** Pages scrolled down (and back up) per tab. */
export const STEPS = 20;

/** The row names, in order (the targets in `targets.ts` find them by these). */
export const SCROLL_ROWS = {
  contextDown: "viewer scroll: context tab, down 20 pages",
  contextUp: "viewer scroll: context tab, back up",
  conversationDown: "viewer scroll: conversation tab, down 20 pages",
  conversationUp: "viewer scroll: conversation tab, back up",
  latest: "viewer scroll: conversation tab, Jump to latest",
} as const;

/** The row of scrolling up after "Jump to latest" (the place kept, not tasks). */
export const PLACE_ROW = "viewer scroll: conversation tab, wheel up after Jump to latest";
/** Wheel steps of that row. */
export const PLACE_STEPS = 30;

/** What one scroll phase saw. */
export interface Phase {
  longtasks: number[];
  worstFrame: string;
  ms: number;
  steps: number;
  items: number;
}

/** Which pane one phase scrolls, and how. */
export interface PhaseArg {
  pane: string;
  item: string;
  direction: "down" | "up" | "latest";
  steps: number;
}

/**
 * Runs in the page (serialised: nothing from this module's scope). Each step moves the
 * pane to its end and waits until the items at either end change (a page arrived) or a
 * second passes (nothing more to load), then two frames so the rendering is included.
 */
export async function phase(arg: PhaseArg): Promise<Phase> {
  type Frame = {
    start: number;
    duration: number;
    render: number;
    scripts: { invoker: string; duration: number; forcedLayout: number }[];
  };
  const bench = (globalThis as unknown as {
    __bench: { longtasks: { start: number; duration: number }[]; frames?: Frame[] };
  }).__bench;
  const pane = document.querySelector<HTMLElement>(arg.pane)!;
  const frames = () =>
    new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
  // Which items are at either end, read without forcing a layout (so the polling does not
  // add work to the tasks it measures).
  const signature = () => {
    const items = pane.querySelectorAll(arg.item);
    return [items.length, items[0], items[items.length - 1]];
  };
  const same = (a: unknown[], b: unknown[]) => a.every((v, i) => v === b[i]);
  const settle = async (before: unknown[]) => {
    const until = performance.now() + 1000;
    while (performance.now() < until && same(signature(), before)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await frames();
  };
  const t0 = performance.now();
  let steps = 0;
  if (arg.direction === "latest") {
    const before = signature();
    document.querySelector<HTMLElement>("#conv-latest")!.click();
    await settle(before);
    steps = 1;
  } else {
    for (; steps < arg.steps; steps++) {
      const before = signature();
      if (arg.direction === "down") pane.scrollTop = pane.scrollHeight;
      else pane.scrollTop = Math.max(0, pane.scrollTop - pane.scrollHeight / arg.steps);
      await settle(before);
      if (arg.direction === "up" && pane.scrollTop === 0 && same(signature(), before)) break;
    }
  }
  await new Promise((r) => setTimeout(r, 100)); // longtask entries arrive asynchronously
  const t1 = performance.now();
  const long = (bench.frames ?? []).filter((f) => f.start + f.duration >= t0 && f.start <= t1);
  const worst = long.sort((a, b) => b.duration - a.duration)[0];
  const top = worst?.scripts.sort((a, b) => b.duration - a.duration)[0];
  return {
    worstFrame: worst
      ? `longest frame ${worst.duration.toFixed(0)} ms: scripts ${
        worst.scripts.reduce((n, s) => n + s.duration, 0).toFixed(0)
      } ms (most: ${top?.invoker ?? "—"} ${top?.duration.toFixed(0) ?? 0} ms, forced layout ${
        top?.forcedLayout.toFixed(0) ?? 0
      } ms), style+layout+paint ${worst.render.toFixed(0)} ms`
      : "",
    longtasks: bench.longtasks.filter((t) => t.start + t.duration >= t0 && t.start <= t1)
      .map((t) => t.duration),
    ms: t1 - t0,
    steps,
    items: pane.querySelectorAll(arg.item).length,
  };
}

/** Rows for the scroll phases (never throws: a failure becomes "not measured" rows). */
export async function measureScroll(
  page: Page,
  base: { section: string; runtime: "chromium"; subject: string },
): Promise<Row[]> {
  const load = Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
  const rows: Row[] = [];
  const record = (name: string, result: Phase) => {
    const longest = Math.max(0, ...result.longtasks);
    rows.push({
      ...base,
      name,
      medianMs: longest,
      samples: [longest],
      facts: {
        longtasks: result.longtasks.length,
        loadAverage: load,
        note: `${result.steps} steps in ${(result.ms / 1000).toFixed(1)} s, ${result.items} ` +
          `items in the page after; tasks ≥ 50 ms: ${
            result.longtasks.map((d) => d.toFixed(0)).join(", ") || "none"
          }${result.worstFrame ? `; ${result.worstFrame}` : ""}; load average ${load}`,
      },
    });
  };
  const run = (arg: PhaseArg) => page.evaluate(phase, arg);
  try {
    const context = { pane: "#context-view > .context-pane", item: ".context-item", steps: STEPS };
    await page.waitForSelector(`${context.pane} ${context.item}`, { timeout: 60_000 });
    record(SCROLL_ROWS.contextDown, await run({ ...context, direction: "down" }));
    record(SCROLL_ROWS.contextUp, await run({ ...context, direction: "up" }));
    // (The small-screen pane tabs have a Conversation tab too, hidden at this width.)
    await page.click(".session-page button.tab:has-text('Conversation'):visible");
    const conv = { pane: "#conversation-view > .conversation", item: ".conv-item", steps: STEPS };
    await page.waitForSelector(`${conv.pane} ${conv.item}`, { timeout: 60_000 });
    record(SCROLL_ROWS.conversationDown, await run({ ...conv, direction: "down" }));
    record(SCROLL_ROWS.conversationUp, await run({ ...conv, direction: "up" }));
    record(SCROLL_ROWS.latest, await run({ ...conv, direction: "latest" }));
    rows.push(await measurePlace(page, base));
  } catch (error) {
    const why = `not measured (the viewer's DOM may have changed): ${
      (error as Error).message.split("\n")[0]
    }`;
    for (const name of [...Object.values(SCROLL_ROWS), PLACE_ROW]) {
      if (!rows.some((r) => r.name === name)) rows.push({ ...base, name, unavailable: why });
    }
  }
  return rows;
}

/**
 * After "Jump to latest", wheel up 100 px at a time over the middle of the conversation:
 * on how many steps the message under the pointer moved other than the wheel did, and the
 * worst such move (px). Before, three slow steps went from the end to the start.
 */
async function measurePlace(
  page: Page,
  base: { section: string; runtime: "chromium"; subject: string },
): Promise<Row> {
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  const box = await page.evaluate(() => {
    const pane = document.querySelector("#conversation-view > .conversation")!;
    const { top, bottom, left, right } = pane.getBoundingClientRect();
    return { top, bottom, left, right };
  }, undefined);
  const x = (box.left + box.right) / 2;
  const y = (Math.max(0, box.top) + Math.min(size.height, box.bottom)) / 2;
  const readings = await wheelUp(page, x, y, PLACE_STEPS);
  const lost = placeLost(readings);
  const worst = Math.max(0, ...lost.map((r) => Number.isNaN(r.moved) ? Infinity : r.moved));
  const last = readings.at(-1);
  return {
    ...base,
    name: PLACE_ROW,
    facts: {
      stepsLost: lost.length,
      worstMovePx: Number.isFinite(worst) ? Math.round(worst) : -1,
      note: `${PLACE_STEPS} steps of 100 px from message ${readings[0]?.before} to ${last?.after}` +
        `; place lost on ${lost.length}${lost.length ? `: ${describeSteps(lost)}` : ""}`,
    },
  };
}
