// A consumer program of the installed npm package, run by tests/package/consumer.test.ts
// from an empty project under Node and under Deno, twice: `create` makes one session in a
// JSONL folder and one in the default SQLite store ($PI_CODING_AGENT_DIR/sessions.db), each
// with one message; `reopen` (a second process) reopens both, appends a second message and
// lists them. It prints one JSON line for the test to check. Plain JavaScript: Node 20 runs
// it as written.
//
// Usage: node app.mjs create|reopen <jsonlDir> <stateFile>
import { readFile, writeFile } from "node:fs/promises";
import process from "node:process";
import { SessionManager } from "@mu/sessions";

const [mode, jsonlDir, stateFile] = process.argv.slice(2);
const cwd = process.cwd();
const say = (content) => ({ role: "user", content, timestamp: Date.now() });

if (mode === "create") {
  const inJsonl = await SessionManager.create(cwd, jsonlDir);
  await inJsonl.appendMessage(say("first in jsonl"));
  const inSqlite = await SessionManager.create(cwd);
  await inSqlite.appendMessage(say("first in sqlite"));
  const state = {
    jsonl: { id: inJsonl.getSessionId(), file: inJsonl.getSessionFile() },
    sqlite: { id: inSqlite.getSessionId() },
  };
  await writeFile(stateFile, JSON.stringify(state));
  console.log(JSON.stringify(state));
} else if (mode === "reopen") {
  const state = JSON.parse(await readFile(stateFile, "utf8"));
  const fromJsonl = await SessionManager.open(state.jsonl.file);
  await fromJsonl.appendMessage(say("second in jsonl"));
  const fromSqlite = await SessionManager.continueRecent(cwd);
  await fromSqlite.appendMessage(say("second in sqlite"));
  const summary = (list) =>
    list.map(({ id, messageCount, firstMessage }) => ({ id, messageCount, firstMessage }));
  console.log(JSON.stringify({
    reopened: { jsonl: fromJsonl.getSessionId(), sqlite: fromSqlite.getSessionId() },
    jsonl: summary(await SessionManager.list(cwd, jsonlDir)),
    sqlite: summary(await SessionManager.list(cwd)),
  }));
} else {
  throw new Error(`usage: app.mjs create|reopen <jsonlDir> <stateFile> (got ${mode})`);
}
