/**
 * The edge bundle stays lean (issue 17): `web/edge.ts` bundled and minified as an edge
 * platform would is at most 40 KB gzip, with no zod in it at all (parsing validates with
 * `src/_entry_check.ts`; evaluating zod and building its schemas cost 20-40 ms of every cold
 * start) and no `node:` import.
 */
import * as esbuild from "esbuild";

function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

Deno.test("edge bundle: <= 40 KB minified + gzip, no zod, no node: imports", async () => {
  const result = await esbuild.build({
    entryPoints: [new URL("../../web/edge.ts", import.meta.url).pathname],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "edge-light"],
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  await esbuild.stop();
  const bytes = result.outputFiles[0].contents;
  const gzip = await new Response(
    new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new CompressionStream("gzip"),
    ),
  ).arrayBuffer();
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const zod = Object.keys(inputs).filter((path) =>
    /\/zod\//.test(path) && inputs[path].bytesInOutput > 0
  );
  assert(zod.length === 0, `zod in the bundle: ${zod.slice(0, 3).join(", ")}`);
  assert(gzip.byteLength <= 40 * 1024, `${gzip.byteLength} bytes gzip`);
  assert(!/\bfrom\s*"node:|require\("node:/.test(new TextDecoder().decode(bytes)), "node: import");
});
