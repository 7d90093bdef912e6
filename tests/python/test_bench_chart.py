"""scripts/bench-chart.py: the chart and the Markdown table of the README's side-by-side runs.

Goal: each measurement of two runs becomes one labelled group of bars, a measurement a run could
not make says why instead of a bar, and the Markdown table carries both runs' figures and the
second as a multiple of the first, with no value printed in exponent form.
Method: two small runs' CSVs written here, in `hivestore bench --csv-out`'s columns (no server).
"""

import csv
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench-chart.py"
COLUMNS = ["endpoint", "server", "workload", "mode", "connections", "calls", "seconds",
           "calls_per_second", "p50_us", "status", "detail", "table_partitions", "benchmark",
           "objects"]


def write_run(path, rows):
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS)
        writer.writeheader()
        for benchmark, p50_us, status in rows:
            workload, _, objects = benchmark.partition(".")
            writer.writerow({"endpoint": "thrift://127.0.0.1:1", "server": "s", "workload": workload,
                             "mode": "latency", "connections": 1, "calls": 10, "seconds": 1,
                             "calls_per_second": 10, "p50_us": p50_us, "status": status,
                             "detail": "", "table_partitions": "", "benchmark": benchmark,
                             "objects": objects})


def test_chart_and_table_of_two_runs(tmp_path):
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    write_run(ours, [("getTable", 45.2, "ok"), ("listPartitions.1000", 999_950, "ok"),
                     ("lock.10000", 0, "failed")])
    write_run(theirs, [("getTable", 39_700, "ok"), ("listPartitions.1000", 1_280_000, "ok"),
                       ("lock.10000", 0, "unsupported")])
    svg, table = tmp_path / "chart.svg", tmp_path / "table.md"
    subprocess.run([sys.executable, str(SCRIPT), str(svg), f"ours={ours}", f"theirs={theirs}",
                    "--markdown", str(table)], check=True)

    chart = svg.read_text()
    assert chart.startswith("<svg") and chart.rstrip().endswith("</svg>")
    assert chart.count("height=\"11\"") == 4  # a bar per measured value
    assert ">failed<" in chart and ">unsupported<" in chart

    lines = table.read_text().splitlines()
    assert lines[0] == "| benchmark | ours p50 | theirs p50 | theirs / ours |"
    rows = {line.split(" | ")[0].strip("| `"): line for line in lines[2:]}
    assert rows["getTable"] == "| `getTable` | 45.2 µs | 39.7 ms | 878x |"
    assert rows["listPartitions.1000"] == "| `listPartitions.1000` | 1.00 s | 1.28 s | 1.3x |"
    assert rows["lock.10000"] == "| `lock.10000` | failed | unsupported |  |"
    assert "e+" not in table.read_text()
