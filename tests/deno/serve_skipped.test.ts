/**
 * "This computer" does not leave out a file silently: `GET /api/sessions` names each file
 * the listing could not read (path, reason, line; never the file's text), a second copy of
 * a session is not counted as unreadable, and the viewer's store (`HttpSessionStore`)
 * reports each through `onSkipped`, as any store does.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MemorySessionStore, SessionFormatError } from "../../core.ts";
import type { SkippedSession } from "../../src/store.ts";
import { SourcesSessionStore } from "../../stores/default/sources.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { HttpSessionStore } from "../../stores/http/store.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import type { SkippedView } from "../../web/api/skipped.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { fixturePath } from "../unit/fixtures.ts";

const BASE = "http://127.0.0.1:4173/";
/** A line that is not JSON; the parser's message quotes it whole. */
const SECRET = "hunter2";

Deno.test("GET /api/sessions names the files it could not read, without their text", async () => {
  const dir = await tempDir("mu-skipped-");
  try {
    const v4 = await readFile(fixturePath("codec/v4.jsonl"), "utf8");
    await mkdir(join(dir, "--p--"));
    await writeFile(join(dir, "--p--", "good.jsonl"), v4);
    await writeFile(join(dir, "--p--", "other.jsonl"), v4.replaceAll("0b7c3f5e", "2b7c3f5e"));
    const [header, ...rest] = v4.trimEnd().split("\n");
    const broken = join(dir, "--p--", "broken.jsonl");
    await writeFile(broken, `${header.replace("0b7c3f5e", "1b7c3f5e")}\n${SECRET}\n${rest[0]}\n`);
    // The configured store holds the same session as good.jsonl: a second copy, not unreadable.
    const configured = new MemorySessionStore();
    const lines = v4.trimEnd().split("\n").map((line) => JSON.parse(line));
    await configured.create(lines[0], lines.slice(1));
    const store = new SourcesSessionStore([
      { label: "configured store", location: "memory", store: configured },
      { label: "pi sessions folder", location: dir, store: await openJsonlFsStore(dir) },
    ]);
    const api = createSessionApi({ store });
    const get = async (path: string) => await (await api(new Request(new URL(path, BASE))))!.json();

    const first = await get("/api/sessions?limit=1");
    assertEquals(first.sessions.length, 1);
    assertEquals(first.skipped.length, 1, JSON.stringify(first.skipped));
    const [item] = first.skipped as SkippedView[];
    assertEquals([item.path, item.error, item.line], [broken, "SessionFormatError", 2]);
    assert(item.reason.includes("not valid JSON"), item.reason);
    assert(!JSON.stringify(first).includes("hunter2"), "the file's text is not sent");
    // Later pages do not repeat the list.
    assertEquals(first.total, 2);
    assertEquals((await get("/api/sessions?limit=1&cursor=1")).skipped, undefined);

    // The viewer's store reports it as every store does.
    const viewer = new HttpSessionStore({
      baseUrl: BASE,
      fetch: async (request) => (await api(request))!,
    });
    const reported: SkippedSession[] = [];
    const rows = await viewer.list({ onSkipped: (skipped) => reported.push(skipped) });
    assertEquals(rows.length, 2);
    assertEquals(reported.map((r) => r.path), [broken]);
    assert(reported[0].error instanceof SessionFormatError);
    assertEquals((reported[0].error as SessionFormatError).line, 2);
    await store.close();
  } finally {
    await removeDir(dir);
  }
});
