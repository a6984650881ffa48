/**
 * Format verdicts the store contract adds: a Git LFS pointer is named as one, on the
 * parser's path and the JSONL store's.
 */
import { assertEquals, assertRejects } from "../conformance/assert.ts";
import {
  importSession,
  InvalidArgumentError,
  MemorySessionStore,
  parseSessionJsonl,
  SessionFormatError,
} from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";

const LFS_POINTER = "version https://git-lfs.github.com/spec/v1\n" +
  "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";

Deno.test("a Git LFS pointer is reported as one, not as invalid JSON", async () => {
  const error = await assertRejects(() => parseSessionJsonl(LFS_POINTER), SessionFormatError);
  assertEquals(error.line, 1);
  assertEquals(error.reason, "Git LFS pointer, not a session; run git lfs pull");
});

Deno.test("a JSONL folder holding a Git LFS pointer names it when the session is opened or listed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/2026-01-01T00-00-00-000Z_pointer.jsonl`, LFS_POINTER);
    const store = await openJsonlFsStore(dir, { trashCommand: false });
    const skipped: string[] = [];
    assertEquals(await store.list({ onSkipped: (s) => skipped.push(s.error.message) }), []);
    assertEquals(skipped.length, 1);
    assertEquals(skipped[0].includes("Git LFS pointer, not a session; run git lfs pull"), true);
    await store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the JSONL store leaves no file behind for a header create refuses", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await openJsonlFsStore(dir, { trashCommand: false });
    const header = { type: "session", version: 4, id: "s1", cwd: "/p" } as never; // no createdAt
    await assertRejects(() => store.create(header), InvalidArgumentError);
    assertEquals(
      [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => !n.startsWith(".")),
      [],
    );
    await store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("import refuses a session whose parent links form a cycle, naming the line", async () => {
  const line = (id: string, parentId: string | null) =>
    JSON.stringify({
      type: "label",
      id,
      parentId,
      timestamp: "2026-01-01T00:00:00.000Z",
      targetId: id,
    });
  const jsonl = [
    JSON.stringify({
      type: "session",
      version: 4,
      id: "c1",
      createdAt: "2026-01-01T00:00:00.000Z",
      cwd: "/p",
    }),
    line("r", null),
    line("a", "b"),
    line("b", "a"),
  ].join("\n") + "\n";
  const dir = await Deno.makeTempDir();
  try {
    const stores = [new MemorySessionStore(), await openJsonlFsStore(dir, { trashCommand: false })];
    for (const store of stores) {
      const outcome = await importSession(store, jsonl, { source: "cycle.jsonl" });
      assertEquals(outcome.status, "invalid", store.kind);
      const error = (outcome as { error: SessionFormatError }).error;
      assertEquals([error instanceof SessionFormatError, error.line], [true, 3]);
      assertEquals(error.message.includes("cycle.jsonl"), true);
      assertEquals(await store.has("c1"), false);
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
