/**
 * The saved sync cursor of one (local, other side) pair: `<agentDir>/mu-sync/<key>.json`,
 * where the key is a SHA-256 of both sides' identities (no password is part of them). The
 * cursor only lets a sync skip sessions whose change token is unchanged since their last
 * complete copy, so a file that cannot be trusted must never be used to skip: a torn,
 * unparsable, foreign or misshapen file is ignored (everything is compared again) and
 * replaced atomically (written beside, then renamed) at the end of the run.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { SyncReport } from "../../src/sync.ts";

type Cursor = SyncReport["cursor"];

/** Where the cursor of a pair lives. */
export function cursorPath(agentDir: string, local: string, remote: string): string {
  const key = createHash("sha256").update(`${local}\n\0${remote}`).digest("hex").slice(0, 32);
  return join(agentDir, "mu-sync", `${key}.json`);
}

/** What the file holds: the pair it belongs to, for people and as a check. */
interface CursorFile {
  version: 1;
  local: string;
  remote: string;
  cursor: Cursor;
}

/**
 * The saved cursor, or an empty one with the reason it was not used (`note`): no file is
 * the normal first run and has no note.
 */
export async function loadCursor(
  path: string,
  local: string,
  remote: string,
): Promise<{ cursor: Cursor; note?: string }> {
  const empty = { push: {}, pull: {} };
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return { cursor: empty };
    return { cursor: empty, note: `cannot read ${path}: ${(error as Error).message}` };
  }
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    return { cursor: empty, note: `${path} is torn or not JSON` };
  }
  const file = saved as Partial<CursorFile>;
  if (
    file?.version !== 1 || file.local !== local || file.remote !== remote ||
    !isTokenMap(file.cursor?.push) || !isTokenMap(file.cursor?.pull)
  ) {
    return { cursor: empty, note: `${path} does not hold this pair's cursor` };
  }
  return { cursor: { push: file.cursor!.push, pull: file.cursor!.pull } };
}

function isTokenMap(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((token) => typeof token === "string");
}

let writes = 0;

/** Replace the saved cursor atomically: a reader sees the old file or the new one. */
export async function saveCursor(
  path: string,
  local: string,
  remote: string,
  cursor: Cursor,
): Promise<void> {
  const file: CursorFile = { version: 1, local, remote, cursor };
  await mkdir(join(path, ".."), { recursive: true });
  const partial = `${path}.${process.pid}.${writes++}.partial`;
  try {
    await writeFile(partial, JSON.stringify(file) + "\n", { mode: 0o600 });
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
