/**
 * Child of tests/deno/entry_points.test.ts: imports only the `@mu/sessions` entry (mod.ts),
 * so nothing else has registered storage. Creates a session in the JSONL folder `argv[1]` and
 * one in the configured default store (`$PI_CODING_AGENT_DIR`), appends, reopens and lists,
 * then prints what it saw as JSON.
 */
import { SessionManager } from "../../../mod.ts";

const [cwd, dir] = Deno.args;
const message = { role: "user" as const, content: "hello", timestamp: 1 };
const inDir = await SessionManager.create(cwd, dir);
await inDir.appendMessage(message);
const inDefault = await SessionManager.create(cwd);
await inDefault.appendMessage(message);
const reopened = await SessionManager.open(inDir.getSessionFile()!);
const listedDefault = await SessionManager.list(cwd);
console.log(JSON.stringify({
  dirFile: inDir.getSessionFile(),
  dirEntries: reopened.getEntries().length,
  dirListed: (await SessionManager.list(cwd, dir)).map((info) => info.id),
  dirId: inDir.getSessionId(),
  defaultKind: inDefault.getSessionStore().kind,
  defaultId: inDefault.getSessionId(),
  defaultListed: listedDefault.map((info) => info.id),
}));
