/**
 * Where the viewer's long main-thread tasks go (issue 15: "a 100k-entry session opens and
 * scrolls with no main-thread task over 50 ms"). Runs the scroll phases of
 * `viewer_scroll.ts` (open, context down/up, conversation open/down/up, Jump to latest)
 * with Chromium tracing on and splits each task of 50 ms or more on the renderer's main
 * thread into script, style, layout, paint and other by the CPU self time of its trace events
 * (on this shared machine a task's wall time is mostly waiting for a core: the CPU time is
 * what the task costs).
 * A developer tool, not part of `bench/run.ts`; the imported session is kept in a profile
 * under `dist/` so later runs skip the import.
 *
 * ```sh
 * deno run -A bench/browser/trace_scroll.ts --entries=100000 [--throttle=4] [--fresh]
 *   [--phases=open,context-down,...] [--profile=open,...] [--no-minify]
 *   [--skip=complete,context,conversation] [--settle=ms after the open, 500]
 * ```
 * @module
 */
import { ensureSession } from "../generate.ts";
import { REPO } from "../jobs.ts";
import { MONITOR } from "./viewer.ts";
import { phase, type PhaseArg, STEPS } from "./viewer_scroll.ts";
import { launchChromium, serveDirectory } from "../../tests/browser/harness.ts";
import { buildViewer } from "../../web/build.ts";

/** A trace event (the fields this tool reads). */
interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time: below `dur` when the thread waited for a core. */
  tdur?: number;
  /** Thread clock at the event (B/E pairs carry it instead of `tdur`). */
  tts?: number;
  pid: number;
  tid: number;
  args?: {
    name?: string;
    data?: { functionName?: string; url?: string; reason?: string; nodeName?: string };
    beginData?: { dirtyObjects?: number; totalObjects?: number; partialLayout?: boolean };
  };
}

/** What one long task spent its time on (ms of CPU self time per kind). */
export interface TaskSplit {
  /** When the task began (trace clock, µs). */
  at: number;
  ms: number;
  /** CPU time of the task: what it would take on an idle core. */
  cpuMs: number;
  script: number;
  style: number;
  layout: number;
  paint: number;
  other: number;
  /** The three names with the most self time. */
  top: string;
  /** The three names with the most wall-clock self time (where a task waited). */
  wall: string;
}

const KINDS: Record<string, keyof Omit<TaskSplit, "at" | "ms" | "cpuMs" | "top" | "wall">> = {
  UpdateLayoutTree: "style",
  RecalculateStyles: "style",
  "Document::updateStyleAndLayoutTree": "style",
  Layout: "layout",
  UpdateLayerTree: "paint",
  PrePaint: "paint",
  Paint: "paint",
  PaintImage: "paint",
  Layerize: "paint",
  "LocalFrameView::RunPrePaintLifecyclePhase": "paint",
  "LocalFrameView::RunPaintLifecyclePhase": "paint",
  CompositeLayers: "paint",
  Commit: "paint",
  FunctionCall: "script",
  EvaluateScript: "script",
  "v8.callFunction": "script",
  "v8.run": "script",
  "v8.compile": "script",
  "V8.GCScavenger": "script",
  MajorGC: "script",
  MinorGC: "script",
  TimerFire: "script",
  EventDispatch: "script",
  FireAnimationFrame: "script",
  RunMicrotasks: "script",
  FireIdleCallback: "script",
  ParseHTML: "other",
};

/** Begin/end pairs (`B`/`E`, e.g. some GC phases) as complete (`X`) events. */
function pairBeginEnd(events: TraceEvent[]): TraceEvent[] {
  const open: TraceEvent[] = [];
  const done: TraceEvent[] = [];
  for (const e of [...events].sort((a, b) => a.ts - b.ts)) {
    if (e.ph === "B") open.push(e);
    else if (e.ph === "E") {
      const begin = open.pop();
      if (!begin) continue;
      const tdur = e.tts !== undefined && begin.tts !== undefined ? e.tts - begin.tts : undefined;
      done.push({ ...begin, ph: "X", dur: e.ts - begin.ts, tdur });
    }
  }
  return done;
}

