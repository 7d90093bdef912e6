#!/usr/bin/env python3
"""A chart comparing `hivestore bench` runs, as an SVG written by hand (no plotting library).

    scripts/bench-chart.py OUT.svg LABEL=RUN.csv[,RUN.csv...] [LABEL=...] [--metric p50_us] [--title T]
        [--markdown OUT.md]

Each RUN.csv is a report of `hivestore bench --csv-out` (or `--format csv`). The chart is a
grouped horizontal bar chart: one group per measurement (its hmsbench name, e.g.
`listPartitions.1000`, or bench's workload and table size), one bar per run, on a log scale so
that microseconds and seconds fit on one axis. A measurement a run could not make says why
(`unsupported`, `failed`, `not run`) instead of a bar. Latency mode rows only, unless the metric
is `calls_per_second` (then every row, with its connection count in the name).

`--markdown` also writes the same figures as a Markdown table, one row per measurement and one
column per run, with each later run's value as a multiple of the first run's (for latencies,
how many times slower; for calls per second, how many times fewer), for a README.
"""

import argparse
import csv
import math
import sys
from xml.sax.saxutils import escape

COLOURS = ["#1f6feb", "#d9480f", "#2f9e44", "#7048e8", "#e8590c"]
ROW_HEIGHT = 14
GROUP_GAP = 8
LABEL_WIDTH = 300
PLOT_WIDTH = 620
VALUE_WIDTH = 90
TOP = 80
METRICS = {
    "p50_us": ("median latency per call (p50), log scale", "lower is better"),
    "mean_us": ("mean latency per call, log scale", "lower is better"),
    "p99_us": ("99th percentile latency per call, log scale", "lower is better"),
    "calls_per_second": ("calls per second, log scale", "higher is better"),
}


def measurement_name(row, metric):
    name = row.get("benchmark") or row["workload"]
    if row.get("table_partitions") and not row.get("objects"):
        name = f'{row["workload"]}@{int(row["table_partitions"]):,}'
    if metric == "calls_per_second":
        name += f' x{row["connections"]}'
    return name


def read_run(path, metric):
    found = {}
    with open(path) as file:
        for row in csv.DictReader(file):
            if metric != "calls_per_second" and row["mode"] != "latency":
                continue
            found[measurement_name(row, metric)] = row
    return found


def size_of(name):
    """Sort key: the workload's name, then its size (`.1000`, `@10,000`), numerically."""
    for separator in (".", "@"):
        base, _, size = name.partition(" x")[0].rpartition(separator)
        digits = size.replace(",", "")
        if base and digits.isdigit():
            return (base, int(digits), name)
    return (name, 0, name)


def format_value(value, metric):
    if metric == "calls_per_second":
        return f"{value:,.0f}/s"
    # Thresholds just under the unit, so that three significant digits never round to 1e+03.
    if value >= 999.5e3:
        return f"{value / 1e6:.2f} s"
    if value >= 999.5:
        return f"{value / 1e3:.3g} ms"
    return f"{value:.3g} µs"


def axis_ticks(low, high, metric):
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        value = 10.0**exponent
        ticks.append((value, format_value(value, metric).replace(".00", "")))
    return ticks


