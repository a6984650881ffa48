/**
 * Child process for the cross-runtime resume test (`tests/deno/jsonl_resume_runtimes.test.ts`):
 * opens session <id> in folder <dir> through `SessionManager.open` and prints how many of the
 * session file's bytes the checking pass streamed (0 when a resume index was honoured), read
 * by range (the index's prefix hashed again when the file's identity did not match; bodies)
 * and the context's message count. Runs under Deno as is, under Node bundled.
 */
import process from "node:process";
import { SessionManager } from "../../core.ts";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { attachBackend, backendOf } from "../../stores/jsonl/_backend.ts";
import { CountingFs } from "./counting_fs.ts";

class Streamed extends CountingFs {
  streamed = 0;
  ranged = 0;
  constructor(inner: NodeJsonlFolderFs) {
    super(inner);
    attachBackend(this, backendOf(inner)); // the identity, `readSync` and the user's key
  }
  override async *readStream(path: string, start?: number): AsyncIterable<Uint8Array> {
    for await (const chunk of super.readStream(path, start)) {
      if (!path.startsWith(".mu-index")) this.streamed += chunk.length;
      yield chunk;
    }
  }
  override async read(path: string, start: number, end: number): Promise<Uint8Array> {
    const bytes = await super.read(path, start, end);
    if (!path.startsWith(".mu-index")) this.ranged += bytes.length;
    return bytes;
  }
}

const [dir, id] = process.argv.slice(2);
const fs = new Streamed(new NodeJsonlFolderFs(dir, { trashCommand: false }));
const store = new JsonlSessionStore(fs);
const manager = await SessionManager.open(store, id);
const messages = manager.buildSessionContext().messages.length;
await store.close();
console.log(JSON.stringify({ streamed: fs.streamed, ranged: fs.ranged, messages }));
