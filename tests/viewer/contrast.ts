/**
 * WCAG contrast of what a rendered page really shows: for every visible element with its
 * own text, the computed text colour against the background it sits on (the element's and
 * its ancestors' background colours composited, opacity applied), compared with AA (4.5:1,
 * 3:1 for large text: 24 px, or 18.66 px bold). Runs inside the page (`auditContrast` is
 * passed to `page.evaluate`, so it is self-contained); disabled controls are exempt (WCAG
 * 1.4.3), and so are 256-colour / truecolor runs of tool output (`.ansi-rgb`): their colours
 * are the session's, shown as the program chose them, not a pair the viewer picked (the 16
 * named ANSI colours are the viewer's and are audited). Colours the parser does not know are
 * reported, never skipped.
 *
 * @module
 */

/** A text/background pair below AA. */
export interface ContrastFailure {
  /** tag.class#id of the element, and the start of its text. */
  where: string;
  text: string;
  color: string;
  background: string;
  ratio: number;
  required: number;
}

/** The audit; give it to `page.evaluate`. */
export function auditContrast(): ContrastFailure[] {
  type Rgba = [number, number, number, number];
  const parse = (value: string): Rgba | null => {
    let m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(value);
    if (m) return [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
    m = /^color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.]+))?\)$/.exec(value);
    if (m) return [+m[1] * 255, +m[2] * 255, +m[3] * 255, m[4] === undefined ? 1 : +m[4]];
    return null;
  };
  const over = (top: Rgba, bottom: Rgba): Rgba => {
    const a = top[3];
    return [
      top[0] * a + bottom[0] * (1 - a),
      top[1] * a + bottom[1] * (1 - a),
      top[2] * a + bottom[2] * (1 - a),
      1,
    ];
  };
  const luminance = ([r, g, b]: Rgba) => {
    const lin = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const show = (c: Rgba) => `rgb(${c.slice(0, 3).map((v) => Math.round(v)).join(" ")})`;
  const failures: ContrastFailure[] = [];
  const unknown = (el: Element, value: string) =>
    failures.push({
      where: el.tagName,
      text: "",
      color: value,
      background: "",
      ratio: 0,
      required: 0,
    });
  const canvas: Rgba = matchMedia("(prefers-color-scheme: dark)").matches
    ? [18, 18, 18, 1]
    : [255, 255, 255, 1];
  const background = (el: Element): Rgba | null => {
    const layers: Rgba[] = [];
    for (let node: Element | null = el; node; node = node.parentElement) {
      const value = getComputedStyle(node).backgroundColor;
      const color = parse(value);
      if (!color) {
        unknown(node, value);
        return null;
      }
      if (color[3] > 0) layers.push(color);
      if (color[3] >= 1) break;
    }
    let result = canvas;
    for (const layer of layers.reverse()) result = over(layer, result);
    return result;
  };
  const opacity = (el: Element) => {
    let product = 1;
    for (let node: Element | null = el; node; node = node.parentElement) {
      product *= Number(getComputedStyle(node).opacity);
    }
    return product;
  };
  for (const el of document.body.querySelectorAll("*")) {
    const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent ?? "").join("").trim();
    if (!own || el.closest(":disabled, [hidden], option, script, style, .ansi-rgb")) continue;
    if (el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") continue;
    const svgText = el instanceof SVGElement;
    const value = svgText ? style.fill : style.color;
    const fg = parse(value);
    if (!fg) {
      unknown(el, value);
      continue;
    }
    const bg = background(el);
    if (!bg) continue;
    const shown = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
    const [hi, lo] = [luminance(shown), luminance(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const required = large ? 3 : 4.5;
    if (ratio + 1e-6 < required) {
      const cls = typeof el.className === "string" && el.className
        ? `.${el.className.trim().split(/\s+/).join(".")}`
        : "";
      failures.push({
        where: `${el.tagName.toLowerCase()}${cls}${el.id ? `#${el.id}` : ""}`,
        text: own.slice(0, 40),
        color: show(shown),
        background: show(bg),
        ratio: Math.round(ratio * 100) / 100,
        required,
      });
    }
  }
  return failures;
}
