/**
 * Project trust (spec/pi-security.md), as far as storage needs it: a project's
 * `.pi/settings.json` may choose where sessions are written only when the project is
 * trusted, so an untrusted repository cannot redirect them.
 *
 * Saved decisions live in `<agentDir>/trust.json`, the file pi and Atomic use: one JSON
 * object whose keys are canonical directories (realpath) and whose values are `true`
 * (trusted), `false` (not trusted) or `null` (no decision, as if absent):
 *
 * ```json
 * { "/home/u/work": true, "/home/u/work/vendor-repo": false }
 * ```
 *
 * The closest decision on the current directory or a parent wins; without one,
 * `defaultProjectTrust` from the global settings applies: `"ask"` (the default) and
 * `"never"` do not trust (a library never prompts), `"always"` does. A one-run override
 * (`--approve` / `--no-approve`) beats both. A trust file that cannot be read trusts
 * nothing rather than guessing.
 *
 * @module
 */
import { mkdir, open, readFile, realpath, rename, rmdir, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { SessionStorageError } from "../../src/errors.ts";

/**
 * What to do without a saved decision.
 *
 * @example
 * ```ts
 * import { type DefaultProjectTrust } from "./trust.ts";
 * const policy: DefaultProjectTrust = "never";
 * ```
 */
export type DefaultProjectTrust = "ask" | "never" | "always";

/**
 * The parsed `trust.json`: canonical directory → decision.
 *
 * @example
 * ```ts
 * import { type TrustFile } from "./trust.ts";
 * const decisions: TrustFile = { "/home/u/work": true, "/home/u/work/vendor": false };
 * ```
 */
export type TrustFile = Record<string, boolean | null>;

/**
 * A trust decision and where it came from.
 *
 * @example
 * ```ts
 * import { type TrustDecision } from "@mu/sessions/stores/default";
 * declare const decision: TrustDecision;
 * if (decision.source === "saved") console.log("decided for", decision.savedPath);
 * ```
 */
export interface TrustDecision {
  trusted: boolean;
  /** `override`: approve option; `saved`: trust.json; `default`: defaultProjectTrust. */
  source: "override" | "saved" | "default" | "unreadable-trust-file";
  /** The directory whose saved decision applied. */
  savedPath?: string;
  /** Why the trust file could not be used. */
  problem?: string;
}

/**
 * `<agentDir>/trust.json`.
 *
 * @example
 * ```ts
 * import { trustFilePath } from "./trust.ts";
 * trustFilePath("/home/u/.pi/agent"); // "/home/u/.pi/agent/trust.json"
 * ```
 */
export function trustFilePath(agentDir: string): string {
  return join(agentDir, "trust.json");
}

/**
 * A directory's canonical form (symlinks resolved), or its absolute form when it does not
 * exist.
 *
 * @example
 * ```ts
 * import { canonicalDir } from "./trust.ts";
 * await canonicalDir("."); // e.g. "/home/u/work/project"
 * ```
 */
export async function canonicalDir(dir: string): Promise<string> {
  const absolute = resolve(dir);
  try {
    return await realpath(absolute);
  } catch {
    return absolute;
  }
}

/**
 * Read `trust.json` (JSON; comments tolerated). Missing → `{}`; not an object of
 * booleans/nulls → `SessionStorageError`.
 *
 * @example
 * ```ts
 * import { readTrustFile } from "./trust.ts";
 * const decisions = await readTrustFile("/home/u/.pi/agent");
 * ```
 */
export async function readTrustFile(agentDir: string): Promise<TrustFile> {
  const path = trustFilePath(agentDir);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return {};
    throw new SessionStorageError(`Cannot read trust file ${path}: ${(error as Error).message}`);
  }
  const errors: ParseError[] = [];
  const data = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new SessionStorageError(`Invalid trust file ${path}: expected a JSON object`);
  }
  const decisions: TrustFile = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value !== true && value !== false && value !== null) {
      throw new SessionStorageError(
        `Invalid trust file ${path}: ${JSON.stringify(key)} must be true, false or null`,
      );
    }
    decisions[resolve(key)] = value;
  }
  return decisions;
}