/** An event's thread (CPU) time in µs: on a loaded machine its wall time is mostly waiting. */
const cpu = (e: TraceEvent) => e.tdur ?? e.dur!;

/**
 * Split each main-thread task of `threshold` ms or more by the self time of the events in
 * it; an event with an unknown name counts as its parent's kind.
 */
export function splitLongTasks(
  events: TraceEvent[],
  threshold = 50,
  totals?: Map<string, number>,
): TaskSplit[] {
  const main =
    events.find((e) =>
      e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain" &&
      events.some((t) => t.pid === e.pid && t.name === "RunTask" && (t.dur ?? 0) > 10_000)
    ) ?? events.find((e) => e.ph === "M" && e.args?.name === "CrRendererMain");
  if (!main) return [];
  const own = [
    ...events.filter((e) =>
      e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur !== undefined
    ),
    ...pairBeginEnd(events.filter((e) => e.pid === main.pid && e.tid === main.tid)),
  ].sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const tasks = own.filter((e) => e.name === "RunTask" && e.dur! >= threshold * 1000)
    .filter((e, i, all) => i === 0 || e.ts >= all[i - 1].ts + all[i - 1].dur!); // outermost
  return tasks.map((task) => {
    const end = task.ts + task.dur!;
    const inside = own.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur! <= end);
    const split: TaskSplit = {
      at: task.ts,
      ms: task.dur! / 1000,
      cpuMs: (task.tdur ?? task.dur!) / 1000,
      script: 0,
      style: 0,
      layout: 0,
      paint: 0,
      other: 0,
      top: "",
      wall: "",
    };
    const byName = new Map<string, number>();
    const byWall = new Map<string, number>();
    // A script call is named by its function, so the profile need not be kept to see it.
    const label = (e: TraceEvent) => {
      const fn = e.args?.data?.functionName;
      return fn ? `${e.name}(${fn})` : e.name;
    };
    // A stack walk: events are sorted by start (longer first on ties), so each event's
    // parent is the innermost open event that contains it.
    const stack: {
      e: TraceEvent;
      kind: keyof Omit<TaskSplit, "at" | "top" | "wall">;
      child: number;
      childWall: number;
    }[] = [];
    const close = (until: number) => {
      while (
        stack.length && stack[stack.length - 1].e.ts + stack[stack.length - 1].e.dur! <= until
      ) {
        const done = stack.pop()!;
        const self = Math.max(0, cpu(done.e) - done.child) / 1000;
        (split[done.kind] as number) += self;
        byName.set(label(done.e), (byName.get(label(done.e)) ?? 0) + self);
        totals?.set(done.e.name, (totals.get(done.e.name) ?? 0) + self);
        const wallSelf = Math.max(0, done.e.dur! - done.childWall) / 1000;
        byWall.set(label(done.e), (byWall.get(label(done.e)) ?? 0) + wallSelf);
        if (stack.length) {
          stack[stack.length - 1].child += cpu(done.e);
          stack[stack.length - 1].childWall += done.e.dur!;
        }
      }
    };
    let rootChild = 0;
    for (const e of inside) {
      close(e.ts);
      const parent = stack[stack.length - 1];
      const kind = KINDS[e.name] ?? parent?.kind ?? "other";
      if (!parent) rootChild += cpu(e);
      stack.push({ e, kind, child: 0, childWall: 0 });
    }
    close(Infinity);
    split.other += Math.max(0, cpu(task) - rootChild) / 1000;
    const top3 = (m: Map<string, number>) =>
      [...m].sort((a, b) => b[1] - a[1]).slice(0, 3)
        .map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join(", ");
    split.top = top3(byName);
    split.wall = top3(byWall);
    return split;
  });
}

