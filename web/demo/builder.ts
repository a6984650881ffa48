/**
 * Building blocks for the demo sessions (`web/demo/generate.ts`): a small PNG screenshot
 * (written by hand: CRC32 + deflate through CompressionStream), a line-by-line session
 * builder, and message helpers.
 *
 * @module
 */

/** A JSON object. */
export type Json = Record<string, unknown>;

// ------------------------------------------------------------------ a small PNG

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("deflate"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A 240×120 "failing requests" chart screenshot, as base64 PNG. */
export async function screenshotPng(): Promise<string> {
  const w = 240, h = 120;
  const raw = new Uint8Array((w * 3 + 1) * h);
  const bars = [22, 30, 26, 41, 38, 64, 90, 71, 35, 28, 24, 20];
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0;
    for (let x = 0; x < w; x++) {
      const i = y * (w * 3 + 1) + 1 + x * 3;
      let rgb = [248, 249, 251];
      if (y % 30 === 0) rgb = [225, 228, 234];
      const bar = Math.floor((x - 6) / 19);
      const inBar = x >= 6 && bar < bars.length && (x - 6) % 19 < 14;
      if (inBar && h - 8 - y < bars[bar]) rgb = bars[bar] > 60 ? [224, 49, 49] : [76, 110, 245];
      if (y >= h - 8) rgb = [200, 205, 214];
      raw.set(rgb, i);
    }
  }
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, w);
  hv.setUint32(4, h);
  header.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", await deflate(raw)),
    chunk("IEND", new Uint8Array(0)),
  ];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    png.set(p, at);
    at += p.length;
  }
  let binary = "";
  for (const b of png) binary += String.fromCharCode(b);
  return btoa(binary);
}

// ------------------------------------------------------------------ builders

/** Builds a session line by line: sequential ids, a steady clock, parent links. */
export class DemoSession {
  readonly lines: Json[] = [];
  #clock: number;
  #n = 0;
  constructor(header: Json, readonly prefix: string, start: string) {
    this.lines.push(header);
    this.#clock = Date.parse(start);
  }
  id(): string {
    return `${this.prefix}${(++this.#n).toString(16).padStart(8 - this.prefix.length, "0")}`;
  }
  tick(seconds = 7): { iso: string; ms: number } {
    this.#clock += seconds * 1000;
    return { iso: new Date(this.#clock).toISOString(), ms: this.#clock };
  }
  add(parentId: string | null, type: string, fields: Json, seconds?: number): string {
    const id = this.id();
    const t = this.tick(seconds);
    this.lines.push({ type, id, parentId, timestamp: t.iso, ...fields });
    return id;
  }
  msg(parentId: string | null, message: Json, seconds?: number): string {
    const id = this.id();
    const t = this.tick(seconds);
    this.lines.push({
      type: "message",
      id,
      parentId,
      timestamp: t.iso,
      message: { ...message, timestamp: t.ms },
    });
    return id;
  }
  text(): string {
    return this.lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
  }
}

/** A usage record with Sonnet-like prices. */
export function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Json {
  const cost = {
    input: input * 3e-6,
    output: output * 15e-6,
    cacheRead: cacheRead * 0.3e-6,
    cacheWrite: cacheWrite * 3.75e-6,
    total: 0,
  };
  cost.total = Number((cost.input + cost.output + cost.cacheRead + cost.cacheWrite).toFixed(6));
  for (const k of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    cost[k] = Number(cost[k].toFixed(6));
  }
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost,
  };
}

/** Provider fields of a Sonnet reply. */
export const SONNET = {
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
};

/** An assistant message. */
export function assistant(content: Json[], u: Json, stopReason = "stop", extra: Json = {}): Json {
  return { role: "assistant", content, ...SONNET, usage: u, stopReason, ...extra };
}
/** A text block. */
export const text = (t: string) => ({ type: "text", text: t });
/** A tool call block. */
export const call = (id: string, name: string, args: Json) => ({
  type: "toolCall",
  id,
  name,
  arguments: args,
});
/** A tool result message. */
export const result = (toolCallId: string, toolName: string, t: string, isError = false) => ({
  role: "toolResult",
  toolCallId,
  toolName,
  content: [text(t)],
  isError,
});
