/**
 * Bulk writes of `entries` rows through `COPY ... FROM STDIN (FORMAT binary)`: a sync's
 * parts and an import are thousands of rows, and as statement parameters each row's texts
 * were encoded by the driver (array literals, one joined JSON string scanned twice) and
 * parsed again by the server. Binary COPY sends each text once as length-prefixed UTF-8,
 * with nothing to escape, and the server inserts the rows in batches.
 *
 * @module
 */
import type { Runner } from "./_rows.ts";

/** What {@link copyEntryRows} writes: the `entries` columns of each row, in order. */
export interface CopyRows {
  ids: readonly (string | null)[];
  parents: readonly (string | null)[];
  types: readonly string[];
  flags: readonly number[];
  json: readonly string[];
}

/** A COPY target as postgres.js resolves it: a Node-style writable stream. */
interface CopyStream {
  write(chunk: Uint8Array): boolean;
  end(): void;
  once(event: StreamEvent, listener: (error?: unknown) => void): void;
  on(event: "error", listener: (error: unknown) => void): void;
  off(event: StreamEvent, listener: (error?: unknown) => void): void;
  readonly destroyed: boolean;
  /** The writable's end hook: postgres.js sends CopyDone here and leaves COPY mode. */
  _final(callback: (error?: Error | null) => void): void;
}

type StreamEvent = "drain" | "error" | "close";

/** The client's query surface with the COPY variant of a query. */
type CopyRunner = Runner & {
  unsafe(query: string): PromiseLike<unknown> & { writable(): Promise<CopyStream> };
};

/** `PGCOPY\n\377\r\n\0`, then no flags and no header extension. */
const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];
/** Bytes per piece sent to the server: the rows are encoded piece by piece, never whole. */
const PIECE_BYTES = 256 * 1024;
const COLUMNS = "session_id, seq, entry_id, parent_id, type, json, flags";
const FIELDS = 7;

/**
 * Write `rows` into `entries` of session `sessionId` from `firstSeq` on, in the caller's
 * transaction, then send `after` (statements that follow in the same transaction) and
 * resolve with their results once the server ran them. A COPY the server refuses aborts
 * the transaction, so `after` then rejects: that rejection, or the write's own, is what a
 * caller sees (postgres.js resolves a COPY's stream before the server's verdict on it).
 * Nothing may be sent on the transaction while this runs.
 */
export async function copyEntryRows<T>(
  tx: Runner,
  s: string,
  sessionId: string,
  firstSeq: number,
  rows: CopyRows,
  after: () => PromiseLike<T>,
): Promise<T> {
  const query = (tx as CopyRunner).unsafe(
    `COPY ${s}.entries (${COLUMNS}) FROM STDIN (FORMAT binary)`,
  );
  const stream = await query.writable();
  let failed: unknown;
  const onError = (error: unknown) => failed ??= error;
  stream.on("error", onError); // an unheard stream error would end the process
  const pieces = new CopyPieces((piece) => stream.write(piece));
  for (let i = 0; i < SIGNATURE.length; i++) pieces.byte(SIGNATURE[i]);
  pieces.int32(0);
  pieces.int32(0);
  const session = encoder.encode(sessionId);
  for (let row = 0; row < rows.json.length; row++) {
    pieces.int16(FIELDS);
    pieces.bytes(session);
    pieces.int32(8);
    pieces.int64(firstSeq + row);
    pieces.text(rows.ids[row]);
    pieces.text(rows.parents[row]);
    pieces.text(rows.types[row]);
    pieces.text(rows.json[row]);
    pieces.int32(4);
    pieces.int32(rows.flags[row]);
    if (pieces.mustWait) {
      await drained(stream, () => failed);
      pieces.mustWait = false;
    }
    if (failed !== undefined) throw failed;
  }
  pieces.int16(-1);
  pieces.flush();
  await ended(stream, () => failed);
  return await Promise.resolve(after()).catch((error) => {
    // The COPY's own error is lost to postgres.js once the stream ended; the statements
    // after it then fail only because the transaction is aborted.
    if ((error as { code?: unknown })?.code !== IN_FAILED_TRANSACTION) throw error;
    throw new Error("the server refused the entry rows (COPY); its log has the reason");
  });
}

