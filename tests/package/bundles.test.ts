/**
 * What browser and edge users ship: the core, the IndexedDB store, the viewer's worker and
 * the edge handler, each bundled as a user's bundler would (`tools/bundle_size.ts`), hold no
 * zod module: the library validates without it, and only `@mu/sessions/schema` loads it.
 * The edge handler reaches the library through `core.ts`, as any user does. Their sizes are
 * bench rows (`bench/cases/bundles.ts`), not asserted here.
 */
import { assert, assertEquals } from "../conformance/assert.ts";
import { bundleEntry, RUNTIME_BUNDLES, stopBundler, zodInputs } from "../../tools/bundle_size.ts";

for (const subject of RUNTIME_BUNDLES) {
  Deno.test(`${subject.name}: no zod module in its bundle`, async () => {
    try {
      const measure = await bundleEntry(subject);
      assert(measure.inputs.length > 0, "the bundle has no inputs");
      assertEquals(zodInputs(measure), []);
    } finally {
      await stopBundler();
    }
  });
}

Deno.test("@mu/sessions/schema: its bundle is where zod goes (the check above can see it)", async () => {
  try {
    const measure = await bundleEntry({
      name: "@mu/sessions/schema",
      file: "schema.ts",
      platform: "browser",
    });
    assert(zodInputs(measure).length > 0, "zod not found in the schema entry's bundle");
  } finally {
    await stopBundler();
  }
});

Deno.test("the edge handler imports the library through core.ts only", async () => {
  const source = await Deno.readTextFile(new URL("../../web/edge.ts", import.meta.url));
  const imports = [...source.matchAll(/^import[^;]*?from\s+"([^"]+)";/gms)].map((m) => m[1]);
  assert(imports.includes("../core.ts"), `edge.ts imports: ${imports.join(", ")}`);
  assertEquals(imports.filter((path) => path.startsWith("../src/")), []);
});
