/**
 * The sources a command reads by default: the configured store, then the agent's JSONL session
 * folders that exist (pi's `<agentDir>/sessions`, a global `sessionDir`), opened as one
 * {@link SourcesSessionStore}. Separate from `sources.ts`, which reads several stores as one
 * whatever they are; this module decides which stores those are for a user's machine.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SessionStore } from "../../src/store.ts";
import { POSTGRES_URL_ENV } from "./_postgres_env.ts";
import {
  openJsonlDirectory,
  openStorage,
  resolveAgentDir,
  resolveStorageChoice,
  type StorageChoice,
  type StorageOptions,
} from "./mod.ts";
import { readSettingsFile, resolveSettingPath } from "./settings.ts";
import { type SessionSource, SourcesSessionStore } from "./sources.ts";

/** Where a decided storage lives, for people (a PostgreSQL URL may carry a password). */
function locationOf(choice: StorageChoice): string {
  if (choice.kind === "sqlite") return resolve(choice.path);
  if (choice.kind === "jsonl") return resolve(choice.dir);
  if (choice.kind === "postgres") {
    return choice.source === "environment"
      ? `PostgreSQL server in $${POSTGRES_URL_ENV}`
      : `PostgreSQL server in ${choice.settingsPath ?? "the settings"}`;
  }
  return choice.store.directory ?? choice.store.kind;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

/**
 * The JSONL folders an agent writes sessions to, beside the configured store: pi's
 * `<agentDir>/sessions`, and the global settings' `sessionDir` (which pi writes to even
 * when `sessions.storage` chose another store). Only folders that exist.
 */
async function agentSessionFolders(options: StorageOptions): Promise<SessionSourcePlan[]> {
  const agentDir = resolveAgentDir(options);
  const globalPath = join(agentDir, "settings.json");
  const settings = await readSettingsFile(globalPath);
  const folders: SessionSourcePlan[] = [
    { label: "pi sessions folder", dir: join(agentDir, "sessions") },
  ];
  if (typeof settings?.sessionDir === "string" && settings.sessionDir !== "") {
    const home = options.home ?? options.env?.HOME;
    folders.push({
      label: `sessionDir of ${globalPath}`,
      dir: resolveSettingPath(settings.sessionDir, agentDir, home),
    });
  }
  for (const folder of folders) folder.exists = await isDirectory(folder.dir);
  return folders;
}

interface SessionSourcePlan {
  label: string;
  dir: string;
  exists?: boolean;
}

/**
 * The sources a command reads by default: the configured store (the storage decision of
 * `resolveStorageChoice`), then each agent session folder that exists and is not that
 * store. An explicit store or `sessionDir` in `options` selects that one store alone.
 *
 * @example
 * ```ts
 * import { openSessionSources } from "./default_sources.ts";
 * const { store, sources } = await openSessionSources({ cwd: "/work/repo" });
 * for (const source of sources) console.log(source.label, source.location);
 * await store.close();
 * ```
 */
export async function openSessionSources(
  options: StorageOptions = {},
): Promise<OpenedSources> {
  const choice = await resolveStorageChoice(options);
  const primary: SessionSource = {
    label: choice.source === "default" ? "default store" : `store from ${choice.source}`,
    location: locationOf(choice),
    store: await openStorage(choice, options),
  };
  const sources = [primary];
  const absent: LookedFor[] = [];
  if (choice.source !== "explicit") {
    try {
      for (const folder of await agentSessionFolders(options)) {
        const dir = resolve(folder.dir);
        if (sources.some((source) => source.location === dir)) continue;
        if (!folder.exists) {
          absent.push({ label: folder.label, location: dir });
          continue;
        }
        sources.push({
          label: folder.label,
          location: dir,
          store: await openJsonlDirectory(dir, options.durability),
        });
      }
    } catch (error) {
      await Promise.allSettled(sources.map((source) => source.store.close()));
      throw error;
    }
  }
  const store = sources.length === 1 ? primary.store : new SourcesSessionStore(sources);
  return { store, sources, absent };
}

/** A place sessions were looked for. */
export interface LookedFor {
  label: string;
  location: string;
}

/** What {@link openSessionSources} opened, and the agent folders it found missing. */
export interface OpenedSources {
  store: SessionStore;
  sources: SessionSource[];
  /** Agent session folders looked for and not there (so a user can tell which were read). */
  absent: LookedFor[];
}
