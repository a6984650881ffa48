/**
 * What browser and edge users ship: the core, the IndexedDB store, the viewer's worker and
 * the edge handler, each bundled as a user's bundler would (`tools/bundle_size.ts`), hold no
 * zod module: the library validates without it, and only `@mu/sessions/schema` loads it.
 * The edge handler reaches the library through `core.ts`, as any user does, and ships none
 * of the core's store code: importing the core has no side effect that keeps it. Their sizes
 * are bench rows (`bench/cases/bundles.ts`), not asserted here.
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

Deno.test("@mu/sessions/edge: no store code in its bundle (the core keeps none by side effect)", async () => {
  try {
    const edge = RUNTIME_BUNDLES.find((subject) => subject.file === "web/edge.ts")!;
    const measure = await bundleEntry(edge);
    // The memory store, the guards every store passes and the stored-record layer: the
    // handler parses and projects, it never stores.
    const storeModules = ["src/memory_store.ts", "src/guarded_store.ts", "src/_records.ts"];
    assertEquals(measure.inputs.filter((path) => storeModules.includes(path)), []);
    assert(measure.inputs.includes("src/projection.ts"), "the bundle holds no projection");
  } finally {
    await stopBundler();
  }
});

Deno.test("@mu/sessions/edge: none of the parser's store-only paths in its bundle", async () => {
  try {
    const edge = RUNTIME_BUNDLES.find((subject) => subject.file === "web/edge.ts")!;
    const measure = await bundleEntry(edge);
    // The JSONL store's checking pass takes lines before decoding them; the handler decodes
    // every line it parses.
    assertEquals(measure.inputs.filter((path) => path === "src/_jsonl_shortcut.ts"), []);
    // A streaming read hands entries over batch by batch (the JSONL store's `streamExact`);
    // the handler parses a whole body. Method names survive minification.
    for (const method of ["streamableHeader", "takeEntries"]) {
      assert(!measure.code.includes(method), `${method} is in the edge bundle`);
    }
    assert(measure.inputs.includes("src/jsonl.ts"), "the bundle holds no parser");
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

Deno.test("stores/http: HttpSessionStore alone carries no hosted-export reader", async () => {
  try {
    // `stores/http` also exports HostedSessionStore; a client of `mu serve` (the viewer's
    // worker reading "this computer") must not keep it, nor the range reader under it, by
    // a side effect of that module.
    const measure = await bundleEntry({
      name: "HttpSessionStore only",
      file: "tests/package/entries/http_client.ts",
      platform: "browser",
    });
    assert(measure.inputs.includes("stores/http/store.ts"), "the bundle holds no HttpSessionStore");
    // A top-level constant of these modules may stay (a few bytes); their code may not.
    const hostedReader = [
      "stores/http/hosted.ts",
      "src/_range_reader.ts",
      "src/_range_blocks.ts",
      "src/export_index.ts",
      "src/projection.ts",
    ];
    const carried = hostedReader.filter((path) => (measure.inputBytes[path] ?? 0) > 64);
    assertEquals(carried, [], `bytes by module: ${JSON.stringify(measure.inputBytes)}`);
  } finally {
    await stopBundler();
  }
});
