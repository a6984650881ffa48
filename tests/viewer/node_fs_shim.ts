/**
 * Deno's `node:fs` `access()` asks for `--allow-sys=uid` (to compare owners), and its
 * failure escapes as an uncaught rejection. playwright-core calls
 * `fs.promises.access(path, F_OK)` in `setInputFiles` with local paths, which the test
 * permissions (read/write/env/run/net) do not cover. Without the sys permission this
 * module answers `access` from `stat`: the path must exist; for `R_OK`/`W_OK`/`X_OK` any of
 * the owner/group/other bits suffices (good enough for tests). Import it before
 * playwright-core.
 *
 * @module
 */
import fs from "node:fs";

function modeAllows(stat: fs.Stats, mode: number): boolean {
  const wanted = [fs.constants.R_OK, fs.constants.W_OK, fs.constants.X_OK];
  const bits = [0o444, 0o222, 0o111];
  return wanted.every((flag, i) => !(mode & flag) || (stat.mode & bits[i]) !== 0);
}

function denied(path: fs.PathLike): Error {
  const error = new Error(`EACCES: permission denied, access '${String(path)}'`);
  Object.assign(error, { code: "EACCES", path: String(path), syscall: "access" });
  return error;
}

if (Deno.permissions.querySync({ name: "sys", kind: "uid" }).state !== "granted") {
  const patchedPromises = fs.promises as unknown as Record<string, unknown>;
  patchedPromises.access = async (path: fs.PathLike, mode = fs.constants.F_OK) => {
    const stat = await fs.promises.stat(path);
    if (!modeAllows(stat, mode)) throw denied(path);
  };
  const patched = fs as unknown as Record<string, unknown>;
  patched.accessSync = (path: fs.PathLike, mode = fs.constants.F_OK) => {
    if (!modeAllows(fs.statSync(path), mode)) throw denied(path);
  };
  patched.access = (
    path: fs.PathLike,
    modeOrCallback: number | ((error: Error | null) => void),
    maybeCallback?: (error: Error | null) => void,
  ) => {
    const callback = typeof modeOrCallback === "function" ? modeOrCallback : maybeCallback!;
    const mode = typeof modeOrCallback === "number" ? modeOrCallback : fs.constants.F_OK;
    fs.promises.stat(path).then(
      (stat) => callback(modeAllows(stat, mode) ? null : denied(path)),
      (error: Error) => callback(error),
    );
  };
}
