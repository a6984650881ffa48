/**
 * Child of tests/deno/entry_points.test.ts: imports only `@mu/sessions/core` (core.ts), where
 * path-based factories have no storage, and prints the error they reject with as JSON.
 */
import { SessionManager } from "../../../core.ts";

const [cwd, dir] = Deno.args;
try {
  await SessionManager.create(cwd, dir);
  console.log(JSON.stringify({ created: true }));
} catch (error) {
  const { name, message } = error as Error;
  console.log(JSON.stringify({ name, message }));
}
