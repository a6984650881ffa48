/**
 * Conformance subjects for the JSONL stores: a fresh folder per test, reopened by a new
 * store instance, removed afterwards. The first store of each writes through a
 * {@link CountingFs}, whose next append can be made to fail halfway (the storage-fault hook).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoreSubject } from "../conformance/mod.ts";
import { NodeJsonlFolderFs, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { FsaJsonlFolderFs, openJsonlFsaStore } from "../../stores/jsonl/fsa.ts";
import { faultyJsonlStore } from "./counting_fs.ts";
import { FakeDirectoryHandle } from "./fake_fsa.ts";

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
      const opened = faultyJsonlStore(new NodeJsonlFolderFs(dir, { trashCommand: false }));
      return {
        ...opened,
        reopen: () => openJsonlFsStore(dir, { trashCommand: false }),
        cleanup: () => removeDir(dir),
        damage: async (id) => {
          // The id lives in the header line, so damage the entry after it.
          const path = (await opened.store.load(id)).path!;
          const [header] = (await readFile(path, "utf8")).split("\n");
          await writeFile(path, `${header}\n{"type":"message",\n`);
        },
      };
    },
  };
}

/** The File System Access JSONL store over the in-memory fake handle. */
export function jsonlFsaFakeSubject(name: string): StoreSubject {
  return {
    name,
    open: async () => {
      const root = new FakeDirectoryHandle();
      return {
        ...faultyJsonlStore(new FsaJsonlFolderFs(root.asHandle())),
        reopen: async () => openJsonlFsaStore(root.asHandle()),
      };
    },
  };
}