/** The functions with the most self time in a CPU profile (the script part of a task). */
function printProfile(profile: {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    positionTicks?: { line: number; ticks: number }[];
  }[];
  samples?: number[];
  timeDeltas?: number[];
}): void {
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const lines = new Map<string, Map<number, number>>();
  (profile.samples ?? []).forEach((id, i) => {
    const node = byId.get(id)!;
    const f = node.callFrame;
    const key = `${f.functionName || "(anon)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i + 1] ?? 0) / 1000);
    if (!lines.has(key)) {
      const ticks = new Map<number, number>();
      for (const n of profile.nodes) {
        if (n.callFrame.url !== f.url || n.callFrame.lineNumber !== f.lineNumber) continue;
        for (const t of n.positionTicks ?? []) {
          ticks.set(t.line, (ticks.get(t.line) ?? 0) + t.ticks);
        }
      }
      lines.set(key, ticks);
    }
  });
  const top = [...self].filter(([k]) => !k.startsWith("(idle)")).sort((a, b) => b[1] - a[1]);
  for (const [k, ms] of top.slice(0, 15)) {
    const hot = [...lines.get(k) ?? []].sort((a, b) => b[1] - a[1]).slice(0, 3);
    const where = hot.map(([line, n]) => `line ${line} x${n}`).join(", ");
    console.log(`     profile ${ms.toFixed(0)} ms ${k}${where ? ` (${where})` : ""}`);
  }
}

const CATEGORIES = [
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "v8.execute",
  "blink",
  "toplevel",
  "disabled-by-default-devtools.timeline.frame",
  "v8",
  "disabled-by-default-v8.gc",
  ...Deno.args.includes("--invalidations")
    ? ["disabled-by-default-devtools.timeline.invalidationTracking"]
    : [],
].join(",");

/**
 * What marked layout dirty before a task that laid out a lot (`--invalidations`): the
 * reasons and nodes of the invalidations in the 300 ms up to the task's end.
 */
function invalidations(events: TraceEvent[], task: TaskSplit): string {
  const counts = new Map<string, number>();
  for (const e of events) {
    if (e.name !== "LayoutInvalidationTracking") continue;
    if (e.ts < task.at - 300_000 || e.ts > task.at + task.ms * 1000) continue;
    const key = `${e.args?.data?.reason} ${e.args?.data?.nodeName}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const layouts = events.filter((e) =>
    e.name === "Layout" && e.ts >= task.at && e.ts <= task.at + task.ms * 1000
  ).map((e) => `${e.args?.beginData?.dirtyObjects}/${e.args?.beginData?.totalObjects}`);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, n]) => `${n}x ${k}`)
    .join("; ") + `; layouts (dirty/total objects): ${layouts.join(", ") || "none"}`;
}

