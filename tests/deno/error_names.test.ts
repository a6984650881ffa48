/**
 * Error names survive minification: the README promises `error.name` equals the class name
 * (callers match on it, and it crosses worker boundaries), but minifiers rename classes, and
 * the minified viewer once showed `mt: line 1: ...`. Each entry is bundled the way a
 * browser app or a Node bundle would bundle it (esbuild, `minify: true`), then every exported
 * error class is constructed from the bundle.
 */
import * as esbuild from "esbuild";
import { assert, assertEquals } from "../conformance/assert.ts";

const root = new URL("../../", import.meta.url).pathname;

/** The named exports of `entry` bundled and minified, loaded from a temporary file. */
async function minifiedExports(
  entry: string,
  platform: "browser" | "node",
): Promise<Record<string, unknown>> {
  const result = await esbuild.build({
    entryPoints: [`${root}${entry}`],
    bundle: true,
    format: "esm",
    platform,
    minify: true,
    write: false,
    logLevel: "silent",
  });
  const dir = await Deno.makeTempDir({ prefix: "mu-minified-" });
  try {
    const file = `${dir}/bundle.mjs`;
    await Deno.writeTextFile(file, result.outputFiles[0].text);
    return await import(`file://${file}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

type ErrorClass = new (...args: unknown[]) => Error;

/** Exported classes whose instances are Errors, by export name. */
function errorClasses(exports: Record<string, unknown>): Map<string, ErrorClass> {
  const found = new Map<string, ErrorClass>();
  for (const [name, value] of Object.entries(exports)) {
    if (typeof value === "function" && value.prototype instanceof Error) {
      found.set(name, value as ErrorClass);
    }
  }
  return found;
}

Deno.test("every error class keeps its name in a minified bundle", async () => {
  try {
    const core = errorClasses(await minifiedExports("core.ts", "browser"));
    const jsonl = errorClasses(await minifiedExports("stores/jsonl/fs.ts", "node"));
    assertEquals([...core.keys()].sort(), [
      "EntryConflictError",
      "EntryNotFoundError",
      "InvalidArgumentError",
      "SessionError",
      "SessionExistsError",
      "SessionFormatError",
      "SessionNotFoundError",
      "SessionStorageError",
    ]);
    assert(jsonl.has("TornTailError"), "the JSONL entry exports TornTailError");
    // The minifier did rename the classes, so the names below come from the literals.
    assert(core.get("SessionFormatError")!.name !== "SessionFormatError", "classes renamed");
    for (const classes of [core, jsonl]) {
      for (const [name, ErrorClass] of classes) {
        const error = new ErrorClass("s1", 7);
        assertEquals(error.name, name);
        assert(String(error).startsWith(`${name}: `), String(error));
      }
    }
  } finally {
    await esbuild.stop();
  }
});
