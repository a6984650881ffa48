/**
 * The `proto` benchmark section (`deno task bench --only=proto`): today's JSONL open next
 * to the prototype variants of `bench/proto/fast_parse.ts`, each followed by the same
 * index + projection, all against the floor in one process. Memory per variant with
 * `mode: "mem"` like the open case.
 * @module
 */
import { parseSessionJsonl, SessionIndex } from "../../core.ts";
import { floorFn, floorRetainFn, type OpenParams } from "../cases/open.ts";
import type { BenchCase, BenchFn } from "../cases/types.ts";
import { projector } from "../drivers.ts";
import { readChunks, runtimeName } from "../rt.ts";
import { type ProtoOptions, protoParse } from "./fast_parse.ts";

/** Variants; "zod + raw string" re-implements today's choices (a check of the prototype). */
export const PROTO_VARIANTS: Record<string, ProtoOptions> = {
  "zod + raw string": { raw: "string", validate: "zod" },
  "zod + no raw": { raw: "none", validate: "zod" },
  "fast + raw string": { raw: "string", validate: "fast" },
  "fast + raw bytes": { raw: "bytes", validate: "fast" },
  "fast + no raw": { raw: "none", validate: "fast" },
};

/** `skipChecks`: no correctness check in setup (memory runs: setup garbage hides peaks). */
export async function protoCase(params: OpenParams & { skipChecks?: boolean }): Promise<BenchCase> {
  const project = await projector();
  const finish = (entries: Parameters<typeof SessionIndex.build>[0]) => {
    const index = SessionIndex.build(entries);
    const leaf = entries[entries.length - 1].id;
    const messages = typeof project === "string"
      ? index.getPath(leaf).length
      : project(entries, leaf, index).messages.length;
    return { entries: entries.length, messages };
  };
  const fns: Record<string, BenchFn> = {
    floor: floorFn(params.file),
    "floor+retain": floorRetainFn(params.file),
    "library today": async () => {
      const parsed = await parseSessionJsonl(readChunks(params.file));
      return finish(parsed.entries);
    },
  };
  let info: BenchCase["info"];
  if (params.sqliteDb && runtimeName === "deno") {
    // node:sqlite is Deno-only here: imported by URL so the Node bundle never includes it.
    const { DatabaseSync } = await import("node:sqlite");
    const { loadContextEntries } = await import(
      new URL("./sqlite_context.ts", import.meta.url).href
    );
    const load = () => {
      const db = new DatabaseSync(params.sqliteDb!, { readOnly: true });
      try {
        return loadContextEntries(db, params.sessionId, params.lastEntryId);
      } finally {
        db.close();
      }
    };
    if (typeof project !== "string" && !params.skipChecks) {
      // The prototype must project exactly what the full load projects.
      const full = await openFull(params);
      const fast = load();
      const a = JSON.stringify(project(full, params.lastEntryId).messages);
      const b = JSON.stringify(project(fast.entries, params.lastEntryId).messages);
      info = { contextProtoMatchesFullProjection: a === b, contextProtoParsed: fast.parsed };
      fns["sqlite context (proto)"] = async () => {
        const t = performance.now();
        const loaded = load();
        const loadMs = performance.now() - t;
        const messages = project(loaded.entries, params.lastEntryId).messages.length;
        return { loadMs, pathMs: loaded.pathMs, parsed: loaded.parsed, messages };
      };
    }
  }
  for (const [name, options] of Object.entries(PROTO_VARIANTS)) {
    fns[`proto ${name}`] = async () => {
      const t = performance.now();
      const { entries, zodCalls } = await protoParse(readChunks(params.file), options);
      const parseMs = performance.now() - t;
      return { parseMs, zodCalls, ...finish(entries) };
    };
  }
  return { fns, info };
}

async function openFull(params: OpenParams) {
  return (await parseSessionJsonl(readChunks(params.file))).entries;
}
