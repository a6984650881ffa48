/**
 * The JSONL store's `loadContext` over real files, fast pass and fallback alike: for every
 * codec and projection fixture copied into a folder, the context-only projection equals the
 * projection of `load`, and a file `load` refuses (torn tail, invalid entry, future
 * version, ...) is refused by `loadContext` with the same error.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildSessionProjection, EntryNotFoundError } from "../../core.ts";
import { loadSessionProjection, projectLoadedContext } from "../../src/context_load.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { repoRoot } from "../unit/fixtures.ts";

/** Copy every `.jsonl` of the fixture folders into `dir`; the header ids found, by file. */
async function copyFixtures(dir: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const folder of ["codec", "projection", "sqlite"]) {
    const from = join(repoRoot, "fixtures", folder);
    for (const name of (await readdir(from)).filter((n) => n.endsWith(".jsonl"))) {
      const text = await readFile(join(from, name), "utf8");
      let id: string | undefined;
      try {
        id = JSON.parse(text.replace(/^\uFEFF/, "").split("\n")[0]).id;
      } catch {
        continue; // no readable header: the store cannot find it by id anyway
      }
      if (typeof id !== "string" || [...ids.values()].includes(id)) continue;
      await writeFile(join(dir, `${folder}-${name}`), text);
      ids.set(`${folder}/${name}`, id);
    }
  }
  // and two refused variants of a valid file: an invalid entry in the middle, a torn tail
  const lines = (await readFile(join(repoRoot, "fixtures/projection/realistic.jsonl"), "utf8"))
    .split("\n").filter(Boolean);
  const variant = (id: string, edit: (lines: string[]) => string) => {
    const header = { ...JSON.parse(lines[0]), id };
    ids.set(`variant ${id}`, id);
    return writeFile(join(dir, `${id}.jsonl`), edit([JSON.stringify(header), ...lines.slice(1)]));
  };
  await variant("invalid-middle", (all) => {
    const broken = JSON.parse(all[5]);
    delete broken.parentId;
    all[5] = JSON.stringify(broken);
    return all.join("\n") + "\n";
  });
  await variant("torn-tail", (all) => all.join("\n").slice(0, -7));
  return ids;
}

Deno.test("jsonl loadContext equals load's projection, and refuses what load refuses", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const ids = await copyFixtures(dir);
    let refused = 0;
    let accepted = "";
    for (const [file, id] of ids) {
      const loaded = await store.load(id).catch((error: Error) => error);
      if (loaded instanceof Error) {
        const error = await store.loadContext(id).then(() => undefined, (e: Error) => e);
        assert(error, `${file}: loadContext accepted what load refuses`);
        assertEquals([error.constructor, error.message], [loaded.constructor, loaded.message]);
        refused++;
        continue;
      }
      accepted = id;
      const full = buildSessionProjection(loaded.entries, undefined);
      const context = projectLoadedContext(await store.loadContext(id));
      const fromStore = await loadSessionProjection(store, id);
      if (loaded.sourceVersion < 2) {
        // v1 upgrades generate fresh entry ids on every load: compare the shape
        assertEquals(fromStore.messages.length, full.messages.length, file);
        continue;
      }
      if (context) assertEquals(context, full, file);
      assertEquals(fromStore, full, file);
      for (const entry of loaded.entries) {
        assertEquals(
          await loadSessionProjection(store, id, entry.id),
          buildSessionProjection(loaded.entries, entry.id),
          `${file}, leaf ${entry.id}`,
        );
      }
    }
    assert(refused >= 3, `${refused} refused fixtures`);
    await assertRejects(() => store.loadContext(accepted, "no-such-entry"), EntryNotFoundError);
    await store.close();
  } finally {
    await removeDir(dir);
  }
});
