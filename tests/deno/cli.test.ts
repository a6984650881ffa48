/**
 * `cli.ts` (deno task project) as a user runs it: an unknown leaf is an error with exit
 * code 1 (never "context messages 0"), empty and non-JSON files are refused with the
 * parser's reasons, and missing parent ids are named.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { fixturePath, repoRoot } from "../unit/fixtures.ts";

async function project(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", join(repoRoot, "cli.ts"), ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, out: text(output.stdout), err: text(output.stderr) };
}

Deno.test("cli: an unknown leaf exits 1 with EntryNotFoundError", async () => {
  const { code, out, err } = await project(
    fixturePath("projection/realistic.jsonl"),
    "--leaf",
    "nosuch",
  );
  assertEquals(code, 1);
  assert(err.includes("EntryNotFoundError"), err);
  assert(!out.includes("context messages"), out);
});

Deno.test("cli: a known leaf still prints the context", async () => {
  const { code, out } = await project(
    fixturePath("projection/leaf-selection.jsonl"),
    "--leaf",
    "u1",
  );
  assertEquals(code, 0);
  assert(out.includes("context messages 1"), out);
});

Deno.test("cli: empty and non-JSON files are refused with the parser's reasons", async () => {
  const root = await tempDir("mu-cli-");
  try {
    await Deno.writeFile(join(root, "empty.jsonl"), new Uint8Array(0));
    await Deno.writeTextFile(join(root, "text.jsonl"), "not json");
    const empty = await project(join(root, "empty.jsonl"));
    assertEquals(empty.code, 1);
    assert(empty.err.includes("empty source: no session header"), empty.err);
    const text = await project(join(root, "text.jsonl"));
    assertEquals(text.code, 1);
    assert(text.err.includes("invalid JSON"), text.err);
    assert(!text.err.includes("torn"), text.err);
  } finally {
    await removeDir(root);
  }
});

Deno.test("cli: entries whose parent is missing: the missing ids are named", async () => {
  // leaf-selection has x1 whose parent "missing0" is not in the session.
  const { code, err } = await project(
    fixturePath("projection/leaf-selection.jsonl"),
    "--leaf",
    "x1",
  );
  assertEquals(code, 0);
  assert(err.includes("missing0"), err);
  const clean = await project(fixturePath("projection/realistic.jsonl"));
  assert(!clean.err.includes("warning"), clean.err);
});
