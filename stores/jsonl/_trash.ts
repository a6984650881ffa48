/**
 * The freedesktop.org home trash (the desktop trash of Linux and other free desktops):
 * `$XDG_DATA_HOME/Trash` (default `~/.local/share/Trash`), the file moved into `files/` and
 * its original path and deletion time written to `info/<name>.trashinfo`, so the desktop's
 * file manager can list and restore it. Used when no `trash` command is installed.
 *
 * Own code rather than the `trash` npm package: the spec needs a dozen lines here, while
 * the package brings a dependency tree and native helper binaries for the other systems
 * (where `mu` uses a `trash` command when one is installed, and says "permanently" when
 * none is).
 *
 * @module
 */
import { constants } from "node:fs";
import { access, copyFile, mkdir, open, rename, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, delimiter, extname, join } from "node:path";
import process from "node:process";

/** The home trash folder, or undefined where there is none (not a freedesktop system). */
export function freedesktopTrashDir(
  env: Readonly<Record<string, string | undefined>> = safeEnv(),
): string | undefined {
  if (process.platform === "win32" || process.platform === "darwin") return undefined;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "Trash");
  let home = env.HOME;
  try {
    home ||= homedir();
  } catch {
    return undefined; // Deno without --allow-sys and no $HOME
  }
  return home ? join(home, ".local", "share", "Trash") : undefined;
}

function safeEnv(): Readonly<Record<string, string | undefined>> {
  try {
    return process.env;
  } catch {
    return {}; // Deno without --allow-env
  }
}

/** Local time as the spec wants it: `YYYY-MM-DDThh:mm:ss`, no zone. */
function deletionDate(now: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}T${
    two(now.getHours())
  }:${two(now.getMinutes())}:${two(now.getSeconds())}`;
}

/** The spec's `Path=` value: the absolute path, URL-escaped except `/`. */
function escapedPath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/**
 * Move `path` (absolute) to the home trash. Resolves false when this system has no
 * freedesktop trash; the file is then untouched.
 *
 * @example
 * ```ts
 * import { moveToFreedesktopTrash } from "./_trash.ts";
 * await moveToFreedesktopTrash("/home/u/.pi/agent/sessions/old.jsonl"); // true on Linux
 * ```
 */
export async function moveToFreedesktopTrash(path: string, trashDir = freedesktopTrashDir()) {
  if (trashDir === undefined) return false;
  const files = join(trashDir, "files");
  const info = join(trashDir, "info");
  await mkdir(files, { recursive: true, mode: 0o700 });
  await mkdir(info, { recursive: true, mode: 0o700 });
  const base = basename(path);
  const ext = extname(base);
  const stem = base.slice(0, base.length - ext.length);
  for (let n = 1;; n++) {
    const name = n === 1 ? base : `${stem}.${n}${ext}`;
    const infoPath = join(info, `${name}.trashinfo`);
    // Creating the info file exclusively reserves the name (the spec's own protocol).
    const handle = await open(infoPath, "wx", 0o600).catch((error) => {
      if ((error as { code?: string }).code === "EEXIST") return undefined;
      throw error;
    });
    if (!handle) continue;
    try {
      await handle.writeFile(
        `[Trash Info]\nPath=${escapedPath(path)}\nDeletionDate=${deletionDate(new Date())}\n`,
      );
    } finally {
      await handle.close();
    }
    try {
      await moveFile(path, join(files, name));
    } catch (error) {
      await unlink(infoPath).catch(() => {});
      throw error;
    }
    return true;
  }
}

/** Rename, or copy then remove across file systems. */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as { code?: string }).code !== "EXDEV") throw error;
    await copyFile(from, to);
    await unlink(from);
  }
}

/** An executable named `command` on `PATH` (a path is taken as it is). */
export async function findOnPath(command: string): Promise<string | undefined> {
  if (command.includes("/") || command.includes("\\")) return command;
  let pathVar: string | undefined;
  try {
    pathVar = process.env.PATH;
  } catch {
    return undefined;
  }
  for (const dir of (pathVar ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/**
 * Where a delete by this file system goes: the `trash` command, the freedesktop home trash
 * (`$XDG_DATA_HOME/Trash`), or undefined when a delete is permanent (no trash here).
 *
 * @example
 * ```ts
 * import { trashDestination } from "./_trash.ts";
 * (await trashDestination()) ?? "deleted permanently";
 * ```
 */
export async function trashDestination(
  trashCommand?: string | false,
): Promise<string | undefined> {
  if (trashCommand === false) return undefined;
  const command = await findOnPath(trashCommand ?? "trash");
  if (command) return command;
  return trashCommand === undefined ? freedesktopTrashDir() : undefined;
}
