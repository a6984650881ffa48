/**
 * pi settings files as storage reads them: the global `<agentDir>/settings.json` and the
 * project `.pi/settings.json` found from the working directory upward. Both are JSONC
 * (comments, trailing commas). Storage is chosen by
 *
 * ```jsonc
 * { "sessions": { "storage": { "type": "sqlite", "path": "~/db/sessions.db" } } }
 * { "sessions": { "storage": { "type": "jsonl", "dir": "./sessions" } } }
 * ```
 *
 * or the older `"sessionDir": "<dir>"` (JSONL). A shared PostgreSQL server,
 * `{ "type": "postgres", "url": "postgres://user@host/db", "schema"?: "..." }`, is accepted
 * here but honoured only from the global settings (`mod.ts` refuses it from a project). Relative paths are relative to the folder
 * holding the settings' owner: the agent directory for global settings, the project
 * directory (the parent of `.pi`) for project settings; `~` is the home directory.
 *
 * @module
 */
import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse as parseJsonc, type ParseError, printParseErrorCode } from "jsonc-parser";
import { SessionStorageError } from "../../src/errors.ts";
import type { DefaultProjectTrust } from "./trust.ts";

/**
 * A settings file's top-level object.
 *
 * @example
 * ```ts
 * import { type Settings } from "./settings.ts";
 * const settings: Settings = { defaultProjectTrust: "ask" };
 * ```
 */
export type Settings = Record<string, unknown>;

/**
 * Where sessions go, with absolute paths.
 *
 * @example
 * ```ts
 * import { type StorageSetting } from "./settings.ts";
 * const setting: StorageSetting = { type: "jsonl", dir: "/home/u/sessions" };
 * ```
 */
export type StorageSetting =
  | { type: "sqlite"; path?: string }
  | { type: "jsonl"; dir?: string }
  | { type: "postgres"; url: string; schema?: string };

/**
 * Read a JSONC settings file. Missing → `undefined`; unparsable or not an object →
 * `SessionStorageError` naming the file and position (a broken file must not silently
 * send sessions somewhere else).
 *
 * @example
 * ```ts
 * import { readSettingsFile } from "./settings.ts";
 * const settings = await readSettingsFile("/home/u/.pi/agent/settings.json");
 * ```
 */
export async function readSettingsFile(path: string): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new SessionStorageError(`Cannot read settings ${path}: ${(error as Error).message}`);
  }
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    throw new SessionStorageError(
      `Invalid settings ${path}: ${printParseErrorCode(first.error)} at offset ${first.offset}`,
    );
  }
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SessionStorageError(`Invalid settings ${path}: expected a JSON object`);
  }
  return value as Settings;
}

/**
 * The closest project settings file at or above `cwd`: `<dir>/.pi/settings.json`. The home
 * directory is skipped (its `.pi` holds the user's own agent directory, not a project).
 *
 * @example
 * ```ts
 * import { findProjectSettings } from "./settings.ts";
 * await findProjectSettings("/work/repo/src", { home: "/home/u" }); // { projectDir: "/work/repo", path: ".../.pi/settings.json" }
 * ```
 */
export async function findProjectSettings(
  cwd: string,
  options: { home?: string; agentDir?: string } = {},
): Promise<{ projectDir: string; path: string } | undefined> {
  const home = options.home === undefined ? undefined : resolve(options.home);
  const globalFile = options.agentDir ? join(resolve(options.agentDir), "settings.json") : "";
  let dir = resolve(cwd);
  for (;;) {
    const path = join(dir, ".pi", "settings.json");
    if (dir !== home && path !== globalFile) {
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile()) return { projectDir: dir, path };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * `~` and relative paths made absolute against `base` (`~` needs a known home).
 *
 * @example
 * ```ts
 * import { resolveSettingPath } from "./settings.ts";
 * resolveSettingPath("./s", "/work/repo", "/home/u"); // "/work/repo/s"
 * resolveSettingPath("~/s", "/work/repo", "/home/u"); // "/home/u/s"
 * ```
 */
export function resolveSettingPath(value: string, base: string, home: string | undefined): string {
  if (value === "~" || value.startsWith("~/") || value.startsWith("~\\")) {
    if (home === undefined) {
      throw new SessionStorageError(`Cannot expand ${value}: the home directory is unknown`);
    }
    return value === "~" ? home : join(home, value.slice(2));
  }
  return isAbsolute(value) ? value : resolve(base, value);
}

/**
 * The storage a settings object selects (`sessions.storage`, else `sessionDir`), paths
 * resolved against `base`; `undefined` when it selects none. Invalid values raise
 * `SessionStorageError`.
 *
 * @example
 * ```ts
 * import { storageSettingOf } from "./settings.ts";
 * storageSettingOf({ sessions: { storage: { type: "jsonl", dir: "s" } } }, "/p", "/home/u", "x");
 * // { type: "jsonl", dir: "/p/s" }
 * ```
 */
export function storageSettingOf(
  settings: Settings | undefined,
  base: string,
  home: string | undefined,
  source: string,
): StorageSetting | undefined {
  if (!settings) return undefined;
  const sessions = settings.sessions as { storage?: unknown } | undefined;
  const storage = sessions && typeof sessions === "object" ? sessions.storage : undefined;
  if (storage !== undefined) {
    if (!storage || typeof storage !== "object" || Array.isArray(storage)) {
      throw new SessionStorageError(`${source}: sessions.storage must be an object`);
    }
    const { type, dir, path, url, schema } = storage as Record<string, unknown>;
    const location = (value: unknown, key: string) => {
      if (value === undefined) return undefined;
      if (typeof value !== "string" || value === "") {
        throw new SessionStorageError(`${source}: sessions.storage.${key} must be a path`);
      }
      return resolveSettingPath(value, base, home);
    };
    if (type === "sqlite") return { type, path: location(path, "path") };
    if (type === "jsonl") return { type, dir: location(dir, "dir") };
    if (type === "postgres") {
      // The URL is never echoed: it may carry a password.
      if (typeof url !== "string" || !/^postgres(ql)?:\/\//.test(url)) {
        throw new SessionStorageError(
          `${source}: sessions.storage.url must be a postgres:// URL`,
        );
      }
      if (schema !== undefined && typeof schema !== "string") {
        throw new SessionStorageError(`${source}: sessions.storage.schema must be a string`);
      }
      return schema === undefined ? { type, url } : { type, url, schema };
    }
    throw new SessionStorageError(
      `${source}: sessions.storage.type must be "sqlite", "jsonl" or "postgres", not ${
        JSON.stringify(type)
      }`,
    );
  }
  if (typeof settings.sessionDir === "string" && settings.sessionDir !== "") {
    return { type: "jsonl", dir: resolveSettingPath(settings.sessionDir, base, home) };
  }
  return undefined;
}

/**
 * `defaultProjectTrust` from global settings; anything unrecognised means `"ask"`.
 *
 * @example
 * ```ts
 * import { defaultProjectTrustOf } from "./settings.ts";
 * defaultProjectTrustOf({ defaultProjectTrust: "always" }); // "always"
 * ```
 */
export function defaultProjectTrustOf(settings: Settings | undefined): DefaultProjectTrust {
  const value = settings?.defaultProjectTrust;
  return value === "always" || value === "never" ? value : "ask";
}
