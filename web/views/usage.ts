/**
 * Usage and cost: totals for the whole session (every branch was billed) and the active
 * branch, a per-model table, and a per-turn chart drawn as inline SVG (stacked token bars:
 * input, cache read, cache write, output; a cost line on its own scale). No chart library.
 *
 * @module
 */
import { el, formatCost, formatTokens, svg } from "../dom.ts";
import type { UsageBar, UsageTotals, UsageView } from "../types.ts";

const SERIES: Array<{ key: "input" | "cacheRead" | "cacheWrite" | "output"; label: string }> = [
  { key: "input", label: "input" },
  { key: "cacheRead", label: "cache read" },
  { key: "cacheWrite", label: "cache write" },
  { key: "output", label: "output" },
];

function totalsCard(title: string, totals: UsageTotals): HTMLElement {
  const cells: Array<[string, string]> = [
    ["cost", formatCost(totals.cost)],
    ["total tokens", formatTokens(totals.totalTokens)],
    ["input", formatTokens(totals.input)],
    ["output", formatTokens(totals.output)],
    ["cache read", formatTokens(totals.cacheRead)],
    ["cache write", formatTokens(totals.cacheWrite)],
    ["billed calls", String(totals.calls)],
  ];
  return el(
    "section",
    { class: "card totals" },
    el("h3", {}, title),
    el(
      "dl",
      { class: "facts big" },
      ...cells.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]),
    ),
  );
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** The per-turn chart as an `<svg>` (viewBox scaled to the container width by CSS). */
export function usageChart(bars: UsageBar[]): SVGSVGElement {
  const width = 760, height = 240, left = 52, right = 52, top = 12, bottom = 28;
  const plotW = width - left - right, plotH = height - top - bottom;
  const tokens = (b: UsageBar) => b.input + b.cacheRead + b.cacheWrite + b.output;
  const maxTokens = niceMax(Math.max(0, ...bars.map(tokens)));
  const maxCost = niceMax(Math.max(0, ...bars.map((b) => b.cost)));
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "chart",
    role: "img",
    "aria-label": "Tokens and cost per turn on this branch",
  });
  for (let i = 0; i <= 4; i++) {
    const y = top + plotH - (plotH * i) / 4;
    chart.append(
      svg("line", { x1: left, x2: width - right, y1: y, y2: y, class: "grid" }),
      svg(
        "text",
        { x: left - 6, y: y + 4, class: "axis", "text-anchor": "end" },
        formatTokens((maxTokens * i) / 4),
      ),
      svg(
        "text",
        { x: width - right + 6, y: y + 4, class: "axis cost-axis" },
        formatCost((maxCost * i) / 4),
      ),
    );
  }
  const slot = bars.length ? plotW / bars.length : plotW;
  const barW = Math.max(1, Math.min(28, slot * 0.72));
  const costPoints: string[] = [];
  bars.forEach((bar, i) => {
    const x = left + slot * i + (slot - barW) / 2;
    let y = top + plotH;
    const group = svg("g", { class: "bar" });
    const turns = bar.turns > 1
      ? `turns ${bar.turn}–${bar.turn + bar.turns - 1}`
      : `turn ${bar.turn}`;
    group.append(svg(
      "title",
      {},
      `${turns} (${bar.entryId}): ${formatTokens(bar.input)} in, ${
        formatTokens(bar.cacheRead)
      } cache read, ` +
        `${formatTokens(bar.cacheWrite)} cache write, ${formatTokens(bar.output)} out, ${
          formatCost(bar.cost)
        }`,
    ));
    for (const series of SERIES) {
      const h = (bar[series.key] / maxTokens) * plotH;
      if (h <= 0) continue;
      y -= h;
      group.append(
        svg("rect", { x, y, width: barW, height: Math.max(h, 0.5), class: `s-${series.key}` }),
      );
    }
    chart.append(group);
    costPoints.push(`${x + barW / 2},${top + plotH - (bar.cost / maxCost) * plotH}`);
  });
  if (costPoints.length > 1) {
    chart.append(svg("polyline", { points: costPoints.join(" "), class: "cost-line" }));
  }
  const step = Math.max(1, Math.ceil(bars.length / 12));
  bars.forEach((bar, i) => {
    if (i % step !== 0) return;
    chart.append(
      svg("text", {
        x: left + slot * i + slot / 2,
        y: height - 10,
        class: "axis",
        "text-anchor": "middle",
      }, String(bar.turn)),
    );
  });
  return chart;
}

/** The whole usage panel. */
export function renderUsage(usage: UsageView): HTMLElement {
  const legend = el(
    "div",
    { class: "legend" },
    ...SERIES.map((s) => el("span", { class: `key s-${s.key}` }, s.label)),
    el("span", { class: "key cost" }, "cost"),
  );
  const bucketed = usage.bars.some((b) => b.turns > 1);
  return el(
    "div",
    { class: "usage" },
    el(
      "div",
      { class: "cards" },
      totalsCard("Whole session (all branches)", usage.session),
      totalsCard("This branch", usage.branch),
    ),
    el(
      "section",
      { class: "card" },
      el("h3", {}, "Per turn on this branch"),
      usage.bars.length
        ? el(
          "div",
          {},
          legend,
          usageChart(usage.bars),
          bucketed
            ? el("p", { class: "muted" }, "Consecutive turns are summed into one bar.")
            : null,
        )
        : el("p", { class: "muted" }, "No billed model calls on this branch."),
    ),
    usage.byModel.length
      ? el(
        "section",
        { class: "card" },
        el("h3", {}, "By model (whole session)"),
        el(
          "table",
          { class: "table" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              ...["model", "calls", "input", "output", "cache read", "cost"].map((h) =>
                el("th", {}, h)
              ),
            ),
          ),
          el(
            "tbody",
            {},
            ...usage.byModel.map(({ model, totals }) =>
              el(
                "tr",
                {},
                el("td", {}, model),
                el("td", { class: "num" }, String(totals.calls)),
                el("td", { class: "num" }, formatTokens(totals.input)),
                el("td", { class: "num" }, formatTokens(totals.output)),
                el("td", { class: "num" }, formatTokens(totals.cacheRead)),
                el("td", { class: "num" }, formatCost(totals.cost)),
              )
            ),
          ),
        ),
      )
      : null,
  );
}
