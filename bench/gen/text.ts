/**
 * Deterministic randomness and text for the session generator. Everything here is derived
 * from one seeded PRNG, so the same seed yields byte-identical files on every machine.
 *
 * Text is drawn from pools built once per generator (code lines, prose words), because
 * building 240 MB character by character would make generation slower than the benchmark.
 * @module
 */

/** sfc32: small, fast, seedable; good enough for benchmark data (not for crypto). */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    this.#a = 0x9e3779b9;
    this.#b = 0x243f6a88;
    this.#c = 0xb7e15162;
    this.#d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next(); // mix the seed in
  }

  /** Uniform float in [0, 1). */
  next(): number {
    const a = this.#a, b = this.#b, c = this.#c, d = this.#d;
    const t = (((a + b) | 0) + d) | 0;
    this.#d = (d + 1) | 0;
    this.#a = b ^ (b >>> 9);
    this.#b = (c + (c << 3)) | 0;
    this.#c = ((c << 21) | (c >>> 11)) + t | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Log-uniform integer in [min, max]: many small values, a long tail (like tool output). */
  logInt(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min))));
  }

  hex(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += HEX[Math.floor(this.next() * 16)];
    return out;
  }

  base62(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += B62[Math.floor(this.next() * 62)];
    return out;
  }

  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${
      h.slice(20)
    }`;
  }
}

const HEX = "0123456789abcdef";
const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const WORDS = (
  "the a session entry branch leaf parent index store file test fails when we open it after " +
  "append compaction summary model thinking tool result read write edit bash grep import " +
  "export function module type error value config path cache listing project worker browser " +
  "sqlite jsonl stream bytes line parse should could would please also then check why fix " +
  "refactor rename move add remove update keep drop handle large small fast slow memory time " +
  "because instead maybe exactly every only first last next previous current new old same " +
  "different correct wrong missing extra async await promise array object string number null"
).split(" ");

/**
 * Non-ASCII words. Latin-1 ones keep V8 strings one byte per character; the wide ones
 * (CJK, arrows, emoji) make the whole string two bytes per character, which doubles its
 * memory. Real transcripts have both: LLM prose is full of "—" and "→", most tool output
 * is ASCII. The rates below give about half of prose texts and a third of tool outputs a
 * wide character.
 */
const LATIN1_WORDS = ["café", "naïve", "Zürich", "½", "µs", "déjà", "Ærø"];
const WIDE_WORDS = ["日本語", "テスト", "проверка", "→", "—", "…", "✓", "🚀", "👍🏽", "∑"];

const IDENTS = (
  "session entries index leafId parentId byId children path store header cursor result " +
  "options signal chunk bytes decoder splitter record line offset rows db stmt tx listing " +
  "state info name summary label target replacement message content block usage cost"
).split(" ");

/** Text pools shared by every session a generator writes. */
export class TextPools {
  readonly codeLines: string[] = [];
  readonly base64: string;

  constructor(rng: Rng) {
    for (let i = 0; i < 6000; i++) this.codeLines.push(codeLine(rng));
    // One long random base64 string; images are slices of it at random offsets.
    const bytes = new Uint8Array(240_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rng.next() * 256);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    this.base64 = btoa(binary);
  }

  /** Prose of about `length` characters, with some non-ASCII words. */
  prose(rng: Rng, length: number): string {
    const parts: string[] = [];
    let size = 0;
    let sentenceStart = true;
    while (size < length) {
      let word = rng.chance(0.004)
        ? rng.pick(WIDE_WORDS)
        : rng.chance(0.02)
        ? rng.pick(LATIN1_WORDS)
        : rng.pick(WORDS);
      if (sentenceStart) word = word[0].toUpperCase() + word.slice(1);
      sentenceStart = rng.chance(0.08);
      if (sentenceStart) word += rng.chance(0.8) ? "." : "?";
      else if (rng.chance(0.05)) word += ",";
      parts.push(word);
      size += word.length + 1;
    }
    return parts.join(" ");
  }

  /** Code-like multi-line text of about `length` characters (consecutive pool lines). */
  code(rng: Rng, length: number, numbered = false): string {
    const lines: string[] = [];
    let at = rng.int(0, this.codeLines.length - 1);
    let size = 0;
    let number = rng.int(1, 400);
    while (size < length) {
      const line = this.codeLines[at];
      at = (at + 1) % this.codeLines.length;
      const text = numbered ? `${String(number++).padStart(5)}\t${line}` : line;
      lines.push(text);
      size += text.length + 1;
    }
    return lines.join("\n");
  }

  /** A base64 image payload of about `bytes` characters (multiple of 4: valid base64). */
  image(rng: Rng, bytes: number): string {
    const length = Math.min(this.base64.length, bytes) & ~3;
    const start = rng.int(0, (this.base64.length - length) >> 2) << 2;
    return this.base64.slice(start, start + length);
  }
}

function codeLine(rng: Rng): string {
  const id = () => rng.pick(IDENTS);
  const indent = "  ".repeat(rng.int(0, 3));
  // About 1% of lines carry a wide character, so about a third of 2 KB outputs do.
  if (rng.chance(0.01)) {
    switch (rng.int(0, 3)) {
      case 0:
        return `\u001b[32m✓\u001b[0m ${id()} ${id()} (${rng.int(1, 900)}ms)`;
      case 1:
        return `${indent}// ${id()} must stay ${id()} — see ${id()}.ts (${rng.pick(WIDE_WORDS)})`;
      case 2:
        // A raw U+2028 in a string: JSON.stringify keeps it; splitters must not break on it.
        return `${indent}const sep = "a\u2028b"; // ${id()}`;
      default:
        return `${indent}\t${id()}.push(\`${"${"}${id()}}/${id()}\`); // naïve café 日本語 🚀`;
    }
  }
  switch (rng.int(0, 12)) {
    case 0:
      return `export function ${id()}${rng.int(1, 9)}(${id()}: string, ${id()}?: number): ${
        rng.pick(["void", "string[]", "Promise<Entry>", "Map<string, Node>"])
      } {`;
    case 1:
      return `${indent}const ${id()} = await ${id()}.${id()}(${JSON.stringify(id())});`;
    case 2:
      return `${indent}if (${id()} === null) throw new Error("${id()} \\"${id()}\\" not found");`;
    case 3:
      return `${indent}// ${
        rng.pick(["TODO", "NOTE", "why:", "FIXME"])
      } ${id()} must stay ${id()}, see ${id()}.ts`;
    case 4:
      return `${indent}return { ${id()}: ${
        rng.int(0, 9999)
      }, "${id()}": "C:\\\\Users\\\\dev\\\\${id()}.ts" };`;
    case 5:
      return `-rw-r--r--  1 dev dev ${rng.int(80, 90000)} Nov ${rng.int(1, 30)} 22:${
        rng.int(10, 59)
      } ${id()}_${id()}.ts`;
    case 6:
      return `\u001b[32mok\u001b[0m ${id()} ${id()} (${rng.int(1, 900)}ms)`;
    case 7:
      return `${indent}\t${id()}.push(\`${"${"}${id()}}/${id()}\`); // ${rng.pick(LATIN1_WORDS)}`;
    case 8:
      return `src/${id()}.ts:${rng.int(1, 400)}:${
        rng.int(1, 80)
      }: ${id()} is declared but never read`;
    case 9:
      return `${indent}expect(${id()}).toEqual([${rng.int(0, 99)}, ${rng.int(0, 99)}, "${
        rng.pick(LATIN1_WORDS)
      }"]);`;
    case 10:
      return "";
    case 11:
      return `${indent}}`;
    default:
      return `${indent}${id()}.${id()}(${id()}, ${rng.chance(0.5) ? "true" : "null"});`;
  }
}
