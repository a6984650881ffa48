/**
 * Conformance subjects for the JSONL stores: a fresh temporary folder per test, reopened
 * by a new store instance, removed afterwards.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoreSubject } from "../conformance/mod.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";

/** A fresh temporary directory. */
export async function tempDir(prefix = "mu-jsonl-"): Promise<string> {
  return await mkdtemp(join(tmpdir(), prefix));
}

/** Remove a directory tree (missing is fine). */
export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The file-system JSONL store as a conformance subject. */
export function jsonlFsSubject(name: string): StoreSubject {
  return {
    name,
    open: async () => {
      const dir = await tempDir();
      return {
        store: await openJsonlFsStore(dir, { trashCommand: false }),
        reopen: () => openJsonlFsStore(dir, { trashCommand: false }),
        cleanup: () => removeDir(dir),
      };
    },
  };
}