if (import.meta.main) {
  const arg = (name: string) => Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const entries = Number(arg("entries") ?? 100000);
  const throttle = Number(arg("throttle") ?? 1);
  const only = arg("phases")?.split(",");
  const cpuProfile = arg("profile")?.split(",");
  const data = await ensureSession(entries);
  const { outDir } = await buildViewer({
    outDir: `${REPO}dist/browser/trace-viewer`,
    minify: !Deno.args.includes("--no-minify"), // readable names in --profile output
  });
  // A fixed port: OPFS belongs to the origin, so the kept profile finds its import again.
  const server = serveDirectory({ root: outDir, isolated: true, port: 47_000 + entries % 1000 });
  const profile = `${REPO}dist/trace-profile-${entries}`;
  if (Deno.args.includes("--fresh")) {
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
  const browser = await launchChromium({ userDataDir: profile });
  try {
    const page = await browser.newPage();
    await page.addInitScript(MONITOR);
    page.on("pageerror", (error) => console.log(`page error: ${error.message}`));
    page.on("console", (m) => m.type() === "error" && console.log(`console: ${m.text()}`));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(
      () => document.getElementById("storage")?.textContent?.trim() !== "…",
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    const have = await page.waitForSelector("#session-table .session-link", { timeout: 5_000 })
      .then(() => true, () => false);
    if (!have) {
      console.log(`importing ${data.file}`);
      await page.setInputFiles("#file-input", data.file);
      await page.waitForSelector("#session-table .session-link", { timeout: 600_000 });
      await page.waitForFunction(() => !!document.getElementById("progress")?.hidden, undefined, {
        timeout: 600_000,
        polling: 100,
      });
    }
    const cdp = await browser.context.newCDPSession(page);
    if (throttle > 1) await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle });
    const traced = async (name: string, run: () => Promise<unknown>) => {
      if (only && !only.includes(name)) return void await run();
      const chunks: TraceEvent[] = [];
      const collect = (m: { value: object[] }) => chunks.push(...m.value as TraceEvent[]);
      cdp.on("Tracing.dataCollected", collect);
      const profiling = cpuProfile?.includes(name);
      if (profiling) {
        await cdp.send("Profiler.enable");
        await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
        await cdp.send("Profiler.start");
      }
      const complete = new Promise<void>((r) => cdp.once("Tracing.tracingComplete", () => r()));
      await cdp.send("Tracing.start", { categories: CATEGORIES, transferMode: "ReportEvents" });
      const t0 = performance.now();
      await run();
      const ms = performance.now() - t0;
      if (profiling) printProfile((await cdp.send("Profiler.stop")).profile);
      await cdp.send("Tracing.end");
      await complete;
      cdp.off("Tracing.dataCollected", collect);
      const long = splitLongTasks(chunks);
      // All the phase's main-thread work, split the same way: compares two builds'
      // cost when the longest task is mostly noise.
      const totals = new Map<string, number>();
      const all = splitLongTasks(chunks, 0, totals);
      const sum = (k: "cpuMs" | "script" | "style" | "layout" | "paint") =>
        all.reduce((n, t) => n + t[k], 0).toFixed(0);
      const load = Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
      const max = (k: keyof Omit<TaskSplit, "at" | "top" | "wall">) =>
        Math.max(0, ...long.map((t) => t[k]));
      console.log(
        `${name}: ${(ms / 1000).toFixed(1)} s, ${long.length} tasks >= 50 ms, longest ${
          max("ms").toFixed(0)
        } ms (cpu ${max("cpuMs").toFixed(0)}), ${
          long.filter((t) => t.cpuMs >= 50).length
        } with >= 50 ms cpu; max per kind: script ${max("script").toFixed(0)}, style ${
          max("style").toFixed(0)
        }, layout ${max("layout").toFixed(0)}, paint ${max("paint").toFixed(0)}, other ${
          max("other").toFixed(0)
        } (load ${load})`,
      );
      // The costliest task of the phase by CPU, whatever its wall time (at a high load
      // a long wall-clock task is mostly waiting for a core).
      const worst = all.reduce((a, b) => b.cpuMs > a.cpuMs ? b : a, all[0]);
      const most = (k: "paint" | "script" | "layout") => Math.max(0, ...all.map((t) => t[k]));
      if (worst) {
        console.log(
          `   most cpu in one task: ${worst.cpuMs.toFixed(0)} ms [${worst.top}]; most paint ${
            most("paint").toFixed(0)
          }, layout ${most("layout").toFixed(0)}, script ${most("script").toFixed(0)} ms`,
        );
      }
      console.log(
        `   all ${all.length} tasks: cpu ${sum("cpuMs")} ms = script ${sum("script")}, style ${
          sum("style")
        }, layout ${sum("layout")}, paint ${sum("paint")} (Paint ${
          (totals.get("Paint") ?? 0).toFixed(0)
        }, PaintArtifactCompositor::Update ${
          (totals.get("PaintArtifactCompositor::Update") ?? 0).toFixed(0)
        }); most: ${
          [...totals].sort((a, b) => b[1] - a[1]).slice(0, 8)
            .map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join(", ")
        }`,
      );
      for (const t of long) {
        console.log(
          `   ${t.ms.toFixed(0)} ms (cpu ${t.cpuMs.toFixed(0)}) = script ${
            t.script.toFixed(0)
          } style ${t.style.toFixed(0)} layout ${t.layout.toFixed(0)} paint ${
            t.paint.toFixed(0)
          } other ${t.other.toFixed(0)} [${t.top}] wall [${t.wall}]`,
        );
        if (Deno.args.includes("--invalidations") && t.layout >= 5) {
          console.log(`     invalidated: ${invalidations(chunks, t)}`);
        }
      }
    };
    const context = { pane: "#context-view > .context-pane", item: ".context-item", steps: STEPS };
    const conv = { pane: "#conversation-view > .conversation", item: ".conv-item", steps: STEPS };
    // Where the phase left the pane: the window's first and last rows, so a phase that
    // loaded nothing shows.
    const run = async (a: PhaseArg) => {
      const result = await page.evaluate(phase, a);
      const ends = await page.locator(`${a.pane} ${a.item}`).evaluateAll((nodes) =>
        [nodes[0], nodes.at(-1)].map((n) => (n as HTMLElement | undefined)?.dataset.source)
      );
      const summary = await page.evaluate(() =>
        document.querySelector(".context-summary .facts")?.textContent ?? ""
      );
      console.log(
        `   ${result.steps} steps, ${result.items} items: ${ends.join(" .. ")} (${summary})`,
      );
    };
    await traced("open", async () => {
      await page.click("#session-table .session-link");
      await page.waitForSelector(".session-page #context-view .context-item", { timeout: 120_000 });
      // `--settle=0` scrolls at once, as `bench/run.ts` does (the tree still loading).
      await page.waitForTimeout(Number(arg("settle") ?? 500));
    });
    // What the rest of the open costs the page when it arrives (the worker's full load: the
    // tree, the header's counts, the raw pane's first page). The bench scrolls meanwhile.
    const skip = arg("skip")?.split(",") ?? [];
    if (!skip.includes("complete")) {
      await traced("complete", async () => {
        await page.waitForSelector("#context-view .raw-item", { timeout: 600_000 });
        await page.waitForSelector(".tree-row:not(.loading)", { timeout: 60_000 });
        await page.waitForTimeout(1000);
      });
    }
    // The tab's own phases; `--skip=context` starts at the conversation tab.
    if (!skip.includes("context")) {
      await traced("context-down", () => run({ ...context, direction: "down" }));
      await traced("context-up", () => run({ ...context, direction: "up" }));
    }
    if (!skip.includes("conversation")) {
      await traced("conversation-open", async () => {
        await page.click(".session-page button.tab:has-text('Conversation')");
        await page.waitForSelector(`${conv.pane} ${conv.item}`, { timeout: 60_000 });
        await page.waitForTimeout(500);
      });
      if (Deno.args.includes("--heights")) {
        console.log(
          await page.evaluate((sel) => {
            // Laid out for real (skipped items would report their placeholder size).
            const items = [...document.querySelectorAll<HTMLElement>(sel)];
            for (const n of items) n.style.contentVisibility = "visible";
            const sized = items.map((n) => ({ n, h: n.offsetHeight }));
            const h = sized.map((x) => x.h).sort((a, b) => a - b);
            // What makes the tallest items tall: their body's children, with heights.
            const tall = sized.sort((a, b) => b.h - a.h).slice(0, 3).map(({ n, h }) =>
              `${h}px ${n.className}: ` +
              [...n.querySelectorAll<HTMLElement>(".conv-body > *, .conv-body > * > *")]
                .filter((c) => c.offsetHeight > 150)
                .map((c) => `${c.tagName.toLowerCase()}.${c.className} ${c.offsetHeight}`)
                .join(", ")
            );
            for (const n of items) n.style.contentVisibility = "";
            const q = (f: number) => h[Math.floor(f * (h.length - 1))];
            return `item heights (${h.length}): p10 ${q(0.1)}, p50 ${q(0.5)}, p90 ${q(0.9)} px\n` +
              tall.join("\n");
          }, `${conv.pane} ${conv.item}`),
        );
      }
      await traced("conversation-down", () => run({ ...conv, direction: "down" }));
      await traced("conversation-up", () => run({ ...conv, direction: "up" }));
      await traced("latest", () => run({ ...conv, direction: "latest" }));
    }
  } finally {
    await browser.close();
    await server.close();
  }
}
