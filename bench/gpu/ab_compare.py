#!/usr/bin/env python3
"""run_ab_device.sh's logs as a table: for every row (pointraster_bench's GPU rows and the
headless terrain's `render_ms`) each build's times over the rounds, and the best of the first build
(bin) against the best of each other one (bin-*). Rows slower by more than THRESHOLD (3%) are
marked.

  ab_compare.py ab.log [ab.log ...]
"""
import collections
import re
import sys

THRESHOLD = 1.03


def read(paths):
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in paths:
        build = case = None
        for line in open(path):
            m = re.match(r"== (\S+), round", line)
            if m:
                build = m.group(1)
                continue
            m = re.match(r"-- terrain 1e9 (\S+)", line)
            if m:
                case = "terrain 1e9 " + m.group(1)
                continue
            m = re.match(r"summary .*render_ms=([\d.]+)", line)
            if m and case:
                rows[case][build].append(float(m.group(1)))
                continue
            p = line.split()
            if len(p) > 5 and p[0].startswith("gpu"):
                rows[" ".join(p[0:4])][build].append(float(p[5]))
    return rows


def main(paths):
    rows = read(paths)
    builds = sorted({b for r in rows.values() for b in r}, key=lambda b: (b != "bin", b))
    slower = 0
    print("| row | " + " | ".join(builds) + " | best ratio |")
    print("| --- |" + " ---: |" * (len(builds) + 1))
    for name, by_build in rows.items():
        cells = [" / ".join(f"{t:.4f}" for t in by_build.get(b, [])) for b in builds]
        ratios = [min(by_build["bin"]) / min(by_build[b]) for b in builds[1:] if by_build.get(b)]
        mark = " (slower)" if any(r > THRESHOLD for r in ratios) else ""
        slower += bool(mark)
        print(f"| {name} | " + " | ".join(cells) + " | " +
              ", ".join(f"{r:.3f}" for r in ratios) + mark + " |")
    print(f"\n{len(rows)} rows, {slower} slower than {THRESHOLD:.2f}x the other build's best")


if __name__ == "__main__":
    main(sys.argv[1:])
