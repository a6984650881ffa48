/**
 * A {@link JsonlFolderFs} wrapper for tests: counts what the store reads and writes (so
 * cache tests assert "nothing re-read" without timing) and can make appends fail halfway.
 */
import type {
  FileStat,
  FolderEntry,
  JsonlFolderFs,
  LockOptions,
  ReleaseLock,
  WriteOptions,
} from "../../stores/jsonl/_folder.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import type { OpenedStore } from "../conformance/harness.ts";

/** Operation counts since the last {@link CountingFs.reset}. */
export interface FsCounts {
  reads: number;
  streams: number;
  bytesRead: number;
  stats: number;
  lists: number;
  appends: number;
  /** Appends that asked for a flush to disk (`fsync`): not relaxed. */
  durableAppends: number;
  atomicWrites: number;
}

const zero = (): FsCounts => ({
  reads: 0,
  streams: 0,
  bytesRead: 0,
  stats: 0,
  lists: 0,
  appends: 0,
  durableAppends: 0,
  atomicWrites: 0,
});

/**
 * Counts calls; `failNextAppendAfter` writes that many bytes of the next append, then throws;
 * `failNextWrite()` makes the next append (after 7 bytes) or atomic write (before any) fail.
 */
export class CountingFs implements JsonlFolderFs {
  counts: FsCounts = zero();
  failNextAppendAfter?: number;
  failNextAtomicWrite = false;
  constructor(readonly inner: JsonlFolderFs) {}

  get root(): string {
    return this.inner.root;
  }
  reset(): void {
    this.counts = zero();
  }
  /** The storage-fault hook: whichever write comes next fails, having written nothing whole. */
  failNextWrite(): void {
    this.failNextAppendAfter = 7;
    this.failNextAtomicWrite = true;
  }
  describe(path: string): string {
    return this.inner.describe(path);
  }
  list(dir: string): Promise<FolderEntry[]> {
    this.counts.lists++;
    return this.inner.list(dir);
  }
  stat(path: string): Promise<FileStat | undefined> {
    this.counts.stats++;
    return this.inner.stat(path);
  }
  async read(path: string, start: number, end: number): Promise<Uint8Array> {
    this.counts.reads++;
    const bytes = await this.inner.read(path, start, end);
    this.counts.bytesRead += bytes.length;
    return bytes;
  }
  async *readStream(path: string, start?: number): AsyncIterable<Uint8Array> {
    this.counts.streams++;
    for await (const chunk of this.inner.readStream(path, start)) {
      this.counts.bytesRead += chunk.length;
      yield chunk;
    }
  }
  async append(
    path: string,
    data: Uint8Array,
    expectedSize: number,
    options?: WriteOptions,
  ): Promise<FileStat> {
    this.counts.appends++;
    if (options?.durability !== "relaxed") this.counts.durableAppends++;
    const failAfter = this.failNextAppendAfter;
    if (failAfter !== undefined) {
      this.failNextAppendAfter = undefined;
      this.failNextAtomicWrite = false;
      await this.inner.append(path, data.subarray(0, failAfter), expectedSize);
      throw new Error("injected I/O failure after a partial write");
    }
    return this.inner.append(path, data, expectedSize, options);
  }
  truncate(path: string, size: number): Promise<void> {
    return this.inner.truncate(path, size);
  }
  writeAtomic(
    path: string,
    data: Uint8Array | AsyncIterable<Uint8Array>,
    options?: WriteOptions,
  ): Promise<void> {
    this.counts.atomicWrites++;
    if (this.failNextAtomicWrite) {
      this.failNextAtomicWrite = false;
      this.failNextAppendAfter = undefined;
      return Promise.reject(new Error("injected I/O failure before an atomic write"));
    }
    return this.inner.writeAtomic(path, data, options);
  }
  remove(path: string): Promise<void> {
    return this.inner.remove(path);
  }
  trash(path: string): Promise<boolean> {
    return this.inner.trash ? this.inner.trash(path) : Promise.resolve(false);
  }
  lock(path: string, options?: LockOptions): Promise<ReleaseLock> {
    return this.inner.lock(path, options);
  }
  idle(): void {
    this.inner.idle?.();
  }
}

/**
 * A store over `fs` with the fault hook: the next append writes a few bytes of its records,
 * then fails (a torn write the store must undo); the next atomic rewrite fails outright.
 */
export function faultyJsonlStore(
  fs: JsonlFolderFs,
): Pick<OpenedStore, "store" | "failNextWrite"> {
  const counting = new CountingFs(fs);
  return {
    store: new JsonlSessionStore(counting),
    failNextWrite: () => counting.failNextWrite(),
  };
}
