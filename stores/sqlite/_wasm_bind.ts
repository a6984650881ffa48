/**
 * Binding parameters of the sqlite-wasm adapter (`wasm.ts`) without the OO1 API's
 * per-string allocation. OO1's `Stmt.bind` encodes every string with `TextEncoder.encode`
 * (a new array each time), `malloc`s a copy in the wasm heap and hands it to SQLite: for
 * the viewer's import of the 100k-entry session (five short strings a row: session id,
 * entry id, parent id, type, path pointers) that was the largest single cost of the insert
 * (`__allocCStr` in a Chromium profile, `bench/browser/import_breakdown.ts --profile`).
 * Here a string is written into one scratch buffer the binder keeps (ASCII byte by byte,
 * anything else with `encodeInto`) and bound with `SQLITE_TRANSIENT`: SQLite
 * copies it inside the heap, so nothing is allocated from JavaScript. Integers that fit in
 * 32 bits and NULLs go straight to `sqlite3_bind_int` / `sqlite3_bind_null`; any other
 * value (a larger number, a boolean, a bigint, a blob, a string too long for the scratch)
 * is bound by OO1 as before, so every value binds as it did.
 *
 * @module
 */
import type { Database, Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import type { SqliteValue } from "./_schema.ts";

type Statement = ReturnType<Database["prepare"]>;

/** The three C binding functions the binder calls, pointers as numbers. */
interface BindFunctions {
  null(statement: number, index: number): number;
  int(statement: number, index: number, value: number): number;
  text(statement: number, index: number, text: number, bytes: number, destructor: number): number;
}

/**
 * The wasm exports themselves where pointers are 32-bit numbers (this build): the C API's
 * JavaScript wrappers (`xWrap`) push and pop a scoped allocation and convert every argument
 * on each call, 8 binds a row on an import. Otherwise the wrappers.
 */
function bindFunctions(sqlite3: Sqlite3Static): BindFunctions {
  const { capi, wasm } = sqlite3;
  const exports = wasm.exports as Record<string, unknown>;
  const pointerSize = (wasm as unknown as { ptr?: { size?: number } }).ptr?.size;
  const raw = (name: string) => typeof exports[name] === "function";
  if (pointerSize === 4 && ["null", "int", "text"].every((t) => raw(`sqlite3_bind_${t}`))) {
    return {
      null: exports.sqlite3_bind_null as BindFunctions["null"],
      int: exports.sqlite3_bind_int as BindFunctions["int"],
      text: exports.sqlite3_bind_text as BindFunctions["text"],
    };
  }
  return {
    null: (s, i) => capi.sqlite3_bind_null(s, i),
    int: (s, i, v) => capi.sqlite3_bind_int(s, i, v),
    text: (s, i, t, n, d) => capi.sqlite3_bind_text(s, i, t, n, d),
  };
}

/** Bytes of the scratch buffer: longer strings (a listing, a search text) go through OO1. */
export const SCRATCH_BYTES = 16384;

const utf8 = new TextEncoder();

/**
 * Binds parameters for the statements of one database; {@link free} when it closes.
 *
 * @example
 * ```ts
 * import { WasmBinder } from "./_wasm_bind.ts";
 * import { loadSqliteWasm } from "./wasm.ts";
 * const sqlite3 = await loadSqliteWasm();
 * const db = new sqlite3.oo1.DB(":memory:");
 * const binder = new WasmBinder(sqlite3, db);
 * const statement = db.prepare("SELECT ? || ? AS x");
 * binder.bind(statement, ["a", "b"], () => false);
 * statement.step(); // statement.get(0) === "ab"
 * statement.finalize();
 * binder.free();
 * db.close();
 * ```
 */
export class WasmBinder {
  readonly #sqlite3: Sqlite3Static;
  readonly #db: Database;
  readonly #c: BindFunctions;
  #scratch = 0; // pointer into the wasm heap; 0 until the first string

  constructor(sqlite3: Sqlite3Static, db: Database) {
    this.#sqlite3 = sqlite3;
    this.#db = db;
    this.#c = bindFunctions(sqlite3);
  }

  /**
   * Bind `params` to `statement` (parameter i + 1 = `params[i]`); `isText(bytes)` says
   * which Uint8Arrays are UTF-8 text (bound as TEXT, not as a BLOB). Throws as OO1 does
   * (SQLite's error for an index out of range, OO1's for a value it cannot bind).
   */
  bind(statement: Statement, params: SqliteValue[], isText: (p: Uint8Array) => boolean): void {
    const c = this.#c;
    const pointer = Number(statement.pointer);
    for (let i = 0; i < params.length; i++) {
      const value = params[i];
      let rc: number;
      if (value === null || value === undefined) rc = c.null(pointer, i + 1);
      else if (typeof value === "number" && (value | 0) === value) {
        rc = c.int(pointer, i + 1, value);
      } else if (typeof value === "string" && this.#fits(value)) {
        rc = this.#bindString(pointer, i + 1, value);
      } else if (value instanceof Uint8Array && isText(value)) {
        rc = this.#bindTextBytes(pointer, i + 1, value);
      } else {
        statement.bind(i + 1, value as Parameters<Statement["bind"]>[1]);
        continue;
      }
      if (rc) this.#db.checkRc(rc);
    }
  }

  /** Give the scratch buffer back (the database is closing). */
  free(): void {
    if (this.#scratch) this.#sqlite3.wasm.dealloc(this.#scratch);
    this.#scratch = 0;
  }

  /** Whether `text` surely fits the scratch buffer as UTF-8 (at most 3 bytes a UTF-16 unit). */
  #fits(text: string): boolean {
    return text.length * 3 <= SCRATCH_BYTES;
  }

  #bindString(statement: number, index: number, text: string): number {
    const { wasm } = this.#sqlite3;
    if (!this.#scratch) this.#scratch = Number(wasm.alloc(SCRATCH_BYTES));
    const at = this.#scratch;
    const heap = wasm.heap8u(); // after any allocation: a grown heap is a new buffer
    let length = text.length;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) {
        // Not ASCII: the encoder writes the whole string (it fits: checked by #fits).
        length = utf8.encodeInto(text, heap.subarray(at, at + SCRATCH_BYTES)).written;
        break;
      }
      heap[at + i] = code;
    }
    return this.#c.text(statement, index, at, length, this.#sqlite3.capi.SQLITE_TRANSIENT);
  }

  /**
   * UTF-8 bytes as TEXT: one copy into the wasm heap, which SQLite then owns
   * (`SQLITE_WASM_DEALLOC`: no second copy).
   */
  #bindTextBytes(statement: number, index: number, bytes: Uint8Array): number {
    const { capi, wasm } = this.#sqlite3;
    const pointer = Number(wasm.alloc(bytes.length || 1));
    wasm.heap8u().set(bytes, pointer);
    // SQLite calls the destructor itself when binding fails, so nothing leaks either way.
    return this.#c.text(statement, index, pointer, bytes.length, capi.SQLITE_WASM_DEALLOC);
  }
}
