/**
 * A CPU profile of every thread of the page's renderer, workers included, from a Chromium
 * trace (`disabled-by-default-v8.cpu_profiler`): the DevTools `Profiler` domain only sees
 * the page's main thread, and the viewer's import runs in its worker.
 * @module
 */

type Session = {
  send(method: string, params?: object): Promise<unknown>;
  on(event: string, fn: (m: { value: object[] }) => void): void;
  once(event: string, fn: () => void): void;
};
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
type Chunk = {
  name: string;
  id?: string;
  tid?: number;
  args?: { data?: { cpuProfile?: { nodes?: Node[]; samples?: number[] }; timeDeltas?: number[] } };
};

/**
 * Trace `run`, then print the functions with the most self time per thread (top `count`).
 *
 * @example
 * ```ts
 * import { profileThreads } from "./_trace_profile.ts";
 * declare const cdp: Parameters<typeof profileThreads>[0];
 * await profileThreads(cdp, async () => {}, 20);
 * ```
 */
export async function profileThreads(
  cdp: Session,
  run: () => Promise<unknown>,
  count = 25,
): Promise<void> {
  const events: Chunk[] = [];
  cdp.on("Tracing.dataCollected", (m) => events.push(...m.value as Chunk[]));
  const complete = new Promise<void>((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.start", {
    categories: "disabled-by-default-v8.cpu_profiler",
    transferMode: "ReportEvents",
  });
  try {
    await run();
  } finally {
    await cdp.send("Tracing.end");
    await complete;
  }
  // Nodes arrive in chunks per profile id; a sample's self time is the delta after it.
  const profiles = new Map<
    string,
    { tid?: number; nodes: Map<number, Node>; self: Map<number, number> }
  >();
  for (const e of events) {
    if (e.name !== "ProfileChunk" || !e.id) continue;
    let p = profiles.get(e.id);
    if (!p) profiles.set(e.id, p = { tid: e.tid, nodes: new Map(), self: new Map() });
    const data = e.args?.data;
    for (const node of data?.cpuProfile?.nodes ?? []) p.nodes.set(node.id, node);
    const samples = data?.cpuProfile?.samples ?? [];
    samples.forEach((id, i) => {
      const ms = (data?.timeDeltas?.[i + 1] ?? 0) / 1000;
      p.self.set(id, (p.self.get(id) ?? 0) + ms);
    });
  }
  for (const [id, p] of profiles) {
    const byName = new Map<string, number>();
    for (const [nodeId, ms] of p.self) {
      const f = p.nodes.get(nodeId)?.callFrame;
      const key = f
        ? `${f.functionName || "(anon)"} ${(f.url ?? "").split("/").pop()}:${
          (f.lineNumber ?? -1) + 1
        }`
        : `node ${nodeId}`;
      byName.set(key, (byName.get(key) ?? 0) + ms);
    }
    const total = [...byName.values()].reduce((a, b) => a + b, 0);
    const idle = byName.get("(idle) :0") ?? 0;
    if (total - idle < 500) continue; // a thread that did little
    console.log(`profile ${id} (thread ${p.tid}): ${(total - idle).toFixed(0)} ms busy`);
    const top = [...byName].filter(([k]) => !k.startsWith("(idle)")).sort((a, b) => b[1] - a[1]);
    for (const [k, ms] of top.slice(0, count)) {
      console.log(`  ${ms.toFixed(0).padStart(6)} ms ${k}`);
    }
  }
}
