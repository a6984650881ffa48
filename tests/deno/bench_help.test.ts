/**
 * `deno task bench --help` (the way a newcomer asks what the benchmarks take) prints the
 * flags and exits, rather than starting a full run that holds both cores for many minutes.
 */
import { assert, assertEquals } from "../conformance/assert.ts";

const RUN = new URL("../../bench/run.ts", import.meta.url).pathname;

Deno.test("bench --help prints the flags and starts nothing", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", RUN, "--help"],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A run that started instead of printing help is stopped, and the test fails.
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const { code, stdout } = await child.output();
  clearTimeout(timer);
  const text = new TextDecoder().decode(stdout);
  assertEquals(code, 0, text);
  assert(text.includes("--smoke") && text.includes("--only="), text);
  assert(!text.includes("data ready"), "no benchmark data was prepared");
});