def render(runs, metric, title):
    names = sorted({name for _, found in runs for name in found}, key=size_of)
    values = [
        float(row[metric])
        for _, found in runs
        for row in found.values()
        if row["status"] == "ok" and float(row[metric] or 0) > 0
    ]
    if not values:
        sys.exit("no measured rows to chart")
    low = 10 ** math.floor(math.log10(min(values)))
    high = 10 ** math.ceil(math.log10(max(values)))
    span = math.log10(high) - math.log10(low)

    def x_of(value):
        return LABEL_WIDTH + PLOT_WIDTH * (math.log10(value) - math.log10(low)) / span

    group_height = ROW_HEIGHT * len(runs) + GROUP_GAP
    height = TOP + group_height * len(names) + 40
    width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH
    axis_title, better = METRICS[metric]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="20" font-size="15" font-weight="bold">{escape(title)}</text>',
        f'<text x="10" y="38" fill="#444">{escape(axis_title)}; {better}</text>',
    ]
    legend_x = LABEL_WIDTH
    for index, (label, _) in enumerate(runs):
        colour = COLOURS[index % len(COLOURS)]
        out.append(f'<rect x="{legend_x}" y="46" width="12" height="10" fill="{colour}"/>')
        out.append(f'<text x="{legend_x + 16}" y="55">{escape(label)}</text>')
        legend_x += 24 + 7 * len(label)
    plot_bottom = TOP + group_height * len(names)
    for value, text in axis_ticks(low, high, metric):
        x = x_of(value)
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{plot_bottom}" stroke="#ddd"/>')
        # Labels above and below: the chart is tall.
        for label_y in (TOP - 8, plot_bottom + 14):
            out.append(f'<text x="{x:.1f}" y="{label_y}" text-anchor="middle" fill="#444">{escape(text)}</text>')
    for group, name in enumerate(names):
        top = TOP + group * group_height
        if group % 2 == 0:
            out.append(f'<rect x="0" y="{top - 2}" width="{width}" height="{group_height - 4}" fill="#f6f8fa"/>')
        middle = top + ROW_HEIGHT * len(runs) / 2 + 3
        out.append(f'<text x="{LABEL_WIDTH - 8}" y="{middle:.1f}" text-anchor="end">{escape(name)}</text>')
        for index, (_, found) in enumerate(runs):
            row = found.get(name)
            y = top + index * ROW_HEIGHT
            colour = COLOURS[index % len(COLOURS)]
            value = float(row[metric] or 0) if row else 0.0
            if row is None or row["status"] != "ok" or value <= 0:
                why = why_missing(row)
                out.append(f'<text x="{LABEL_WIDTH + 4}" y="{y + 10}" fill="{colour}" font-style="italic">{why}</text>')
                continue
            bar = max(x_of(value) - LABEL_WIDTH, 1.0)
            out.append(f'<rect x="{LABEL_WIDTH}" y="{y}" width="{bar:.1f}" height="{ROW_HEIGHT - 3}" fill="{colour}"/>')
            out.append(f'<text x="{LABEL_WIDTH + bar + 4:.1f}" y="{y + 10}">{escape(format_value(value, metric))}</text>')
    out.append(f'<line x1="{LABEL_WIDTH}" y1="{TOP - 4}" x2="{LABEL_WIDTH}" y2="{plot_bottom}" stroke="#888"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def why_missing(row):
    if row is None:
        return "not run"
    return row["status"] if row["status"] != "ok" else "no calls"


def markdown(runs, metric):
    """The chart's figures as a Markdown table; later runs also as multiples of the first."""
    names = sorted({name for _, found in runs for name in found}, key=size_of)
    labels = [label for label, _ in runs]
    ratios = [f"{label} / {labels[0]}" for label in labels[1:]]
    if metric == "calls_per_second":
        ratios = [f"{labels[0]} / {label}" for label in labels[1:]]
    header = ["benchmark"] + [f"{label} {metric.removesuffix('_us')}" for label in labels] + ratios
    out = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for name in names:
        values = []
        cells = [f"`{name}`"]
        for _, found in runs:
            row = found.get(name)
            value = float(row[metric] or 0) if row and row["status"] == "ok" else 0.0
            values.append(value)
            cells.append(format_value(value, metric) if value > 0 else why_missing(row))
        for value in values[1:]:
            first = values[0]
            if value > 0 and first > 0:
                ratio = value / first if metric != "calls_per_second" else first / value
                cells.append(f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2g}x")
            else:
                cells.append("")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the SVG file to write")
    parser.add_argument("runs", nargs="+", help="LABEL=RUN.csv[,RUN.csv...], one per run")
    parser.add_argument("--metric", default="p50_us", choices=sorted(METRICS))
    parser.add_argument("--title", default="hivestore bench")
    parser.add_argument("--markdown", metavar="OUT.md", help="also write the figures as a Markdown table")
    args = parser.parse_args()
    runs = []
    for spec in args.runs:
        label, separator, path = spec.partition("=")
        if not separator:
            sys.exit(f"{spec!r}: give each run as LABEL=RUN.csv")
        found = {}
        for one in path.split(","):
            found.update(read_run(one, args.metric))
        runs.append((label, found))
    with open(args.out, "w") as file:
        file.write(render(runs, args.metric, args.title))
    if args.markdown:
        with open(args.markdown, "w") as file:
            file.write(markdown(runs, args.metric))


if __name__ == "__main__":
    main()
