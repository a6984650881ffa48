/**
 * Page of `import_breakdown.ts`: runs the breakdown worker and leaves its answer in
 * `globalThis.__benchResult`.
 * @module
 */
const params = new URLSearchParams(location.search);
const worker = new Worker("./import_breakdown_worker.js", { type: "module" });
const result = new Promise<unknown>((resolve) => {
  worker.onmessage = (event: MessageEvent) => resolve(event.data);
  worker.onerror = (event) => resolve({ error: event.message || "worker failed to start" });
});
worker.postMessage({
  url: params.get("file"),
  variants: JSON.parse(params.get("variants")!),
  createOnly: params.has("createOnly"),
});
(globalThis as Record<string, unknown>).__benchResult = await result;
worker.terminate();
