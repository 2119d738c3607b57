#!/usr/bin/env python3
"""Conversion benchmark: pointraster --convert against laspy + lazrs, interleaved in one run.

  convert_bench.py compare POINTRASTER IN.las [--runs N] [--tmp DIR] [--only ROWS]
                    [--baseline OTHER_POINTRASTER]
      LAS -> COPC (ours), LAS -> LAZ (ours), LAS -> LAZ (laspy + lazrs-parallel, which builds no
      octree), and LAS -> COPC by a baseline build when given, each run in turn, N rounds; wall
      seconds, M points/s and peak RSS of each, and laspy's time over ours (best, median, and
      each round's: on a machine shared with other work the rounds' ratios say more than times).
  convert_bench.py scaling POINTRASTER IN.las [--cores 1,2,4,8,16] [--runs N] [--tmp DIR]
      LAS -> COPC pinned to the first k cores (taskset) with --threads k.
  convert_bench.py memory POINTRASTER IN.las --memory MB [--tmp DIR]
      LAS -> COPC with --memory MB: peak RSS against the budget.
  convert_bench.py city OUT.las [--points N] [--seed S]
      Writes a held-out input made apart from laz_bench.py's survey: an airborne scan of a city
      of point format 7 (LAS 1.4, scale 0.001): five strips of zigzag scan lines over a grid of
      70 m blocks, buildings of 8 - 150 m with flat roofs and parapets, wall hits, parks, street
      and park trees (a second return at the ground under most crowns), rare noise; colours per
      roof, asphalt, grass and crown; intensity by surface and scan angle; GPS time per pulse.
      NumPy and laspy, deterministic for (N, S); 12,000,000 points by default.

Peak RSS is the child's ru_maxrss (os.wait4). Outputs are deleted after each run.
"""
import argparse
import os
import subprocess
import sys
import time


CPU = {}  # the CPU seconds (user + system) of each command's last run, by its first two words


