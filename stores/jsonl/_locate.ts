/**
 * Finding a session's file by id in a folder without parsing files in full: an id → file
 * cache (checked against the header), then file names that carry the id's hash (format 4)
 * or the id itself (older pi names), then the header line of every file not seen yet.
 *
 * @module
 */
import {
  hashFromFileName,
  hashSessionId,
  isSessionFileName,
  joinPath,
  type JsonlFolderFs,
} from "./_folder.ts";
import { readHeader } from "./_head_line.ts";

/**
 * The lookup state of one store: which file holds which id.
 *
 * @example
 * ```ts
 * import { SessionLocator } from "./_locate.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const locator = new SessionLocator(new NodeJsonlFolderFs("/tmp/sessions"));
 * await locator.locate("some-id"); // folder path or undefined
 * ```
 */
export class SessionLocator {
  readonly #fs: JsonlFolderFs;
  /** Session id → file, as last found. */
  readonly #ids = new Map<string, string>();
  /** File → session id read from its header (`null`: no readable header). */
  readonly #pathIds = new Map<string, string | null>();
  /** Files opened directly (possibly outside the folder): id → path. */
  readonly #pinned = new Map<string, string>();

  constructor(fs: JsonlFolderFs) {
    this.#fs = fs;
  }

  /** Serve `path` for `id` before anything in the folder (files opened directly). */
  pin(id: string, path: string): void {
    this.#pinned.set(id, path);
    this.remember(path, id);
  }

  /** The file last known to hold `id`, without checking. */
  cached(id: string): string | undefined {
    return this.#pinned.get(id) ?? this.#ids.get(id);
  }

  /** Record that `path` holds `id` (the store just wrote it). */
  remember(path: string, id: string): void {
    this.#pathIds.set(path, id);
    this.#ids.set(id, path);
  }

  /** Record a file's header id as a listing read it, without choosing it for the id. */
  learnPath(path: string, id: string | null): void {
    this.#pathIds.set(path, id);
  }

  /** Drop what is known about a file (rewritten by someone, deleted). */
  forget(path: string): void {
    this.#pathIds.delete(path);
    for (const [id, where] of this.#ids) if (where === path) this.#ids.delete(id);
    for (const [id, where] of this.#pinned) if (where === path) this.#pinned.delete(id);
  }

  /** Session files of the folder (root and one level down) plus files opened directly. */
  async allPaths(): Promise<string[]> {
    const paths: string[] = [];
    for (const entry of await this.#fs.list("")) {
      if (entry.kind === "file" && isSessionFileName(entry.name)) paths.push(entry.name);
      if (entry.kind === "directory" && !entry.name.startsWith(".")) {
        for (const inner of await this.#fs.list(entry.name)) {
          if (inner.kind === "file" && isSessionFileName(inner.name)) {
            paths.push(joinPath(entry.name, inner.name));
          }
        }
      }
    }
    paths.sort();
    const listed = new Set(paths);
    for (const pinned of this.#pinned.values()) if (!listed.has(pinned)) paths.push(pinned);
    return paths;
  }

  /** The session id in a file's header, read only when not already known. */
  async idAt(path: string): Promise<string | undefined> {
    const known = this.#pathIds.get(path);
    if (known !== undefined) return known ?? undefined;
    const stat = await this.#fs.stat(path);
    if (!stat) return undefined;
    try {
      const info = await readHeader(this.#fs, path, stat.size);
      this.#pathIds.set(path, info.id);
      return info.id;
    } catch {
      this.#pathIds.set(path, null);
      return undefined;
    }
  }

  /**
   * Which of two files holding one id is the session; the others are copies, reported by
   * listings. A format-4 name wins, then a file in the root, then the name order.
   */
  prefer(a: string, b: string): number {
    const rank = (path: string) =>
      (hashFromFileName(path.split("/").pop()!) ? 0 : 2) + (path.includes("/") ? 1 : 0);
    return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
  }

  /** The file holding `sessionId`, or undefined. */
  async locate(sessionId: string): Promise<string | undefined> {
    const pinned = this.#pinned.get(sessionId);
    if (pinned !== undefined) return (await this.#fs.stat(pinned)) ? pinned : undefined;
    const cached = this.#ids.get(sessionId);
    if (cached !== undefined) {
      if ((await this.#fs.stat(cached)) && (await this.idAt(cached)) === sessionId) return cached;
      this.forget(cached);
    }
    const paths = await this.allPaths();
    const live = new Set(paths);
    for (const path of [...this.#pathIds.keys()]) if (!live.has(path)) this.forget(path);
    const hash = await hashSessionId(sessionId);
    const named = paths.filter((path) => {
      const name = path.split("/").pop()!;
      return hashFromFileName(name) === hash || name.endsWith(`_${sessionId}.jsonl`);
    });
    const matches: string[] = [];
    for (const path of named) if ((await this.idAt(path)) === sessionId) matches.push(path);
    if (matches.length === 0) {
      // Files already read keep their id (every rewrite here keeps it): read only new ones.
      const unknown = paths.filter((path) => !this.#pathIds.has(path));
      for (let i = 0; i < unknown.length; i += 8) {
        await Promise.all(unknown.slice(i, i + 8).map((path) => this.idAt(path)));
      }
      for (const path of paths) if (this.#pathIds.get(path) === sessionId) matches.push(path);
    }
    if (matches.length === 0) return undefined;
    const chosen = matches.sort((a, b) => this.prefer(a, b))[0];
    this.#ids.set(sessionId, chosen);
    return chosen;
  }
}
