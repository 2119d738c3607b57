#!/usr/bin/env python3
"""The benchmark's ratios from one run: the peers (the NumPy, CuPy and Numba scripts of the
perspective projection the project grew from, bench/peers/seed_*.py; peers.txt from
run_peers.sh: lines "name points loops total_seconds") against pointraster_bench's JSON rows.

  compare.py PEERS_TXT BENCH_JSON [BENCH_JSON...]

"ours" for the peers is the peers' own setup: the cube in random order seen from their camera
(0, 0, 10) inside it ("inside"), 1920x1080, a whole image with depth test against the
peers' projection only. Ratios are peer time / our time (higher is better for us).
"""
import json
import sys


def load_peers(path):
    peers = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 4 and p[3] not in ("", "nan"):
                try:
                    peers[(p[0], int(p[1]))] = float(p[3]) * 1000.0 / int(p[2])
                except ValueError:
                    pass
    return peers


def load_rows(paths):
    rows, meta = [], {}
    for p in paths:
        try:
            with open(p) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            print(f"compare.py: skipping {p}: {e}")
            continue
        meta.setdefault("gpu", d.get("gpu"))
        meta.setdefault("gl", d.get("gl"))
        meta.setdefault("host", d.get("host"))
        if d.get("copy_bw_bytes_per_s"):
            meta["copy_bw"] = d["copy_bw_bytes_per_s"]
        rows.extend(d.get("rows", []))
    return rows, meta


def find(rows, renderer, points, order="random", camera="inside", size=(1920, 1080)):
    """The renderer's row (the GPU's default mode is "gpu", its other modes "gpu+MODE")."""
    for r in rows:
        if (r["renderer"], r["points"], r["order"], r["camera"], r["width"], r["height"]) == (
                renderer, points, order, camera, size[0], size[1]):
            return r
    return None


def fmt_n(n):
    return f"{n:.0e}".replace("e+0", "e")


def markdown(paths):
    """compare.py --markdown BENCH_JSON...: the rows as a Markdown table (for docs/PERFORMANCE.md)."""
    rows, _ = load_rows(paths)
    print("| renderer | points | order | camera | size | median ms | min .. max ms | points/s "
          "| B/pt | copy bw | check |")
    print("| --- | ---: | --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- |")
    for r in rows:
        pps = r["points"] / (r["median_ms"] * 1e-3) if r["median_ms"] > 0 else 0
        rate = f"{pps * 1e-9:.2f} G" if pps >= 1e9 else f"{pps * 1e-6:.1f} M"
        frac = f"{r['copy_bw_fraction'] * 100:.1f}%" if r["copy_bw_fraction"] >= 0 else "-"
        print(f"| {r['renderer']} | {fmt_n(r['points'])} | {r['order']} | {r['camera']} | "
              f"{r['width']}x{r['height']} | {r['median_ms']:.4f} | {r['min_ms']:.4f} .. "
              f"{r['max_ms']:.4f} | {rate} | {r['bytes_per_point']:.0f} | {frac} | {r['check']} |")
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--markdown":
        return markdown(sys.argv[2:])
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    peers = load_peers(sys.argv[1])
    rows, meta = load_rows(sys.argv[2:])
    print(f"host: {meta.get('host')}; gpu: {meta.get('gpu')}; gl: {meta.get('gl')}")
    if meta.get("copy_bw"):
        print(f"cudaMemcpy device-to-device: {meta['copy_bw'] * 1e-12:.3f} TB/s")
    print(f"{'comparison':<52} {'ours ms':>10} {'theirs ms':>11} {'ratio':>9}  target")
    lines = []

    def line(label, ours, theirs, target):
        ratio = theirs / ours if ours > 0 else float("inf")
        verdict = ""
        if target:
            verdict = f">= {target:g}x " + ("met" if ratio >= target else "NOT met")
        lines.append((label, ours, theirs, ratio, verdict))
        print(f"{label:<52} {ours:10.4f} {theirs:11.4f} {ratio:8.1f}x  {verdict}")

    c = peers.get(("cupy_cold", 100000))  # seed_cupy.py as first run: compile included
    g = find(rows, "gpu", 100000, camera="inside")
    if c is not None and g:
        line("GPU (inside) vs seed_cupy.py first run @ 100K", g["median_ms"], c, 50)
    for n, target in ((100000, 50), (1000000, None), (10000000, 30)):
        c = peers.get(("cupy", n))
        for cam in ("inside", "overview"):
            g = find(rows, "gpu", n, camera=cam)
            if c is not None and g:
                line(f"GPU ({cam}) vs seed_cupy.py @ {fmt_n(n)}", g["median_ms"], c,
                     target if cam == "inside" else None)
    for n in (100000, 10000000):
        c = peers.get(("numba", n))
        g = find(rows, "gpu", n)
        if c is not None and g:
            line(f"GPU (inside) vs seed_numba.py @ {fmt_n(n)}", g["median_ms"], c, None)
    for r in rows:
        if r["renderer"] != "gl":
            continue
        g = find(rows, "gpu", r["points"], r["order"], r["camera"], (r["width"], r["height"]))
        if g:
            target = 200 if r["points"] >= 10000000 else None
            line(f"GPU vs GL_POINTS @ {fmt_n(r['points'])} {r['order']} {r['camera']}",
                 g["median_ms"], r["median_ms"], target)
    for r in rows:  # the other modes (gpu+sort, gpu+compact, ...) against the default
        if r["renderer"].startswith("gpu+"):
            g = find(rows, "gpu", r["points"], r["order"], r["camera"], (r["width"], r["height"]))
            if g:
                line(f"{r['renderer']} vs GPU default @ {fmt_n(r['points'])} {r['order']} "
                     f"{r['camera']}", r["median_ms"], g["median_ms"], None)
            gl = find(rows, "gl", r["points"], r["order"], r["camera"], (r["width"], r["height"]))
            if gl:
                line(f"{r['renderer']} vs GL_POINTS @ {fmt_n(r['points'])} {r['order']} "
                     f"{r['camera']}", r["median_ms"], gl["median_ms"],
                     200 if r["points"] >= 10000000 else None)
    for n in (100000, 1000000, 10000000):
        p = peers.get(("numpy", n))
        for cam in ("inside", "overview"):
            c = find(rows, "cpu", n, camera=cam)
            if p is not None and c:
                line(f"CPU ({cam}) vs seed_numpy.py @ {fmt_n(n)}", c["median_ms"], p,
                     3 if (cam == "inside" and n >= 1000000) else None)
    if not lines:
        print("(nothing to compare: no matching peer and benchmark rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
