"""pointraster.read() against laspy (lazrs backend) on one LAZ file of N points, made here with
laspy when it does not exist: seconds for each (best of --runs) and their ratio.

    python bench/python/read_bench.py --points 20000000 --file /tmp/bench.laz
"""
import argparse
import os
import time

import laspy
import numpy as np

import pointraster


def make_laz(path, n):
    rng = np.random.default_rng(7)
    header = laspy.LasHeader(point_format=7, version="1.4")
    header.scales = [0.001, 0.001, 0.001]
    header.offsets = [500000.0, 4000000.0, 0.0]
    las = laspy.LasData(header)
    las.x = 500000.0 + rng.uniform(0, 2000, n)
    las.y = 4000000.0 + rng.uniform(0, 2000, n)
    las.z = rng.uniform(0, 100, n)
    las.intensity = rng.integers(0, 65535, n, dtype=np.uint16)
    las.classification = rng.integers(0, 20, n, dtype=np.uint8)
    las.gps_time = np.sort(rng.uniform(0, 1e5, n))
    las.red = rng.integers(0, 65535, n, dtype=np.uint16)
    las.green = rng.integers(0, 65535, n, dtype=np.uint16)
    las.blue = rng.integers(0, 65535, n, dtype=np.uint16)
    las.write(path, laz_backend=laspy.LazBackend.LazrsParallel)


def best(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--file", default="/tmp/pointraster-read-bench.laz")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if not os.path.exists(a.file):
        make_laz(a.file, a.points)
    t_pr, got = best(lambda: pointraster.read(a.file), a.runs)

    def laspy_read():
        las = laspy.read(a.file, laz_backend=laspy.LazBackend.LazrsParallel)
        return np.stack([las.x, las.y, las.z], axis=1)
    t_lp, ref = best(laspy_read, a.runs)
    assert got["xyz"].shape == ref.shape
    n = len(ref)
    print(f"file {a.file}: {n} points, {os.path.getsize(a.file) / 1e6:.1f} MB, {os.cpu_count()} cores")
    print(f"pointraster.read     {t_pr:8.3f} s  {n / t_pr / 1e6:7.2f} Mpoints/s")
    print(f"laspy (lazrs, xyz)   {t_lp:8.3f} s  {n / t_lp / 1e6:7.2f} Mpoints/s")
    print(f"ratio laspy / pointraster: {t_lp / t_pr:.2f}")


if __name__ == "__main__":
    main()
