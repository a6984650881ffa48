/**
 * What the viewer page remembers between visits in localStorage (never session content):
 * the files that could not be imported, with their reasons, and where each imported
 * session came from.
 *
 * @module
 */
import type { UnloadableView } from "./types.ts";
import type { ImportOrigin } from "./views/session.ts";

const UNLOADABLE_KEY = "mu-viewer:unloadable";
const MAX_UNLOADABLE = 200;
const ORIGINS_KEY = "mu-viewer:imports";
const MAX_ORIGINS = 5000;

/** Read a small JSON value the page keeps in localStorage. */
function loadLocal<T>(key: string, fallback: T, valid: (value: unknown) => boolean): T {
  try {
    const parsed = JSON.parse(localStorage.getItem(key) ?? "null");
    return valid(parsed) ? parsed as T : fallback;
  } catch {
    return fallback;
  }
}

function saveLocal(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or disabled: this visit still shows it
  }
}

/** The remembered unloadable files, newest first. */
export function loadUnloadable(): UnloadableView[] {
  return loadLocal<UnloadableView[]>(UNLOADABLE_KEY, [], Array.isArray);
}

/** Remember the unloadable files (the newest {@link MAX_UNLOADABLE}). */
export function saveUnloadable(items: UnloadableView[]): void {
  saveLocal(UNLOADABLE_KEY, items.slice(0, MAX_UNLOADABLE));
}

/** The remembered import origins by session id. */
export function loadOrigins(): Map<string, ImportOrigin> {
  return new Map<string, ImportOrigin>(
    loadLocal<Array<[string, ImportOrigin]>>(ORIGINS_KEY, [], Array.isArray).filter((item) =>
      Array.isArray(item) && typeof item[0] === "string" && typeof item[1]?.path === "string"
    ),
  );
}

/** Remember the import origins (the newest {@link MAX_ORIGINS}). */
export function storeOrigins(origins: Map<string, ImportOrigin>): void {
  saveLocal(ORIGINS_KEY, [...origins].slice(-MAX_ORIGINS));
}
