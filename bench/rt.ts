/**
 * The few runtime services a benchmark child needs, for Deno and Node alike (the Node
 * build of the same child is bundled by `bench/run_node.ts`). Only `node:` modules that
 * both runtimes implement natively are used, plus `Deno.open` where it is faster.
 * @module
 */
import { open, readFile, writeFile } from "node:fs/promises";

declare const Deno: { open?: unknown } | undefined;

/** "deno" or "node". */
export const runtimeName: "deno" | "node" = typeof Deno !== "undefined" ? "deno" : "node";

/** Chunk size of every streamed read (floor and library alike, so both see the same input). */
export const CHUNK = 1 << 20;

/**
 * The file as a stream of fresh 1 MiB chunks. A fresh buffer per chunk matters: the
 * library's line splitter keeps views of a chunk until the line completes.
 */
export async function* readChunks(path: string, chunk = CHUNK): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
  try {
    while (true) {
      const buffer = new Uint8Array(chunk);
      let filled = 0;
      while (filled < chunk) {
        const { bytesRead } = await handle.read(buffer, filled, chunk - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled === 0) return;
      yield filled === chunk ? buffer : buffer.subarray(0, filled);
      if (filled < chunk) return;
    }
  } finally {
    await handle.close();
  }
}

/** Run a full garbage collection when the runtime was started with --expose-gc. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc(); // a second pass frees what the first one's finalizers released
  }
}

/** Whether `collectGarbage` really collects. */
export function gcExposed(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === "function";
}

/** Resident set size now and its high-water mark since the last reset, in bytes (Linux). */
export async function memoryStatus(): Promise<{ rss: number; hwm: number }> {
  const text = await readFile("/proc/self/status", "utf8").catch(() => "");
  const field = (name: string) => {
    const match = new RegExp(`${name}:\\s+(\\d+) kB`).exec(text);
    return match ? Number(match[1]) * 1024 : NaN;
  };
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/**
 * Reset the RSS high-water mark (`echo 5 > /proc/self/clear_refs`, Linux >= 4.0), so a
 * peak measures one operation, not module loading or setup. False when not permitted.
 */
export async function resetPeak(): Promise<boolean> {
  try {
    await writeFile("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** Median of numbers (mean of the middle two for even counts). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
