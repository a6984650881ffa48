/**
 * Child process for the permissions test, started by a shell that set `umask 000` (so the
 * test needs no `--allow-sys`): creates a JSONL store, a session, a held lock, an
 * `open(path)` file, a trust decision and a SQLite database behind a dangling symlink under
 * `<dir>`, and prints the modes of what they created as JSON. Args: <dir>.
 */
import { stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { user, v4Header } from "./helpers.ts";
import { NodeJsonlFolderFs, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openJsonlFile } from "../../stores/jsonl/_local.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { saveTrustDecision } from "../../stores/default/trust.ts";

const [dir] = Deno.args;
const modes: Record<string, string> = {};
const record = async (name: string, path: string) => {
  modes[name] = ((await stat(path)).mode & 0o777).toString(8);
};

const root = join(dir, "a", "sessions");
const store = await openJsonlFsStore(root, { trashCommand: false });
const { path } = await store.create(v4Header("perm"), [user("p1", null)]);
await record("jsonl parent folder", join(dir, "a"));
await record("jsonl folder", root);
await record("session file", path!);
const name = path!.split("/").pop()!;
const release = await new NodeJsonlFolderFs(root).lock(name);
await record("lock file", join(root, `${name}.lock`));
await release();

const file = join(dir, "x", "y", "s.jsonl");
await openJsonlFile(file, { cwd: "/work" });
await record("open(path) folder", join(dir, "x"));
await record("open(path) inner folder", join(dir, "x", "y"));
await record("open(path) file", file);

const agentDir = join(dir, "home", ".pi", "agent");
await saveTrustDecision(agentDir, dir, true);
await record("agent dir parent", join(dir, "home"));
await record("agent dir", agentDir);
await record("trust file", join(agentDir, "trust.json"));

const link = join(dir, "sessions.db");
await symlink(join(dir, "elsewhere.db"), link);
const db = await openSqliteStore(link);
await db.create(v4Header("perm"), [user("p1", null)]);
await db.close();
await record("dangling sessions.db target", join(dir, "elsewhere.db"));

console.log(JSON.stringify(modes));
