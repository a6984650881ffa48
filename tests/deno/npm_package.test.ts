/**
 * The npm manifest agrees with deno.json: the same entry points (package.json `exports` is
 * the map npm/exports.ts derives from deno.json `exports`) and the same versions of the
 * runtime dependencies. The slow end-to-end check of the packed package is
 * tests/package/consumer.test.ts.
 */
import { assert, assertEquals } from "../conformance/assert.ts";
import { packageExports } from "../../npm/exports.ts";
import { rewriteDeclarationImports } from "../../npm/build.ts";
import { publishedManifest, rewriteMarkdownLinks } from "../../npm/published.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const deno = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
const pkg = JSON.parse(await Deno.readTextFile(`${ROOT}package.json`));

Deno.test("package.json exports are the ones derived from deno.json exports", () => {
  assertEquals(
    pkg.exports,
    packageExports(deno.exports),
    "run `deno task build:npm --write-exports` after changing deno.json exports",
  );
});

Deno.test("every deno.json export target exists", async () => {
  for (const source of Object.values(deno.exports) as string[]) {
    assert((await Deno.stat(`${ROOT}${source}`)).isFile, `${source} is missing`);
  }
});

Deno.test("the main entry is the core for browsers and edge runtimes, mod.ts for Deno and Node", () => {
  const dot = pkg.exports["."];
  for (const condition of ["browser", "worker", "workerd", "edge-light", "default"]) {
    assertEquals(dot[condition].default, "./dist/npm/core.js", condition);
  }
  for (const condition of ["deno", "node"]) {
    assertEquals(dot[condition].default, "./dist/npm/mod.js", condition);
  }
  // Conditions match in object order: browser-like runtimes that also set `node` get the core.
  const order = Object.keys(dot);
  assert(order.indexOf("workerd") < order.indexOf("node"), "workerd before node");
  assertEquals(order.at(-1), "default");
});

Deno.test("npm dependencies pin the versions deno.json imports", () => {
  const pinned = (name: string) => deno.imports[name]?.replace(`npm:${name}@`, "");
  for (const name of Object.keys(pkg.dependencies)) {
    assertEquals(pkg.dependencies[name], pinned(name), name);
  }
  // A peer is what the consumer installs: a caret range over the tested major version, never
  // one exact version (two packages pinning different patches could not share one copy).
  for (const [name, range] of Object.entries(pkg.peerDependencies) as [string, string][]) {
    const tested: string = pkg.devDependencies[name];
    assert(range.startsWith(`^${tested.split(".")[0]}.`), `${name}: ${range} (tested ${tested})`);
  }
  assertEquals(pkg.peerDependencies.postgres, `^${pinned("postgres")}`);
  assertEquals(
    pkg.peerDependencies["@sqlite.org/sqlite-wasm"],
    `^${pinned("@sqlite.org/sqlite-wasm")}`,
  );
  // Optional peers: npm installs neither, so Node 20 sees no engine warning from sqlite-wasm.
  for (const name of Object.keys(pkg.peerDependencies)) {
    assertEquals(pkg.peerDependenciesMeta[name], { optional: true }, name);
    assert(!(name in pkg.dependencies), `${name} is a peer, not a dependency`);
  }
  assertEquals(pkg.engines, { node: ">=20" });
});

Deno.test("no install hook runs in a consumer's install", () => {
  for (const hook of ["preinstall", "install", "postinstall", "prepare"]) {
    assertEquals(pkg.scripts[hook], undefined, hook);
  }
});

Deno.test("declaration imports of .ts files become .js, other strings stay", () => {
  assertEquals(
    rewriteDeclarationImports(
      `export * from "./core.ts";\nimport type { X } from '../../src/a.ts';\n` +
        `type Y = import("./b.ts").Y;\n// read(path="a.ts")\nimport "zod";`,
    ),
    `export * from "./core.js";\nimport type { X } from '../../src/a.js';\n` +
      `type Y = import("./b.js").Y;\n// read(path="a.ts")\nimport "zod";`,
  );
});

Deno.test("the published package.json carries no scripts or development dependencies", () => {
  const published = publishedManifest(pkg);
  for (const field of ["scripts", "devDependencies", "allowScripts"]) {
    assertEquals(published[field], undefined, field);
  }
  for (const field of ["name", "version", "exports", "bin", "dependencies", "peerDependencies"]) {
    assertEquals(published[field], pkg[field], field);
  }
});

Deno.test("packed Markdown links go where the package holds the file; others keep their text", () => {
  const packed = new Map([
    ["docs/cli.md", "dist/npm/docs/cli.md"],
    ["docs/edge.md", "dist/npm/docs/edge.md"],
  ]);
  const readme = "See [the CLI](docs/cli.md#ls), [bench](bench/README.md) and " +
    "[site](https://x.dev/a.md).\n![shot](docs/viewer.png)\n```md\n[kept](docs/none.md)\n```";
  assertEquals(
    rewriteMarkdownLinks(readme, "README.md", "README.md", packed),
    "See [the CLI](dist/npm/docs/cli.md#ls), bench and [site](https://x.dev/a.md).\n\n" +
      "```md\n[kept](docs/none.md)\n```",
  );
  // A guide's links: its neighbours stay relative, the checkout's other files lose the link.
  assertEquals(
    rewriteMarkdownLinks(
      "[edge](edge.md) [api](../api/report.md) [top](#top)",
      "docs/cli.md",
      "dist/npm/docs/cli.md",
      packed,
    ),
    "[edge](edge.md) api [top](#top)",
  );
});
