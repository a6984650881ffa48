/**
 * Finds the library pieces a benchmark uses, tolerating the ones not written yet: each
 * lookup returns the piece or a string saying why it is unavailable, and the harness
 * reports "not available yet" instead of crashing. Modules are imported by a computed
 * URL (Deno) so a missing file is a runtime answer, not a type-check failure; the Node
 * build registers the modules it bundled in `globalThis.__benchModules`.
 *
 * Store APIs are feature-tested: only the `SessionStore` seam is relied on.
 * @module
 */
import { stat } from "node:fs/promises";
import type { SessionEntry, SessionStore } from "../core.ts";
import { runtimeName } from "./rt.ts";

type Module = Record<string, unknown>;
/** A piece that is present, or why it is not. */
export type Maybe<T> = T | string;

const root = new URL("../", import.meta.url);

/** Import a repo module by relative path, or explain why it is not available. */
export async function loadModule(path: string): Promise<Maybe<Module>> {
  const bundled = (globalThis as { __benchModules?: Record<string, Module> }).__benchModules;
  if (bundled) {
    return bundled[path] ?? `not available yet (${path} not in the ${runtimeName} build)`;
  }
  const url = new URL(path, root);
  if (!(await stat(url.pathname).catch(() => null))) return `not available yet (${path} missing)`;
  try {
    return await import(url.href) as Module;
  } catch (error) {
    return `not available yet (${path} failed to load: ${(error as Error).message.split("\n")[0]})`;
  }
}

/** `(entries, leafId, index?) => projection`. */
export type Projector = (
  entries: readonly SessionEntry[],
  leafId: string | null,
  index?: unknown,
) => { messages: unknown[] };

export async function projector(): Promise<Maybe<Projector>> {
  const mod = await loadModule("src/projection.ts");
  if (typeof mod === "string") return mod;
  const fn = mod.buildSessionProjection;
  return typeof fn === "function"
    ? fn as Projector
    : "not available yet (no buildSessionProjection)";
}

/** A store with the optional capabilities the benchmarks probe. */
export type BenchStore = SessionStore;

/** How to open one kind of store over a path. */
export interface StoreDriver {
  /** "sqlite (node:sqlite)", "jsonl (fs)", ... */
  label: string;
  /** Open over a database file / folder. `durable: "fsync"` asks for a sync per commit. */
  open(
    path: string,
    options?: { durability?: "default" | "fsync" | "relaxed"; listingCache?: boolean },
  ): Promise<BenchStore>;
  /** What the store does for durability, in words, for the report. */
  durability: Record<string, string>;
}

/** The SQLite store of this runtime. */
export async function sqliteDriver(): Promise<Maybe<StoreDriver>> {
  const path = "stores/sqlite/file.ts";
  const mod = await loadModule(path);
  if (typeof mod === "string") return mod;
  const open = mod.openSqliteStore as
    | ((path: string, options?: Record<string, unknown>) => Promise<BenchStore>)
    | undefined;
  if (typeof open !== "function") return `not available yet (${path} has no openSqliteStore)`;
  const synchronous = { default: undefined, fsync: "FULL", relaxed: "NORMAL" };
  return {
    label: `sqlite (${runtimeName === "deno" ? "node:sqlite" : "better-sqlite3"})`,
    open: (file, options = {}) => {
      const level = synchronous[options.durability ?? "default"];
      return open(file, level ? { synchronous: level } : {});
    },
    durability: {
      default: "WAL, SQLite's default synchronous=FULL: the WAL is fsynced at every commit",
      fsync: "synchronous=FULL (same as default)",
      relaxed: "synchronous=NORMAL: no fsync per commit, only at checkpoints",
    },
  };
}

/** The JSONL folder store (Deno and Node file systems). */
export async function jsonlDriver(): Promise<Maybe<StoreDriver>> {
  const mod = await loadModule("stores/jsonl/fs.ts");
  if (typeof mod === "string") return mod;
  // Feature-test the factory: an `open…Store(dir)` function or a class with a static open.
  const factory = Object.entries(mod).find(([name, value]) =>
    typeof value === "function" && /^open\w*Store$/.test(name)
  )?.[1] as ((dir: string, options?: Record<string, unknown>) => Promise<BenchStore>) | undefined;
  // Options a store version does not know are ignored by it (then the rows show no change).
  const options = (asked: Parameters<StoreDriver["open"]>[1] = {}) => ({
    durability: asked.durability === "relaxed" ? "relaxed" : "durable",
    persistListingCache: asked.listingCache ?? true,
  });
  const ctor = Object.values(mod).find((value) =>
    typeof value === "function" && typeof (value as { open?: unknown }).open === "function"
  ) as { open(dir: string): Promise<BenchStore> } | undefined;
  if (!factory && !ctor) return "not available yet (stores/jsonl/fs.ts has no store factory)";
  return {
    label: `jsonl (${runtimeName} fs)`,
    open: (dir, asked) => factory ? factory(dir, options(asked)) : ctor!.open(dir),
    durability: {
      default: "every append is written and fsynced before the promise resolves; " +
        "appends in flight together share one fsync",
      relaxed: 'durability: "relaxed": written to the OS, no fsync (like the older tools)',
    },
  };
}
