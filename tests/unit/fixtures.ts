/**
 * Fixture access that works from the Deno test tree and from the Node bundle in
 * dist/node-tests/ alike: the repo root is found by walking up to deno.json.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "deno.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("repository root (deno.json) not found");
    dir = parent;
  }
  return dir;
}

/** Absolute path of the repository root. */
export const repoRoot: string = findRoot();

/** Absolute path of a file under fixtures/. */
export function fixturePath(relative: string): string {
  return join(repoRoot, "fixtures", relative);
}

/** Raw bytes of a fixture. */
export function fixtureBytes(relative: string): Uint8Array {
  return new Uint8Array(readFileSync(fixturePath(relative)));
}

/** A fixture as text. */
export function fixtureText(relative: string): string {
  return readFileSync(fixturePath(relative), "utf8");
}

/** Parsed JSON fixture. */
export function fixtureJson<T = unknown>(relative: string): T {
  return JSON.parse(fixtureText(relative)) as T;
}

/** Names (without extension) of fixtures in a folder with the given extension. */
export function fixtureNames(folder: string, extension = ".jsonl"): string[] {
  return readdirSync(fixturePath(folder))
    .filter((name) => name.endsWith(extension))
    .map((name) => name.slice(0, -extension.length))
    .sort();
}

/** A byte stream that delivers `bytes` in chunks of varying small sizes (exercises split UTF-8). */
export function chunkedStream(
  bytes: Uint8Array,
  sizes = [1, 7, 3, 64, 2, 13],
): ReadableStream<Uint8Array> {
  let offset = 0;
  let turn = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      const size = sizes[turn++ % sizes.length];
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}
