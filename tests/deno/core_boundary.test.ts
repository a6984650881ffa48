/**
 * The seam points one way: the core (`core.ts` and `src/`) never imports drivers (`stores/`),
 * the viewer (`web/`) or anything else outside `src/`, and nothing reachable from the
 * runtime-agnostic entry needs a Deno, Node or DOM API, so browsers, workers and edge
 * runtimes can load it. Checked on the module graph `deno info` resolves from `core.ts` and
 * from every file in `src/` (files the entry does not reach are core too). The edge handler
 * imports only that entry, and neither reaches zod (only `@mu/sessions/schema` does).
 */
import { assert, assertEquals } from "../conformance/assert.ts";

const root = new URL("../../", import.meta.url);
const srcDir = new URL("src/", root).href;
const coreEntry = new URL("core.ts", root).href;

interface GraphModule {
  kind: string;
  specifier: string;
  dependencies?: {
    specifier: string;
    code?: { specifier: string };
    type?: { specifier: string };
  }[];
}

async function moduleGraph(file: string): Promise<GraphModule[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL(file).pathname],
    cwd: root.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout)).modules;
}

async function coreRoots(): Promise<string[]> {
  const roots = [coreEntry];
  for await (const item of Deno.readDir(new URL("src/", root))) {
    if (item.isFile && item.name.endsWith(".ts")) roots.push(`${srcDir}${item.name}`);
  }
  return roots.sort();
}

const isCore = (specifier: string) => specifier === coreEntry || specifier.startsWith(srcDir);
const relative = (specifier: string) => specifier.replace(root.href, "");
/** Bare or `npm:` specifiers name a package; only zod is a dependency of the core. */
const packageOf = (specifier: string) => {
  const bare = specifier.replace(/^npm:/, "");
  const parts = bare.split("/");
  return (bare.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]).replace(/@[^/]*$/, "");
};

/** Every dependency edge written in a core module, with what it resolved to. */
async function coreImports(): Promise<{ from: string; written: string; resolved?: string }[]> {
  const edges = new Map<string, { from: string; written: string; resolved?: string }>();
  for (const file of await coreRoots()) {
    for (const module of await moduleGraph(file)) {
      if (module.kind !== "esm" || !isCore(module.specifier)) continue;
      for (const dependency of module.dependencies ?? []) {
        const edge = {
          from: relative(module.specifier),
          written: dependency.specifier,
          resolved: dependency.code?.specifier ?? dependency.type?.specifier, // type-only: `type`
        };
        edges.set(`${edge.from} ${edge.written}`, edge);
      }
    }
  }
  return [...edges.values()];
}

Deno.test("core and src/ import only src/ files and zod", async () => {
  const outside = (await coreImports()).filter(({ written, resolved }) => {
    if (written.startsWith(".") || written.startsWith("file:")) {
      return !resolved || !isCore(resolved);
    }
    return packageOf(written) !== "zod"; // node:*, jsr:, https:, and any npm package but zod
  }).map(({ from, written }) => `${from} imports ${written}`);
  assertEquals(outside, []);
});

/**
 * Globals that exist only in Deno, Node or a page (window/DOM); workers and edges lack them.
 * Not after a `.` other than `globalThis.`: `this.window` is a property, not the global.
 */
const RUNTIME_ONLY =
  /(?<![\w$])(?<!(?<!globalThis)\.)(Deno\.|process\.|require\(|__dirname|Buffer\.|document\.|window\.|localStorage|sessionStorage|indexedDB|navigator\.)/;

/** Source without comments, so documentation may mention these names. */
function codeOf(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

Deno.test("nothing in the core uses a Deno, Node or DOM-only global", async () => {
  const found: string[] = [];
  for (const file of await coreRoots()) {
    const lines = codeOf(await Deno.readTextFile(new URL(file))).split("\n");
    lines.forEach((line, index) => {
      const match = RUNTIME_ONLY.exec(line);
      if (match) found.push(`${relative(file)}:${index + 1} uses ${match[1]}`);
    });
  }
  assertEquals(found, []);
});

const isZod = (specifier: string) =>
  packageOf(specifier) === "zod" || /\/node_modules\/(\.deno\/)?zod[@/]/.test(specifier);

Deno.test("core.ts reaches no zod module, not even for types", async () => {
  const reached = (await moduleGraph(coreEntry)).map((module) => module.specifier);
  assertEquals(reached.filter(isZod).map(relative), []);
});

Deno.test("the edge handler reaches the library through core.ts, and no zod", async () => {
  const edge = new URL("web/edge.ts", root).href;
  const ownHelper = (specifier: string) =>
    specifier === edge || /\/web\/_[a-z_]+\.ts$/.test(specifier) && specifier.startsWith(root.href);
  const reached = (await moduleGraph(edge)).map((module) => module.specifier);
  const outside = reached.filter((specifier) => !isCore(specifier) && !ownHelper(specifier));
  assertEquals(outside.map(relative), []);
  assert(reached.includes(coreEntry), "the handler imports core.ts, as a user does");
});
