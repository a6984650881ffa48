/**
 * The JSONL-over-File-System-Access store under test: each store gets its own folder under
 * the OPFS root (`navigator.storage.getDirectory()` → `mu-tests/...`), a real directory
 * handle like the one `showDirectoryPicker()` returns. Importing this module adds
 * `jsonl-fsa` to `BROWSER_STORES`.
 *
 * @example
 * ```ts
 * import "./subjects_fsa.ts";
 * import { BROWSER_STORES } from "./subjects.ts";
 * BROWSER_STORES["jsonl-fsa"].subject();
 * ```
 *
 * @module
 */
import { FsaJsonlFolderFs, openJsonlFsaStore } from "../../stores/jsonl/fsa.ts";
import { faultyJsonlStore } from "../jsonl/counting_fs.ts";
import { freshId } from "../conformance/store_suite.ts";
import { BROWSER_STORES, opfsFolder, removeOpfsFolder } from "./subjects.ts";

BROWSER_STORES["jsonl-fsa"] = {
  subject: () => ({
    name: "jsonl (File System Access, OPFS folder)",
    open: async () => {
      const name = freshId("jsonl");
      const folder = await opfsFolder(name);
      return {
        ...faultyJsonlStore(new FsaJsonlFolderFs(folder)),
        reopen: async () => openJsonlFsaStore(await opfsFolder(name)),
        cleanup: () => removeOpfsFolder(name),
      };
    },
  }),
  openNamed: async (tag) => openJsonlFsaStore(await opfsFolder(`persist-${tag}`)),
  removeNamed: (tag) => removeOpfsFolder(`persist-${tag}`),
};
