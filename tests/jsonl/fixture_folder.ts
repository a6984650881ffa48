/**
 * The codec, projection and SQLite fixtures copied into one JSONL folder (one file per
 * header id), plus two refused variants of a valid file, for the JSONL store tests that
 * compare a fast path with the full load over real files (tests/deno/jsonl_context.test.ts,
 * tests/deno/jsonl_lazy.test.ts).
 *
 * @module
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { repoRoot } from "../unit/fixtures.ts";

/** Copy every `.jsonl` of the fixture folders into `dir`; the header ids found, by file. */
export async function copyFixtures(dir: string): Promise<Map<string, string>> {
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
