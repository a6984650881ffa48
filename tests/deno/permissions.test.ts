/**
 * Sessions hold secrets: whatever the umask, the folders the stores create are 0700 and the
 * files (sessions, lock files, the trust file, the SQLite database) 0600, and a dangling
 * `sessions.db` symlink gets a 0600 target, not SQLite's 0644 (issue 11, finding 9). The
 * stores run in a child process under `umask 000`, where anything left to the defaults
 * comes out 0777/0666.
 */
import { assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { repoRoot } from "../jsonl/helpers.ts";

const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";

Deno.test({
  name: "permissions under umask 000: folders 0700, files 0600, a dangling sessions.db gets 0600",
  ignore: !canRun || Deno.build.os === "windows",
  fn: async () => {
    const dir = await tempDir("mu-perm-");
    try {
      const child = await new Deno.Command("sh", {
        args: [
          "-c",
          'umask 000 && exec "$0" run --quiet --config="$1" --allow-read --allow-write --allow-env --allow-ffi "$2" "$3"',
          Deno.execPath(),
          `${repoRoot}deno.json`,
          `${repoRoot}tests/jsonl/permissions_child.ts`,
          dir,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(child.stderr);
      assertEquals(child.code, 0, stderr);
      const modes = JSON.parse(new TextDecoder().decode(child.stdout));
      assertEquals(modes, {
        "jsonl parent folder": "700",
        "jsonl folder": "700",
        "session file": "600",
        "lock file": "600",
        "open(path) folder": "700",
        "open(path) inner folder": "700",
        "open(path) file": "600",
        "agent dir parent": "700",
        "agent dir": "700",
        "trust file": "600",
        "dangling sessions.db target": "600",
      });
    } finally {
      await removeDir(dir);
    }
  },
});
