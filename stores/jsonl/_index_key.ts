/**
 * The per-user secret that seals resume indexes on Deno and Node: 32 random bytes in
 * `<agentDir>/mu-index.key` (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`), created on first
 * need with mode 0600. An index in a session folder is trusted only when its MAC under this
 * key holds, so an index someone else placed in the folder (or sent with it) is ignored.
 *
 * Why the agent directory, not the session folder or a cache directory: the folder is
 * exactly what may come from someone else, and the agent directory is already this user's
 * private place the tools write (`sessions.db`, settings) and that the README's permission
 * set reaches; a cache directory would be one more path to allow. Deno and Node read the same
 * file, so an index written by one is honoured by the other.
 *
 * Where the key cannot be read or made (no home, a narrower `--allow-write`, a key file
 * others can read or that another user owns), indexes are sealed with a key of this process
 * alone: nothing is trusted across processes, and nothing breaks.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { agentDir } from "../default/agent_dir.ts";
import { processIndexKey } from "./_backend.ts";

/** The key file's name in the agent directory. */
export const INDEX_KEY_FILE = "mu-index.key";
const SECRET_BYTES = 32;

function code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/** The secret in `path`, `undefined` when there is none; throws when it is not trustworthy. */
function readSecret(path: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if (code(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size !== SECRET_BYTES) throw new Error("not a key file");
    if (process.platform !== "win32") {
      if ((stat.mode & 0o077) !== 0) throw new Error("the key file is open to other users");
      let uid: number | undefined;
      try {
        uid = process.getuid?.();
      } catch {
        uid = undefined; // Deno without --allow-sys: the mode check stands alone
      }
      if (uid !== undefined && stat.uid !== uid) throw new Error("another user's key file");
    }
    const secret = new Uint8Array(SECRET_BYTES);
    if (readSync(fd, secret, 0, SECRET_BYTES, 0) !== SECRET_BYTES) throw new Error("short key");
    return secret;
  } finally {
    closeSync(fd);
  }
}

/** Make the key file: written whole under a temporary name, then linked in (never replaced). */
function createSecret(dir: string, path: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const random = crypto.getRandomValues(new Uint8Array(8));
  const temp = join(dir, `.${INDEX_KEY_FILE}.${Array.from(random).join("")}.tmp`);
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (error) {
    if (code(error) !== "EEXIST") throw error; // another process made it first: theirs stands
  } finally {
    unlinkSync(temp);
  }
}

/**
 * The HMAC key in the agent directory of `env` (default: this process's), made on first
 * need; throws when it can be neither read nor made.
 *
 * @example
 * ```ts
 * import { loadIndexKey } from "./_index_key.ts";
 * const key = await loadIndexKey({ PI_CODING_AGENT_DIR: "/tmp/agent" });
 * ```
 */
export async function loadIndexKey(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<CryptoKey> {
  const dir = agentDir(env, env.HOME ?? homedir());
  const path = join(dir, INDEX_KEY_FILE);
  let secret = readSecret(path);
  if (!secret) {
    createSecret(dir, path);
    secret = readSecret(path);
  }
  if (!secret) throw new Error("no index key");
  return await crypto.subtle.importKey(
    "raw",
    secret as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

let userKey: Promise<CryptoKey> | undefined;

/**
 * This user's index key ({@link loadIndexKey}), or this process's own when it is out of
 * reach; looked up once per process.
 *
 * @example
 * ```ts
 * import { userIndexKey } from "./_index_key.ts";
 * (await userIndexKey()).algorithm.name; // "HMAC"
 * ```
 */
export function userIndexKey(): Promise<CryptoKey> {
  return userKey ??= loadIndexKey().catch(() => processIndexKey());
}
