/** Shared bits of the JSONL store tests (Deno and Node). */
import { existsSync } from "node:fs";
import { cp, readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionEntry, SessionHeader } from "../../core.ts";

/** The repository root (for fixtures): found upward, as tests also run bundled from dist/. */
export const repoRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "deno.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir + "/";
})();

/** Copy a fixture folder (e.g. `pi-layout`) into `dir`. */
export async function copyFixture(name: string, dir: string): Promise<void> {
  await cp(join(repoRoot, "fixtures", name), dir, { recursive: true });
}

/** Every file under `dir` (relative path → bytes as text), to prove nothing changed. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    out.set(path.slice(dir.length + 1), await readFile(path, "latin1"));
  }
  return out;
}

let n = 0;
/** A format-4 header. */
export function v4Header(id: string, cwd = "/work/project"): SessionHeader {
  return {
    type: "session",
    version: 4,
    id,
    createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, n++)).toISOString(),
    cwd,
  };
}

/** A user message entry. */
export function user(id: string, parentId: string | null, text = `text ${id}`): SessionEntry {
  const ms = Date.UTC(2026, 1, 2, 0, 0, 0, n++);
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(ms).toISOString(),
    message: { role: "user", content: text, timestamp: ms },
  };
}

/** `count` chained user entries with ids `<prefix>0000001`... */
export function chain(prefix: string, count: number, parentId: string | null = null) {
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    const entry = user(`${prefix}${String(i + 1).padStart(7, "0")}`, parentId);
    entries.push(entry);
    parentId = entry.id;
  }
  return entries;
}

/**
 * A Deno process running tests/jsonl/append_child.ts: `count` single-entry appends by
 * `tag` to `sessionId` in the folder `dir` (spawn it, or take its output).
 */
export function appendChildCommand(
  dir: string,
  sessionId: string,
  tag: string,
  count: number,
): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${repoRoot}deno.json`,
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      `${repoRoot}tests/jsonl/append_child.ts`,
      dir,
      sessionId,
      tag,
      String(count),
    ],
    cwd: repoRoot,
    stdout: "piped",
    stderr: "piped",
  });
}
