/**
 * Plain-text formatting shared by the commands: one-line previews of message content,
 * dates, byte sizes and aligned tables.
 *
 * @module
 */

/** One line of readable text from message content (string or content blocks). */
export function preview(content: unknown, width = 160): string {
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map(blockText).join(" ")
    : content === undefined
    ? ""
    : JSON.stringify(content);
  const flat = String(text).replace(/\s+/g, " ").trim();
  return flat.length > width ? flat.slice(0, width - 1) + "…" : flat;
}

function blockText(block: { type?: string; [key: string]: unknown } | null): string {
  switch (block?.type) {
    case "text":
      return String(block.text);
    case "thinking":
      return `(thinking) ${block.thinking}`;
    case "toolCall":
      return `${block.name}(${JSON.stringify(block.arguments)})`;
    default:
      return `[${block?.type ?? "?"}]`;
  }
}

/** `2026-12-01 15:04` in UTC: sortable and the same on every machine. */
export function shortDate(date: Date): string {
  return Number.isNaN(date.getTime()) ? "-" : date.toISOString().slice(0, 16).replace("T", " ");
}

/** `1.5 MB` style sizes. */
export function byteSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Rows as columns padded to the widest cell; the last column is never padded. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => widths[i] = Math.max(widths[i] ?? 0, [...cell].length));
  }
  return rows.map((row) =>
    row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i]))
      .join("  ").trimEnd()
  ).join("\n") + (rows.length ? "\n" : "");
}

/** Show control and bidirectional-override characters visibly, so text cannot spoof a line. */
export function visible(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A count with thousands separators (`1,234,567`), the same on every machine. */
export function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** `value` and its noun, singular only for one: `1 entry`, `3 entries`. */
export function counted(value: number, one: string, many: string): string {
  return `${count(value)} ${value === 1 ? one : many}`;
}

/**
 * A library message as the command line says it: the library advises "repair the file",
 * and here the command that does it is `mu repair`.
 */
export function cliAdvice(message: string): string {
  return message.replace(
    "repair the file to drop it",
    "mu repair <file> drops it, keeping a backup",
  );
}
