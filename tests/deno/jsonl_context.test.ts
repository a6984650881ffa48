/**
 * The JSONL store's `loadContext` over real files, fast pass and fallback alike: for every
 * codec and projection fixture copied into a folder, the context-only projection equals the
 * projection of `load`, and a file `load` refuses (torn tail, invalid entry, future
 * version, ...) is refused by `loadContext` with the same error.
 */
import { buildSessionProjection, EntryNotFoundError } from "../../core.ts";
import { loadSessionProjection, projectLoadedContext } from "../../src/context_load.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { copyFixtures } from "../jsonl/fixture_folder.ts";

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