/**
 * The closest saved decision for `cwd` (canonicalised) or a parent directory.
 *
 * @example
 * ```ts
 * import { findSavedTrust } from "./trust.ts";
 * await findSavedTrust({ "/home/u": true }, "/home/u/work"); // { path: "/home/u", trusted: true }
 * ```
 */
export async function findSavedTrust(
  decisions: TrustFile,
  cwd: string,
): Promise<{ path: string; trusted: boolean } | undefined> {
  let dir = await canonicalDir(cwd);
  for (;;) {
    const value = decisions[dir];
    if (value === true || value === false) return { path: dir, trusted: value };
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Options for {@link resolveProjectTrust}.
 *
 * @example
 * ```ts
 * import { type ProjectTrustOptions } from "./trust.ts";
 * const options: ProjectTrustOptions = { cwd: "/work/repo", agentDir: "/home/u/.pi/agent", approve: true };
 * ```
 */
export interface ProjectTrustOptions {
  cwd: string;
  agentDir: string;
  /** One-run override: `true` = `--approve`, `false` = `--no-approve`. */
  approve?: boolean;
  /** From the global settings (default `"ask"`). */
  defaultProjectTrust?: DefaultProjectTrust;
}

/**
 * Whether the project at `cwd` is trusted, without ever prompting (library use is
 * non-interactive, so `"ask"` means not trusted).
 *
 * @example
 * ```ts
 * import { resolveProjectTrust } from "./trust.ts";
 * const { trusted } = await resolveProjectTrust({ cwd: "/work/repo", agentDir: "/home/u/.pi/agent" });
 * ```
 */
export async function resolveProjectTrust(options: ProjectTrustOptions): Promise<TrustDecision> {
  if (options.approve !== undefined) return { trusted: options.approve, source: "override" };
  let decisions: TrustFile;
  try {
    decisions = await readTrustFile(options.agentDir);
  } catch (error) {
    return {
      trusted: false,
      source: "unreadable-trust-file",
      problem: (error as Error).message,
    };
  }
  const saved = await findSavedTrust(decisions, options.cwd);
  if (saved) return { trusted: saved.trusted, source: "saved", savedPath: saved.path };
  return { trusted: options.defaultProjectTrust === "always", source: "default" };
}

/**
 * Save (or with `null`, clear) the decision for a directory, keyed by its canonical path.
 * Written atomically under the `trust.json.lock` directory lock that pi's own writers use.
 *
 * @example
 * ```ts
 * import { saveTrustDecision } from "./trust.ts";
 * await saveTrustDecision("/home/u/.pi/agent", "/home/u/work", true);
 * ```
 */
export async function saveTrustDecision(
  agentDir: string,
  dir: string,
  decision: boolean | null,
): Promise<void> {
  const path = trustFilePath(agentDir);
  await mkdir(agentDir, { recursive: true });
  const unlock = await lockDirectory(`${path}.lock`);
  try {
    const decisions = await readTrustFile(agentDir);
    const key = await canonicalDir(dir);
    if (decision === null) delete decisions[key];
    else decisions[key] = decision;
    const sorted: TrustFile = {};
    for (const name of Object.keys(decisions).sort()) sorted[name] = decisions[name];
    const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(sorted, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path).catch(async (error) => {
      await unlink(temp).catch(() => {});
      throw error;
    });
  } finally {
    await unlock();
  }
}

/** A `mkdir` lock (what proper-lockfile, used by pi for trust.json, creates); stale after 10 s. */
async function lockDirectory(path: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      await mkdir(path);
      return async () => {
        await rmdir(path).catch(() => {});
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 10_000) {
      await rmdir(path).catch(() => {});
      continue;
    }
    if (Date.now() > deadline) {
      throw new SessionStorageError(`Timed out waiting for the trust file lock ${path}`);
    }
    await new Promise((done) => setTimeout(done, 20));
  }
}
