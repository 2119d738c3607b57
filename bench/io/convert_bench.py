#!/usr/bin/env python3
"""Conversion benchmark: pointraster --convert against laspy + lazrs, interleaved in one run.

  convert_bench.py compare POINTRASTER IN.las [--runs N] [--tmp DIR]
      LAS -> COPC (ours), LAS -> LAZ (ours), LAS -> LAZ (laspy + lazrs-parallel, which builds no
      octree), each run in turn, N rounds; wall seconds, M points/s and peak RSS of each.
  convert_bench.py scaling POINTRASTER IN.las [--cores 1,2,4,8,16] [--runs N] [--tmp DIR]
      LAS -> COPC pinned to the first k cores (taskset) with --threads k.
  convert_bench.py memory POINTRASTER IN.las --memory MB [--tmp DIR]
      LAS -> COPC with --memory MB: peak RSS against the budget.

Peak RSS is the child's ru_maxrss (os.wait4). Outputs are deleted after each run.
"""
import argparse
import os
import subprocess
import sys
import time


def run(cmd, env=None):
    """Runs cmd; returns (seconds, peak RSS in MB). Exits on failure."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"convert_bench: {' '.join(cmd)} failed:\n{err[-2000:]}")
    return dt, usage.ru_maxrss / 1024.0


LASPY_LAZ = """
import sys, laspy
src, dst = sys.argv[1], sys.argv[2]
with laspy.open(src) as r:
    with laspy.open(dst, mode="w", header=r.header, do_compress=True,
                    laz_backend=laspy.LazBackend.LazrsParallel) as w:
        for chunk in r.chunk_iterator(2_000_000):
            w.write_points(chunk)
"""


def points_of(path):
    with open(path, "rb") as f:
        h = f.read(375)
    legacy = int.from_bytes(h[107:111], "little")
    return int.from_bytes(h[247:255], "little") if h[25] >= 4 else legacy


def rm(path):
    if os.path.exists(path):
        os.remove(path)


def compare(a):
    n = points_of(a.input)
    rows = {
        "ours LAS -> COPC": lambda o: [a.pointraster, "--convert", o + ".copc.laz", a.input],
        "ours LAS -> LAZ": lambda o: [a.pointraster, "--convert", o + ".laz", a.input],
        "laspy + lazrs-parallel LAS -> LAZ": lambda o: [sys.executable, "-c", LASPY_LAZ, a.input,
                                                        o + ".laz"],
    }
    times = {k: [] for k in rows}
    rss = {k: 0.0 for k in rows}
    out = os.path.join(a.tmp, "convert_bench_out")
    for _ in range(a.runs):
        for k, cmd in rows.items():
            dt, mb = run(cmd(out))
            times[k].append(dt)
            rss[k] = max(rss[k], mb)
            rm(out + ".copc.laz")
            rm(out + ".laz")
    print(f"{n} points, {os.path.getsize(a.input) / 1e6:.0f} MB, {os.cpu_count()} cores, "
          f"{a.runs} rounds")
    print("| conversion | seconds (best, median) | M points/s (best) | peak RSS MB |")
    print("|---|---:|---:|---:|")
    for k in rows:
        t = sorted(times[k])
        print(f"| {k} | {t[0]:.2f}, {t[len(t) // 2]:.2f} | {n / t[0] / 1e6:.2f} | {rss[k]:.0f} |")
    best = {k: min(v) for k, v in times.items()}
    print(f"laspy+lazrs LAZ / ours COPC time: "
          f"{best['laspy + lazrs-parallel LAS -> LAZ'] / best['ours LAS -> COPC']:.2f}x")


def scaling(a):
    n = points_of(a.input)
    cores = [int(c) for c in a.cores.split(",")]
    times = {k: [] for k in cores}
    out = os.path.join(a.tmp, "convert_bench_out.copc.laz")
    for _ in range(a.runs):
        for k in cores:
            dt, _ = run(["taskset", "-c", f"0-{k - 1}", a.pointraster, "--convert", out,
                         a.input, "--threads", str(k)])
            times[k].append(dt)
            rm(out)
    print(f"{n} points, LAS -> COPC, best of {a.runs}")
    print("| cores | seconds | M points/s | speed-up |")
    print("|---:|---:|---:|---:|")
    base = min(times[cores[0]])
    for k in cores:
        t = min(times[k])
        print(f"| {k} | {t:.2f} | {n / t / 1e6:.2f} | {base / t:.1f}x |")


def memory(a):
    n = points_of(a.input)
    out = os.path.join(a.tmp, "convert_bench_out.copc.laz")
    dt, mb = run([a.pointraster, "--convert", out, a.input, "--memory", f"{a.memory}M",
                  "--temp", a.tmp])
    rm(out)
    print(f"{n} points ({os.path.getsize(a.input) / 1e6:.0f} MB of LAS) -> COPC with --memory "
          f"{a.memory} MB: {dt:.2f} s, peak RSS {mb:.0f} MB (budget + {mb - a.memory:.0f} MB)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["compare", "scaling", "memory"])
    ap.add_argument("pointraster")
    ap.add_argument("input")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cores", default="1,2,4,8,16")
    ap.add_argument("--memory", type=int, default=256)
    ap.add_argument("--tmp", default="/tmp")
    a = ap.parse_args()
    {"compare": compare, "scaling": scaling, "memory": memory}[a.what](a)


if __name__ == "__main__":
    main()
