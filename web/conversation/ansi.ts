/**
 * ANSI terminal output as styled text: SGR sequences (`ESC[...m`) set colours (the 16
 * named ones as classes the stylesheet themes, 256-colour and truecolor as `rgb()`), bold,
 * italic and underline, and reset; every other escape sequence (cursor moves, OSC titles
 * and links, charset switches) is removed, so no escape code is ever shown as text.
 *
 * @module
 */
import type { HNode, HStyle } from "./hnode.ts";

/** The style of a run of text. */
export interface AnsiStyle {
  /** 0-15: a named colour (class `ansi-fg-N`); or an `rgb()` string. */
  fg?: number | string;
  bg?: number | string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

/** A run of text with one style. */
export interface AnsiSegment {
  text: string;
  style: AnsiStyle;
}

// CSI (ESC [ params final), OSC (ESC ] ... BEL or ESC \), other two-byte escapes, and the
// 8-bit CSI introducer. Group 1 = SGR parameters when the CSI ends in "m".
const ESCAPES =
  // deno-lint-ignore no-control-regex -- escape sequences are what is parsed here
  /\x1b\[([0-9;:?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -\/]*[0-~]?|\x9b[0-9;?]*[@-~]/g;

const CUBE = [0, 95, 135, 175, 215, 255];

/** The `rgb()` of a 256-colour index 16-255 (0-15 stay named). */
export function color256(n: number): number | string {
  if (n < 16) return n;
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  return `rgb(${CUBE[Math.floor(i / 36)]},${CUBE[Math.floor(i / 6) % 6]},${CUBE[i % 6]})`;
}

function clampByte(value: number | undefined): number {
  return Math.max(0, Math.min(255, Math.trunc(value ?? 0)));
}

/** Apply one SGR parameter list to a style (returns the new style). */
function applySgr(style: AnsiStyle, params: string): AnsiStyle {
  const codes = params === "" ? [0] : params.split(/[;:]/).map((p) => p === "" ? 0 : Number(p));
  let next: AnsiStyle = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) next = {};
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 22) next.bold = next.dim = undefined;
    else if (code === 23) next.italic = undefined;
    else if (code === 24) next.underline = undefined;
    else if (code === 27) next.inverse = undefined;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code === 39) next.fg = undefined;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
    else if (code === 49) next.bg = undefined;
    else if (code === 38 || code === 48) {
      let value: number | string | undefined;
      if (codes[i + 1] === 5) {
        value = color256(clampByte(codes[i + 2]));
        i += 2;
      } else if (codes[i + 1] === 2) {
        value = `rgb(${clampByte(codes[i + 2])},${clampByte(codes[i + 3])},${
          clampByte(codes[i + 4])
        })`;
        i += 4;
      } else break; // malformed: ignore the rest of this sequence
      if (code === 38) next.fg = value;
      else next.bg = value;
    }
  }
  return next;
}

function sameStyle(a: AnsiStyle, b: AnsiStyle): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.bold === b.bold && a.dim === b.dim &&
    a.italic === b.italic && a.underline === b.underline && a.inverse === b.inverse;
}

/**
 * Split terminal output into styled runs; escape sequences other than SGR are dropped.
 *
 * @example
 * ```ts
 * parseAnsi("\x1b[31merror\x1b[0m ok");
 * // [{ text: "error", style: { fg: 1 } }, { text: " ok", style: {} }]
 * ```
 */
export function parseAnsi(text: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  let style: AnsiStyle = {};
  let last = 0;
  const push = (chunk: string) => {
    if (!chunk) return;
    const prev = segments[segments.length - 1];
    if (prev && sameStyle(prev.style, style)) prev.text += chunk;
    else segments.push({ text: chunk, style });
  };
  ESCAPES.lastIndex = 0;
  for (let match = ESCAPES.exec(text); match; match = ESCAPES.exec(text)) {
    push(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === "m") style = applySgr(style, match[1] ?? "");
  }
  push(text.slice(last));
  return segments;
}

/**
 * Text with every terminal escape sequence removed (for one-line labels, where colours
 * have no place and a raw `ESC[31m` reads as noise).
 *
 * @example
 * ```ts
 * stripAnsi("\x1b[31mFAIL\x1b[0m test"); // "FAIL test"
 * ```
 */
export function stripAnsi(text: string): string {
  return hasAnsi(text) ? text.replace(ESCAPES, "") : text;
}

/** Whether text holds any escape sequence (plain output skips the parser's spans). */
export function hasAnsi(text: string): boolean {
  return text.includes("\x1b") || text.includes("\x9b");
}

/**
 * Styled runs as {@link HNode}s: plain runs as text, styled ones as spans with `ansi-*`
 * classes (named colours, bold, ...) and `rgb()` colours.
 *
 * @example
 * ```ts
 * ansiToHNodes("\x1b[1;32mPASS\x1b[0m"); // [{ tag: "span", class: "ansi-bold ansi-fg-2", ... }]
 * ```
 */
export function ansiToHNodes(text: string): HNode[] {
  return parseAnsi(text).map(({ text, style }) => {
    let fg = style.fg;
    let bg = style.bg;
    if (style.inverse) [fg, bg] = [bg ?? "default-bg", fg ?? "default-fg"];
    const classes: string[] = [];
    const inline: HStyle = {};
    if (style.bold) classes.push("ansi-bold");
    if (style.dim) classes.push("ansi-dim");
    if (style.italic) classes.push("ansi-italic");
    if (style.underline) classes.push("ansi-underline");
    if (typeof fg === "number") classes.push(`ansi-fg-${fg}`);
    else if (fg === "default-bg") classes.push("ansi-fg-inverse");
    else if (fg) inline.color = fg;
    if (typeof bg === "number") classes.push(`ansi-bg-${bg}`);
    else if (bg === "default-fg") classes.push("ansi-bg-inverse");
    else if (bg) inline.background = bg;
    if (!classes.length && !inline.color && !inline.background) return text;
    // Colours the output chose itself (256-colour, truecolor) are shown as the program
    // chose them, as a terminal would; the class lets the contrast audit tell them apart.
    if (inline.color || inline.background) classes.push("ansi-rgb");
    return {
      tag: "span",
      class: classes.join(" ") || undefined,
      style: inline.color || inline.background ? inline : undefined,
      children: [text],
    };
  });
}
