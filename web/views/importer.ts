/**
 * Getting files into the worker: the file input, the folder picker
 * (`showDirectoryPicker` where available, `<input webkitdirectory>` otherwise), and drag
 * and drop of files and folders. Files are handed over as `File` objects (cheap: the
 * bytes are read in the worker); the page shows the worker's progress events in a bar.
 *
 * @module
 */
import { formatBytes, replaceChildren } from "../dom.ts";
import type { ImportFile, ViewerClient } from "../rpc.ts";
import type { ImportProgressView, ImportResultView } from "../types.ts";

/** Where import results go. */
export type ImportHandler = (run: () => Promise<ImportResultView[]>) => Promise<void>;

interface DirectoryPickerWindow {
  showDirectoryPicker?: (options?: { mode?: "read" }) => Promise<FileSystemDirectoryHandle>;
}

interface HandleItem {
  getAsFileSystemHandle?: () => Promise<FileSystemHandle | null>;
}

/** Most files collected from one dropped folder (entries API fallback). */
const MAX_DROPPED_FILES = 20_000;

/**
 * Files of a dropped folder through the older entries API (`webkitGetAsEntry`), for
 * browsers without `getAsFileSystemHandle`. Only names are listed here; the bytes are read
 * in the worker.
 */
async function filesOfEntry(root: FileSystemEntry): Promise<ImportFile[]> {
  const out: ImportFile[] = [];
  const queue: FileSystemEntry[] = [root];
  while (queue.length && out.length < MAX_DROPPED_FILES) {
    const entry = queue.shift()!;
    if (entry.isFile) {
      if (!isJsonlName(entry.name)) continue;
      const file = await new Promise<File>((resolve, reject) =>
        (entry as FileSystemFileEntry).file(resolve, reject)
      );
      out.push({ file, path: entry.fullPath.replace(/^\//, "") });
    } else if (entry.isDirectory && !entry.name.startsWith(".")) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
          reader.readEntries(resolve, reject)
        );
        if (!batch.length) break;
        queue.push(...batch);
      }
    }
  }
  return out;
}

/** Whether a file name looks like a session file. */
export function isJsonlName(name: string): boolean {
  return /\.jsonl$/i.test(name);
}

/** Wire inputs, the folder button and drag-and-drop to the worker. */
export class Importer {
  readonly #fileInput: HTMLInputElement;
  readonly #folderInput: HTMLInputElement;

  constructor(readonly client: ViewerClient, readonly handle: ImportHandler) {
    this.#fileInput = document.getElementById("file-input") as HTMLInputElement;
    this.#folderInput = document.getElementById("folder-input") as HTMLInputElement;
    this.#fileInput.addEventListener("change", () => {
      const files = [...this.#fileInput.files ?? []].map((file) => ({ file, path: file.name }));
      this.#fileInput.value = "";
      if (files.length) void this.importFiles(files);
    });
    this.#folderInput.addEventListener("change", () => {
      const files = [...this.#folderInput.files ?? []]
        .filter((file) => isJsonlName(file.name))
        .map((file) => ({ file, path: file.webkitRelativePath || file.name }));
      this.#folderInput.value = "";
      void this.importFiles(files);
    });
    this.#wireDrop();
  }

  /** Open the file chooser. */
  openFiles(): void {
    this.#fileInput.click();
  }

  /** Open a folder chooser (File System Access where available). */
  async openFolder(): Promise<void> {
    const picker = (globalThis as DirectoryPickerWindow).showDirectoryPicker;
    if (typeof picker === "function") {
      let handle: FileSystemDirectoryHandle;
      try {
        handle = await picker.call(globalThis, { mode: "read" });
      } catch (error) {
        if ((error as Error).name === "AbortError") return; // the user cancelled
        this.#folderInput.click();
        return;
      }
      await this.handle(() => this.client.call("importDirectory", handle));
      return;
    }
    this.#folderInput.click();
  }

  /** Import files (from any source). */
  async importFiles(files: ImportFile[]): Promise<void> {
    await this.handle(() => this.client.call("importFiles", files));
  }

  #wireDrop(): void {
    const overlay = document.getElementById("drop-overlay")!;
    let depth = 0;
    const hasFiles = (event: DragEvent) => [...event.dataTransfer?.types ?? []].includes("Files");
    addEventListener("dragenter", (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      depth++;
      overlay.hidden = false;
    });
    addEventListener("dragleave", () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) overlay.hidden = true;
    });
    addEventListener("dragover", (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    });
    addEventListener("drop", (event) => {
      if (!event.dataTransfer) return;
      event.preventDefault();
      depth = 0;
      overlay.hidden = true;
      // Handles must be requested synchronously inside the drop event.
      const items = [...event.dataTransfer.items].filter((item) => item.kind === "file");
      const files = [...event.dataTransfer.files];
      if (items.some((item) => !(item as unknown as HandleItem).getAsFileSystemHandle)) {
        const entries = items.map((item) => item.webkitGetAsEntry?.() ?? null);
        if (entries.some((entry) => entry?.isDirectory)) {
          void this.#droppedEntries(entries.filter((e): e is FileSystemEntry => e !== null));
          return;
        }
      }
      const handles = items.map((item) =>
        (item as unknown as HandleItem).getAsFileSystemHandle?.()
      );
      void this.#dropped(handles, files);
    });
  }

  async #droppedEntries(entries: FileSystemEntry[]): Promise<void> {
    const files: ImportFile[] = [];
    for (const entry of entries) files.push(...await filesOfEntry(entry));
    await this.importFiles(files);
  }

  async #dropped(
    handles: Array<Promise<FileSystemHandle | null> | undefined>,
    files: File[],
  ): Promise<void> {
    const resolved = await Promise.all(handles.map((h) => h?.catch(() => null) ?? null));
    const directories = resolved.filter((h): h is FileSystemDirectoryHandle =>
      h?.kind === "directory"
    );
    const plain = files.filter((file) => isJsonlName(file.name)).map((file) => ({
      file,
      path: file.name,
    }));
    if (plain.length) await this.importFiles(plain);
    for (const directory of directories) {
      await this.handle(() => this.client.call("importDirectory", directory));
    }
    if (!plain.length && !directories.length && files.length) {
      await this.importFiles(files.map((file) => ({ file, path: file.name })));
    }
  }
}

/** The progress bar under the top bar. */
export class ProgressBar {
  readonly #root = document.getElementById("progress")!;
  readonly #bar = document.getElementById("progress-bar") as HTMLProgressElement;
  readonly #label = document.getElementById("progress-label")!;

  /** Show an event from the worker. */
  update(event: ImportProgressView): void {
    if (event.phase === "done") {
      this.#root.hidden = true;
      return;
    }
    this.#root.hidden = false;
    const total = Math.max(1, event.bytesTotal);
    this.#bar.max = total;
    this.#bar.value = Math.min(total, event.bytesDone);
    const file = event.fileCount > 1 ? `file ${event.fileIndex + 1} of ${event.fileCount}: ` : "";
    const verb = event.phase === "saving" ? "Saving" : "Reading";
    replaceChildren(
      this.#label,
      `${verb} ${file}${event.path} — ${formatBytes(event.bytesDone)} of ${
        formatBytes(event.bytesTotal)
      }`,
    );
  }

  /** Hide the bar. */
  hide(): void {
    this.#root.hidden = true;
  }
}
