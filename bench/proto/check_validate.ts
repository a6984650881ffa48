/**
 * Checks the prototype fast validator's one rule: whenever it says "valid", zod agrees.
 * Runs over every entry of a benchmark session, every fixture line, and mutants of them
 * (each field deleted, or replaced by a value of another JSON type), and reports how
 * often the fast path decides alone.
 *
 * `deno run -A bench/proto/check_validate.ts [session.jsonl]`
 * @module
 */
import { validateEntry } from "../../src/schema.ts";
import { fastValidEntry } from "./fast_validate.ts";

const REPO = new URL("../../", import.meta.url).pathname;
type Obj = Record<string, unknown>;

const samples: unknown[] = [];
const file = Deno.args[0];
if (file) {
  for (const line of (await Deno.readTextFile(file)).split("\n").slice(1)) {
    if (line) samples.push(JSON.parse(line));
  }
}
async function walk(dir: string): Promise<void> {
  for await (const item of Deno.readDir(dir)) {
    const path = `${dir}/${item.name}`;
    if (item.isDirectory) await walk(path);
    else if (item.name.endsWith(".jsonl")) {
      for (const line of (await Deno.readTextFile(path)).split("\n")) {
        try {
          const value = JSON.parse(line);
          if (value && typeof value === "object" && value.type !== "session") samples.push(value);
        } catch {
          // torn/invalid fixture lines are not entries
        }
      }
    }
  }
}
await walk(`${REPO}fixtures`).catch(() => {});

const ALTERNATIVES: unknown[] = [null, 1, "x", true, [], {}, [{}], [{ type: "text" }]];

/** Every value reachable by deleting or retyping one field somewhere in `value`. */
function* mutants(value: unknown, depth = 0): Generator<unknown> {
  if (depth > 4 || value === null || typeof value !== "object") return;
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Obj);
  for (const [key, child] of entries.slice(0, 12)) {
    const copy = (replacement: unknown, drop = false) => {
      if (Array.isArray(value)) {
        const out = [...value];
        if (drop) out.splice(Number(key), 1);
        else out[Number(key)] = replacement;
        return out;
      }
      const out = { ...(value as Obj) };
      if (drop) delete out[key];
      else out[key] = replacement;
      return out;
    };
    yield copy(undefined, true);
    for (const alt of ALTERNATIVES) yield copy(alt);
    for (const inner of mutants(child, depth + 1)) yield copy(inner);
  }
}

let checked = 0;
let fast = 0;
let wrong = 0;
const check = (value: unknown) => {
  checked++;
  if (!fastValidEntry(value)) return;
  fast++;
  const problem = validateEntry(value);
  if (problem && wrong++ < 10) {
    console.log(`fast said valid, zod: ${problem}\n  ${JSON.stringify(value).slice(0, 300)}`);
  }
};
const distinct = new Map<string, unknown>();
for (const sample of samples) {
  check(sample);
  const kind = `${(sample as Obj).type}:${
    ((sample as Obj).message as Obj | undefined)?.role ?? ""
  }`;
  if (!distinct.has(kind)) distinct.set(kind, sample);
}
const base = checked;
const fastBase = fast;
for (const sample of distinct.values()) for (const mutant of mutants(sample)) check(mutant);
console.log(
  `${base} entries: fast path decided ${fastBase} (${((100 * fastBase) / base).toFixed(1)}%); ` +
    `${checked - base} mutants of ${distinct.size} entry kinds: fast said valid ${
      fast - fastBase
    }; ` +
    `disagreements with zod: ${wrong}`,
);
if (wrong) Deno.exit(1);