const encoder = new TextEncoder();
/** SQLSTATE of a statement sent into a transaction that already failed. */
const IN_FAILED_TRANSACTION = "25P02";

/**
 * Ends `stream` and resolves once its end hook ran (the client sent CopyDone and takes
 * queries again), not when the server confirmed the COPY: its `finish` waits for that and
 * never comes when the server refuses the rows, while the statements sent next say so.
 */
function ended(stream: CopyStream, failure: () => unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const own = stream._final;
    const events: StreamEvent[] = ["error", "close"];
    const fail = () => {
      for (const event of events) stream.off(event, fail);
      reject(failure() ?? streamClosed());
    };
    stream._final = (callback) => {
      own.call(stream, callback);
      for (const event of events) stream.off(event, fail);
      const error = failure();
      if (error !== undefined) reject(error);
      else resolve();
    };
    if (failure() !== undefined || stream.destroyed) return fail();
    for (const event of events) stream.once(event, fail);
    stream.end();
  });
}

/** A stream closed without an error: its connection went (`transaction` knows the code). */
function streamClosed(): Error {
  return Object.assign(new Error("the connection closed during a COPY"), {
    code: "CONNECTION_CLOSED",
  });
}

/** Resolves when `stream` takes more, rejects when it failed or closed meanwhile. */
function drained(stream: CopyStream, failure: () => unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const events: StreamEvent[] = ["drain", "error", "close"];
    const done = () => {
      for (const event of events) stream.off(event, done);
      const error = failure() ?? (stream.destroyed ? streamClosed() : undefined);
      if (error !== undefined) reject(error);
      else resolve();
    };
    if (failure() !== undefined || stream.destroyed) return done();
    for (const event of events) stream.once(event, done);
  });
}

/** Binary COPY data built into fixed pieces, each handed to `send` when full. */
class CopyPieces {
  #piece = new Uint8Array(PIECE_BYTES);
  #view = new DataView(this.#piece.buffer);
  #at = 0;
  /** The last `send` asked to wait (the stream's buffer is full). */
  mustWait = false;
  readonly #send: (piece: Uint8Array) => boolean;

  constructor(send: (piece: Uint8Array) => boolean) {
    this.#send = send;
  }

  byte(value: number): void {
    this.#room(1);
    this.#piece[this.#at++] = value;
  }

  int16(value: number): void {
    this.#room(2);
    this.#view.setInt16(this.#at, value);
    this.#at += 2;
  }

  int32(value: number): void {
    this.#room(4);
    this.#view.setInt32(this.#at, value);
    this.#at += 4;
  }

  int64(value: number): void {
    this.#room(8);
    this.#view.setInt32(this.#at, Math.floor(value / 2 ** 32));
    this.#view.setUint32(this.#at + 4, value >>> 0);
    this.#at += 8;
  }

  /** A field of raw bytes, length first. */
  bytes(value: Uint8Array): void {
    this.int32(value.length);
    this.#room(value.length);
    this.#piece.set(value, this.#at);
    this.#at += value.length;
  }

  /** A text field (UTF-8, length first), or NULL. */
  text(value: string | null): void {
    if (value === null) return this.int32(-1);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: encoded in place when that fits.
    if (4 + value.length * 3 > PIECE_BYTES) return this.bytes(encoder.encode(value));
    this.#room(4 + value.length * 3);
    const { written } = encoder.encodeInto(value, this.#piece.subarray(this.#at + 4));
    this.#view.setInt32(this.#at, written);
    this.#at += 4 + written;
  }

  flush(): void {
    if (this.#at === 0) return;
    this.mustWait = !this.#send(this.#piece.subarray(0, this.#at)) || this.mustWait;
    // The stream may still hold the piece it was given: the next one is a new buffer.
    this.#piece = new Uint8Array(PIECE_BYTES);
    this.#view = new DataView(this.#piece.buffer);
    this.#at = 0;
  }

  #room(bytes: number): void {
    if (this.#at + bytes <= PIECE_BYTES) return;
    this.flush();
    if (bytes > PIECE_BYTES) { // a field longer than a piece goes alone
      this.#piece = new Uint8Array(bytes);
      this.#view = new DataView(this.#piece.buffer);
    }
  }
}
