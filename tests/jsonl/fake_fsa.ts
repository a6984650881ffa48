/**
 * A small in-memory File System Access fake (directory and file handles, writable streams
 * that commit on close) so `stores/jsonl/fsa.ts` runs the conformance suite in Deno and
 * Node. Chromium runs it against real OPFS handles.
 */

function notFound(name: string): DOMException {
  return new DOMException(`${name} not found`, "NotFoundError");
}

let clock = Date.now();
const tick = () => (clock = Math.max(clock + 1, Date.now()));

class FakeFileData {
  bytes: Uint8Array = new Uint8Array(0);
  lastModified = tick();
}

class FakeWritable {
  #buffer: Uint8Array;
  #position = 0;
  #closed = false;
  constructor(readonly target: FakeFileData, keep: boolean) {
    this.#buffer = keep ? target.bytes.slice() : new Uint8Array(0);
  }
  #ensure(size: number) {
    if (size <= this.#buffer.length) return;
    const grown = new Uint8Array(size);
    grown.set(this.#buffer);
    this.#buffer = grown;
  }
  async write(input: unknown): Promise<void> {
    if (this.#closed) throw new TypeError("closed");
    let data = input as { type?: string; position?: number; data?: unknown; size?: number };
    if (data && typeof data === "object" && "type" in data && typeof data.type === "string") {
      if (data.type === "truncate") return this.truncate(data.size!);
      if (data.type === "seek") return this.seek(data.position!);
      if (data.position !== undefined) this.#position = data.position;
      data = data.data as typeof data;
    }
    const bytes = data instanceof Uint8Array
      ? data
      : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new TextEncoder().encode(String(data));
    this.#ensure(this.#position + bytes.length);
    this.#buffer.set(bytes, this.#position);
    this.#position += bytes.length;
  }
  async seek(position: number): Promise<void> {
    this.#position = position;
  }
  async truncate(size: number): Promise<void> {
    if (size < this.#buffer.length) this.#buffer = this.#buffer.slice(0, size);
    else this.#ensure(size);
    if (this.#position > size) this.#position = size;
  }
  async close(): Promise<void> {
    this.#closed = true;
    this.target.bytes = this.#buffer;
    this.target.lastModified = tick();
  }
  async abort(): Promise<void> {
    this.#closed = true;
  }
}

class FakeFileHandle {
  readonly kind = "file";
  constructor(readonly name: string, readonly data: FakeFileData) {}
  async getFile(): Promise<File> {
    return new File([this.data.bytes as BlobPart], this.name, {
      lastModified: this.data.lastModified,
    });
  }
  async createWritable(options: { keepExistingData?: boolean } = {}): Promise<FakeWritable> {
    return new FakeWritable(this.data, options.keepExistingData === true);
  }
}

/** An in-memory directory handle. */
export class FakeDirectoryHandle {
  readonly kind = "directory";
  readonly #children = new Map<string, FakeDirectoryHandle | FakeFileData>();
  constructor(readonly name = "") {}

  async getDirectoryHandle(name: string, options: { create?: boolean } = {}) {
    const child = this.#children.get(name);
    if (child instanceof FakeDirectoryHandle) return child;
    if (child) throw new DOMException(name, "TypeMismatchError");
    if (!options.create) throw notFound(name);
    const created = new FakeDirectoryHandle(name);
    this.#children.set(name, created);
    return created;
  }
  async getFileHandle(name: string, options: { create?: boolean } = {}) {
    const child = this.#children.get(name);
    if (child instanceof FakeFileData) return new FakeFileHandle(name, child);
    if (child) throw new DOMException(name, "TypeMismatchError");
    if (!options.create) throw notFound(name);
    const created = new FakeFileData();
    this.#children.set(name, created);
    return new FakeFileHandle(name, created);
  }
  async removeEntry(name: string): Promise<void> {
    if (!this.#children.delete(name)) throw notFound(name);
  }
  async *entries(): AsyncGenerator<[string, { kind: string; name: string }]> {
    for (const [name, child] of [...this.#children]) {
      yield [name, child instanceof FakeDirectoryHandle ? child : { kind: "file", name }];
    }
  }
  /** As the real type, for the store's constructor. */
  asHandle(): FileSystemDirectoryHandle {
    return this as unknown as FileSystemDirectoryHandle;
  }
}
