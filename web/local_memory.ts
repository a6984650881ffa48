/**
 * What the viewer page remembers between visits in localStorage (never session content):
 * the files that could not be imported, with their reasons, where each imported
 * session came from, and the list's sort order.
 *
 * @module
 */
import type { UnloadableView } from "./types.ts";
import type { ImportOrigin } from "./views/session.ts";
import { isListSort, type ListSort } from "./views/list_groups.ts";

const UNLOADABLE_KEY = "mu-viewer:unloadable";
const MAX_UNLOADABLE = 200;
const ORIGINS_KEY = "mu-viewer:imports";
const MAX_ORIGINS = 5000;
const SORT_KEY = "mu-viewer:list-sort";

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

/** The list's remembered sort order ("modified" until one is chosen). */
export function loadListSort(): ListSort {
  return loadLocal<ListSort>(SORT_KEY, "modified", isListSort);
}

/** Remember the list's sort order. */
export function saveListSort(sort: ListSort): void {
  saveLocal(SORT_KEY, sort);
}