def run(cmd, env=None):
    """Runs cmd; returns (seconds, peak RSS in MB) and notes its CPU seconds in CPU. Exits on
    failure."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"convert_bench: {' '.join(cmd)} failed:\n{err[-2000:]}")
    CPU[tuple(cmd[:2])] = usage.ru_utime + usage.ru_stime
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


CITY_TAG = "pointraster convert_bench city 1"


def city_generate(path, n, seed):
    """Writes a LAS 1.4 file of point format 7, n points: an airborne scan of a city (see
    the module's doc). Deterministic for (n, seed); a file already there with the same header
    is kept."""
    import laspy
    import numpy as np

    try:
        with laspy.open(path) as f:
            h = f.header
            if (h.point_count == n and h.point_format.id == 7 and
                    h.generating_software.rstrip("\0") == CITY_TAG and
                    h.system_identifier.rstrip("\0") == f"seed {seed}"):
                return
    except Exception:  # absent, partial or foreign: write it
        pass

    rng = np.random.default_rng(seed)
    size = 900.0  # m: the city's square
    block, street = 70.0, 14.0  # a block's pitch and its streets' width
    lines_per_strip = int(size / 0.35)
    strips = 5
    swath = 260.0
    pulses_per_line = -(-int(n / 1.10) // (strips * lines_per_strip))  # ~11.5% second returns
    rate = 400000.0

    def h01(a, b, salt):
        v = (a.astype(np.int64) * 73856093) ^ (b.astype(np.int64) * 19349663) ^ (salt * 83492791)
        v = (v * 2654435761) & 0xFFFFFFFF
        return v / 4294967296.0

    def ground(x, y):
        return 42.0 + 6.0 * np.sin(x / 210.0) * np.cos(y / 170.0) + 0.02 * x

    q = np.arange(strips * lines_per_strip * pulses_per_line, dtype=np.int64)
    strip = q // (lines_per_strip * pulses_per_line)
    line = (q // pulses_per_line) % lines_per_strip
    k = q % pulses_per_line
    u = k / (pulses_per_line - 1.0)
    u = np.where(line % 2 == 0, u, 1.0 - u)  # zigzag across the track
    t = strip * (lines_per_strip * pulses_per_line / rate + 70.0) + q % (
        lines_per_strip * pulses_per_line) / rate
    along = line * 0.35 + u * 0.35 + rng.normal(0, 0.03, len(q))
    across = (u - 0.5) * swath + 1.5 * np.sin(t * 0.4) + rng.normal(0, 0.03, len(q))
    x = np.where(strip % 2 == 0, along, size - along)
    y = strip * (size / strips) + size / strips / 2 + across
    y = np.clip(y, -swath / 2, size + swath / 2)
    del along, across, k
    g = ground(x, y) + rng.normal(0, 0.015, len(q))

    # City blocks: buildings on lots, flat roofs with parapets, towers; parks; street trees.
    bx, by = np.floor(x / block), np.floor(y / block)
    lx, ly = x - bx * block, y - by * block
    park = h01(bx, by, 1) < 0.12
    inblock = (lx > street / 2) & (lx < block - street / 2) & (ly > street / 2) & (ly < block - street / 2)
    lot_w = (block - street) / 2
    lotx = np.floor((lx - street / 2) / lot_w)
    loty = np.floor((ly - street / 2) / lot_w)
    bid = (bx * 4 + lotx) * 100003 + by * 4 + loty
    ox, oy = (lx - street / 2) - lotx * lot_w, (ly - street / 2) - loty * lot_w
    margin = 1.0 + 3.0 * h01(bid.astype(np.int64), loty, 2)
    in_b = inblock & ~park & (ox > margin) & (ox < lot_w - margin) & (oy > margin) & (oy < lot_w - margin)
    tall = h01(bid.astype(np.int64), lotx, 3)
    height = np.where(tall > 0.9, 60.0 + 90.0 * tall, 8.0 + 30.0 * tall)
    roof = ground(bx * block + block / 2, by * block + block / 2) + height
    parapet = in_b & ((ox < margin + 0.5) | (ox > lot_w - margin - 0.5) |
                      (oy < margin + 0.5) | (oy > lot_w - margin - 0.5))
    roof = roof + np.where(parapet, 1.0, 0.0) + rng.normal(0, 0.02, len(q))
    # Street trees every 9 m along the streets, crowns of 2.5 - 4.5 m; park trees on a jittered grid.
    sx = np.floor(x / 9.0)
    sy = np.floor(y / 9.0)
    cx = sx * 9.0 + 4.5 + 2.0 * (h01(sx, sy, 4) - 0.5)
    cy = sy * 9.0 + 4.5 + 2.0 * (h01(sx, sy, 5) - 0.5)
    r = 2.5 + 2.0 * h01(sx, sy, 6)
    d2 = (x - cx) ** 2 + (y - cy) ** 2
    tree_here = (~inblock & (h01(sx, sy, 7) < 0.55)) | (park & inblock & (h01(sx, sy, 8) < 0.8))
    in_t = tree_here & ~in_b & (d2 < r * r)
    crown = g + 7.0 + 8.0 * h01(sx, sy, 9) + np.sqrt(np.maximum(r * r - d2, 0)) * 0.9

    cls = np.full(len(q), 2, np.uint8)
    z = g.copy()
    cls[in_b] = 6
    z[in_b] = roof[in_b]
    cls[in_t] = 5
    z[in_t] = crown[in_t] + rng.normal(0, 0.25, int(in_t.sum()))
    wall = in_b & ~parapet & (np.minimum(np.minimum(ox - margin, lot_w - margin - ox),
                                         np.minimum(oy - margin, lot_w - margin - oy)) < 0.7)
    cls[wall & (h01(q, q, 10) < 0.3)] = 1  # wall hits: unclassified, somewhere down the facade
    zw = cls == 1
    z[zw] = g[zw] + (roof[zw] - g[zw]) * h01(q[zw], q[zw], 11)
    noise = h01(q, q, 12) < 0.0004
    cls[noise] = 7
    z[noise] = z[noise] + rng.uniform(-40, 200, int(noise.sum()))

    # Colours: roofs one per building, streets grey asphalt, parks green, trees green.
    rgb = np.empty((len(q), 3), np.float64)
    asphalt = 70 + 20 * h01(np.floor(x * 2), np.floor(y * 2), 13)
    rgb[:] = asphalt[:, None]
    grass = inblock & park
    rgb[grass] = np.stack([60 + 30 * h01(np.floor(x[grass]), np.floor(y[grass]), 14),
                           110 + 40 * h01(np.floor(x[grass]), np.floor(y[grass]), 15),
                           50 + 0 * x[grass]], 1)
    roofc = np.stack([h01(bid.astype(np.int64), bx, 16), h01(bid.astype(np.int64), by, 17),
                      h01(bid.astype(np.int64), lotx, 18)], 1) * 180 + 40
    rgb[in_b] = roofc[in_b]
    rgb[in_t] = np.stack([40 + 40 * h01(q[in_t], sx[in_t], 19), 90 + 60 * h01(q[in_t], sy[in_t], 20),
                          30 + 30 * h01(q[in_t], q[in_t], 21)], 1)
    rgb = np.clip(rgb + rng.normal(0, 6, rgb.shape), 0, 255)
    intensity = np.where(cls == 6, 900, np.where(cls == 5, 1600, np.where(grass, 1900, 500)))
    intensity = np.clip(intensity * (1 - 0.3 * np.abs(u - 0.5)) + rng.normal(0, 120, len(q)),
                        0, 65535)

    # Trees and building edges give a second return at the ground under them.
    two = (in_t & (h01(q, q, 22) < 0.6)) | parapet
    nret = np.where(two, 2, 1).astype(np.uint8)
    idx = np.concatenate([np.arange(len(q)), np.nonzero(two)[0]])
    second = np.concatenate([np.zeros(len(q), bool), np.ones(int(two.sum()), bool)])
    order = np.lexsort((second, idx))  # each pulse's returns together, first return first
    idx, second = idx[order][:n], second[order][:n]
    if len(idx) < n:
        raise SystemExit("convert_bench: the city holds fewer points than asked")

    hdr = laspy.LasHeader(point_format=7, version="1.4")
    hdr.scales = np.array([0.001, 0.001, 0.001])
    hdr.offsets = np.array([691000.0, 4316000.0, 0.0])
    hdr.generating_software = CITY_TAG
    hdr.system_identifier = f"seed {seed}"
    rec = laspy.ScaleAwarePointRecord.zeros(n, header=hdr)
    rec.x = 691200.0 + x[idx]
    rec.y = 4316300.0 + y[idx]
    rec.z = np.where(second, g[idx], z[idx])
    rec["return_number"] = np.where(second, 2, 1)
    rec["number_of_returns"] = nret[idx]
    rec["classification"] = np.where(second, 2, cls[idx])
    rec["intensity"] = np.where(second, intensity[idx] * 0.4, intensity[idx]).astype(np.uint16)
    rec["scan_direction_flag"] = (line[idx] % 2 == 0)
    rec["edge_of_flight_line"] = (u[idx] < 1e-9) | (u[idx] > 1 - 1e-9)
    rec["point_source_id"] = 700 + strip[idx]
    rec["scan_angle"] = np.round((u[idx] - 0.5) * 30.0 / 0.006).astype(np.int16)
    rec["gps_time"] = 4.1e8 + t[idx]
    rgb16 = (rgb[idx] * 257).astype(np.uint16)
    rec["red"], rec["green"], rec["blue"] = rgb16[:, 0], rgb16[:, 1], rgb16[:, 2]
    out = laspy.LasData(hdr, rec)
    tmp = path + ".part"
    out.write(tmp)
    os.replace(tmp, path)


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
    if a.baseline:  # another build of the program, timed in the same rounds
        rows["baseline LAS -> COPC"] = lambda o: [a.baseline, "--convert", o + ".copc.laz",
                                                  a.input]
    if a.only:
        keep = {"copc": "ours LAS -> COPC", "laz": "ours LAS -> LAZ",
                "laspy": "laspy + lazrs-parallel LAS -> LAZ", "baseline": "baseline LAS -> COPC"}
        rows = {keep[w]: rows[keep[w]] for w in a.only.split(",")}
    times = {k: [] for k in rows}
    cpu = {k: [] for k in rows}
    rss = {k: 0.0 for k in rows}
    out = os.path.join(a.tmp, "convert_bench_out")
    for _ in range(a.runs):
        for k, cmd in rows.items():
            c = cmd(out)
            dt, mb = run(c)
            times[k].append(dt)
            cpu[k].append(CPU[tuple(c[:2])])
            rss[k] = max(rss[k], mb)
            rm(out + ".copc.laz")
            rm(out + ".laz")
    print(f"{n} points, {os.path.getsize(a.input) / 1e6:.0f} MB, {os.cpu_count()} cores, "
          f"{a.runs} rounds")
    print("| conversion | seconds (best, median) | CPU seconds (least, median) | "
          "M points/s (best) | peak RSS MB |")
    print("|---|---:|---:|---:|---:|")
    for k in rows:
        t, c = sorted(times[k]), sorted(cpu[k])
        print(f"| {k} | {t[0]:.2f}, {t[len(t) // 2]:.2f} | {c[0]:.2f}, {c[len(c) // 2]:.2f} | "
              f"{n / t[0] / 1e6:.2f} | {rss[k]:.0f} |")
    best = {k: min(v) for k, v in times.items()}
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    lz, co = "laspy + lazrs-parallel LAS -> LAZ", "ours LAS -> COPC"
    if lz not in times or co not in times:
        return
    per_round = sorted(l / c for l, c in zip(times[lz], times[co]))
    print(f"laspy+lazrs LAZ / ours COPC time: {best[lz] / best[co]:.2f}x best, "
          f"{med[lz] / med[co]:.2f}x median, per round {', '.join(f'{r:.2f}' for r in per_round)}")
    mc = {k: sorted(v)[len(v) // 2] for k, v in cpu.items()}
    print(f"laspy+lazrs LAZ / ours COPC CPU seconds (median): {mc[lz] / mc[co]:.2f}x")
    bl = "baseline LAS -> COPC"
    if bl in times:
        per_round = sorted(l / c for l, c in zip(times[lz], times[bl]))
        print(f"laspy+lazrs LAZ / baseline COPC time: {best[lz] / best[bl]:.2f}x best, "
              f"{med[lz] / med[bl]:.2f}x median, per round "
              f"{', '.join(f'{r:.2f}' for r in per_round)}")
        print(f"laspy+lazrs LAZ / baseline COPC CPU seconds (median): {mc[lz] / mc[bl]:.2f}x")


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
    ap.add_argument("what", choices=["compare", "scaling", "memory", "city"])
    ap.add_argument("pointraster", help="the program (city: the LAS file to write)")
    ap.add_argument("input", nargs="?")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cores", default="1,2,4,8,16")
    ap.add_argument("--memory", type=int, default=256)
    ap.add_argument("--tmp", default="/tmp")
    ap.add_argument("--points", type=int, default=12_000_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", default="",
                    help="compare: the rows to run, comma-separated among copc, laz, laspy, "
                         "baseline")
    ap.add_argument("--baseline", default="",
                    help="compare: another build of pointraster, its LAS -> COPC timed in the "
                         "same rounds")
    a = ap.parse_args()
    if a.what == "city":
        city_generate(a.pointraster, a.points, a.seed)
        return
    if a.input is None:
        ap.error("IN.las is needed")
    {"compare": compare, "scaling": scaling, "memory": memory}[a.what](a)


if __name__ == "__main__":
    main()
