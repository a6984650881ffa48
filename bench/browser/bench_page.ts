/**
 * Browser benchmark page: starts the import worker and watches its own main thread the
 * way a viewer's page would be judged: every `longtask` entry (tasks >= 50 ms) and the
 * largest gap seen by a 10 ms interval timer. The page does what a viewer does while a
 * worker imports: it receives progress messages and updates a progress element.
 * @module
 */
interface Done {
  kind: "done";
  timings: Record<string, number>;
  entries: number;
  bytes: number;
}

const longtasks: { start: number; duration: number }[] = [];
try {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longtasks.push({ start: entry.startTime, duration: entry.duration });
    }
  }).observe({ type: "longtask", buffered: true });
} catch {
  // No longtask support: the interval gap below still bounds the longest task.
}

let maxGap = 0;
let last = performance.now();
// A 10 ms timer: its largest gap bounds the longest task even without longtask entries
// (it also counts time the OS did not schedule the page, on a loaded machine).
const timer = setInterval(() => {
  const now = performance.now();
  maxGap = Math.max(maxGap, now - last);
  last = now;
}, 10);

const progress = document.createElement("progress");
document.body.append(progress);
const params = new URLSearchParams(location.search);
const worker = new Worker("./bench_worker.js", { type: "module" });
const started = performance.now();
const result = new Promise<Record<string, unknown>>((resolve) => {
  worker.onmessage = (event: MessageEvent) => {
    const data = event.data as { kind: string; bytes?: number; total?: number; error?: string };
    if (data.kind === "progress") {
      progress.max = data.total ?? 1;
      progress.value = data.bytes ?? 0;
    } else if (data.kind === "error") {
      resolve({ error: data.error });
    } else if (data.kind === "done") {
      const done = data as unknown as Done;
      resolve({ ...done, wallMs: performance.now() - started });
    }
  };
  worker.onerror = (event) => resolve({ error: event.message || "worker failed to start" });
});
worker.postMessage({ url: params.get("file"), size: Number(params.get("size")) });
const outcome = await result;
clearInterval(timer);
// Let the observer deliver the last entries before reporting.
await new Promise((resolve) => setTimeout(resolve, 200));
// Only tasks that overlap the import count (page load and bundle evaluation come before).
const during = longtasks.filter((task) => task.start + task.duration >= started);
(globalThis as Record<string, unknown>).__benchResult = {
  ...outcome,
  longtasks: during.map((task) => ({ start: task.start - started, duration: task.duration })),
  beforeImport: longtasks.filter((task) => !during.includes(task)).map((task) => task.duration),
  longestTaskMs: during.reduce((max, task) => Math.max(max, task.duration), 0),
  maxTimerGapMs: maxGap,
};
worker.terminate();
