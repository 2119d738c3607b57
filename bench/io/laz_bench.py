#!/usr/bin/env python3
"""The Python half of `io_bench --laz`: generates large LAZ files with laspy + lazrs and times
laspy's readers on LAZ files.

  laz_bench.py generate DIR [--points N] [--seed S] [--formats 1,3,6,7,8] [--jobs J]
      Writes DIR/survey-f<F>[-eb]-<N>.laz for each point format (format 8 with three scalar
      extra bytes), N points each, compressed by lazrs (laspy's LazrsParallel writer, chunks of
      50,000 points), and prints their paths. A file already there with the same header (point
      count, format, seed, generator version) is kept. J formats are written at once
      (default: one on 4 cores or fewer, else all).
  laz_bench.py time FILE [--runs R] [--min-seconds S]
      Reads FILE with laspy.read() through lazrs' parallel decoder (LazBackend.LazrsParallel,
      every core) and through LASzip (LazBackend.Laszip, one core), best of R runs (more while
      the runs took less than S seconds together, at most 100), and prints one line a reader:
      `NAME ok POINTS SECONDS FORMAT EXTRA_BYTES` or `NAME fail MESSAGE`.

The generated data imitate an airborne survey, since LAZ's ratio and speed depend on how points
follow each other: parallel flight strips of zigzag scan lines (200 kHz pulses, 2000 a line,
600 m swath from 900 m), each pulse giving 1 to 4 returns along its beam over rolling terrain,
houses with gable roofs, forest and scattered trees, a river that swallows most pulses, and
rare noise points; GPS time per pulse, intensity from the surface's reflectance and the range,
scan angle, flags, classes (ground, vegetation by height, building, water, noise,
unclassified), RGB from an imagined orthophoto (8-bit values scaled by 256), NIR, and for
format 8 amplitude, reflectance and deviation as extra bytes. Everything follows from the seed.
"""
import argparse
import concurrent.futures
import gc
import math
import os
import sys
import time

import laspy
import numpy as np

# The header's generating software, with the generator's version: raise it when pulses() or
# records() change what is written, so that files of the old one are written again.
TAG = "pointraster laz_bench 1"

# The survey: strips fly along +y and -y in turn, scanning across x.
PULSES_PER_LINE = 2000
SWATH = 600.0  # m across
ALTITUDE = 900.0  # m above the terrain's mean
LINE_SPACING = 0.5  # m between scan lines along the track
STRIP_LENGTH = 1200.0  # m
STRIP_SPACING = 450.0  # m: 150 m overlap between neighbours
PULSE_RATE = 200000.0  # Hz
TURN_S = 95.0  # s between strips
LINES_PER_STRIP = int(STRIP_LENGTH / LINE_SPACING)
PULSES_PER_STRIP = PULSES_PER_LINE * LINES_PER_STRIP
CHUNK = 50000  # lazrs' default chunk size: files are written in whole chunks

EXTRA = [laspy.ExtraBytesParams(name="amplitude", type="u2", scales=np.array([0.01]),
                                offsets=np.array([0.0]), description="dB"),
         laspy.ExtraBytesParams(name="reflectance", type="i2", scales=np.array([0.01]),
                                offsets=np.array([0.0]), description="dB"),
         laspy.ExtraBytesParams(name="deviation", type="u2")]


def hash01(ix, iy, salt):
    """A uniform number in [0, 1) for each integer cell (ix, iy): the scene's objects."""
    h = (ix.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ \
        (iy.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)) ^ np.uint64(salt * 0x165667B1)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(32)
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


class Scene:
    def __init__(self, seed):
        self.p = np.random.default_rng(seed).uniform(0.0, 2.0 * math.pi, 16)

    def ground(self, x, y):
        p = self.p
        return (210.0 + 0.015 * x - 0.01 * y
                + 25.0 * np.sin(x / 410.0 + p[0]) * np.cos(y / 330.0 + p[1])
                + 8.0 * np.sin((x + 0.6 * y) / 150.0 + p[2])
                + 1.5 * np.sin(x / 37.0 + p[3]) * np.sin(y / 53.0 + p[4]))

    def town(self, x, y):
        p = self.p
        return np.sin(x / 500.0 + p[5]) + np.cos(y / 420.0 + p[6]) > 0.9

    def forest(self, x, y):
        p = self.p
        return (np.sin(x / 260.0 + p[7]) * np.cos(y / 310.0 + p[8])
                + 0.3 * np.sin((x + y) / 90.0 + p[9])) > 0.35

    def river(self, x, y):
        p = self.p
        return np.abs(x - (900.0 + 150.0 * np.sin(y / 400.0 + p[10]))) < 18.0


def pulses(scene, first, count, rng):
    """Pulses first .. first+count-1 of the flight: where they hit and what they return.
    Returns one dict of per-point arrays (the pulses' returns, in firing order)."""
    q = np.arange(first, first + count, dtype=np.int64)
    strip = q // PULSES_PER_STRIP
    inside = q % PULSES_PER_STRIP
    line = inside // PULSES_PER_LINE
    k = inside % PULSES_PER_LINE
    direction = line % 2  # the mirror sweeps left to right, then back
    u = k / (PULSES_PER_LINE - 1.0)
    u = np.where(direction == 0, u, 1.0 - u)
    t_strip = PULSES_PER_STRIP / PULSE_RATE
    t = strip * (t_strip + TURN_S) + inside / PULSE_RATE
    roll = 4.0 * np.sin(t * 0.31) + 1.5 * np.sin(t * 1.7)  # m: the aircraft's wobble
    across = (u - 0.5) * SWATH + roll + rng.normal(0.0, 0.04, count)
    along = (line + u) * LINE_SPACING + 0.6 * np.sin(t * 0.23) + rng.normal(0.0, 0.04, count)
    x = strip * STRIP_SPACING + across
    y = np.where(strip % 2 == 0, along, STRIP_LENGTH - along)
    g = scene.ground(x, y)

    # What each pulse hits first: roof, crown, water or ground.
    n = np.ones(count, np.int64)
    top = g.copy()
    bottom = g.copy()  # the last return's height
    kind = np.zeros(count, np.int64)  # 0 ground, 1 building, 2 tree, 3 water, 4 shrub, 5 noise
    obj = np.zeros(count)  # a per-object number for colors and reflectance
    reach_ground = np.ones(count, bool)

    town = scene.town(x, y)
    bx, by = np.floor(x / 40.0), np.floor(y / 40.0)
    has_b = town & (hash01(bx, by, 1) < 0.6)
    w = 12.0 + 20.0 * hash01(bx, by, 2)
    d = 10.0 + 20.0 * hash01(bx, by, 3)
    lx, ly = x - bx * 40.0, y - by * 40.0
    in_b = has_b & (lx > 4.0) & (lx < 4.0 + w) & (ly > 4.0) & (ly < 4.0 + d)
    h_b = 5.0 + 15.0 * hash01(bx, by, 4)
    roof = scene.ground(bx * 40.0 + 20.0, by * 40.0 + 20.0) + h_b - 0.45 * np.abs(ly - 4.0 - d / 2)
    edge = in_b & ((lx < 4.6) | (lx > 3.4 + w) | (ly < 4.6) | (ly > 3.4 + d))
    kind[in_b] = 1
    top[in_b] = roof[in_b]
    obj[in_b] = hash01(bx, by, 5)[in_b]
    n[edge] = 2  # the roof's edge, then the ground beside it
    reach_ground[in_b & ~edge] = False
    bottom[in_b & ~edge] = top[in_b & ~edge]

    forest = scene.forest(x, y) & ~town
    tx, ty = np.floor(x / 6.0), np.floor(y / 6.0)
    cx = (tx + 0.2 + 0.6 * hash01(tx, ty, 6)) * 6.0
    cy = (ty + 0.2 + 0.6 * hash01(tx, ty, 7)) * 6.0
    r = 1.5 + 2.0 * hash01(tx, ty, 8)
    has_t = np.where(forest, hash01(tx, ty, 9) < 0.85, hash01(tx, ty, 9) < 0.03)
    dist = np.hypot(x - cx, y - cy)
    in_t = has_t & (dist < r) & ~in_b
    h_t = np.where(forest, 8.0 + 17.0 * hash01(tx, ty, 10), 5.0 + 8.0 * hash01(tx, ty, 10))
    crown = g + h_t * (1.0 - 0.35 * (dist / r) ** 2) - np.abs(rng.normal(0.0, 0.3, count))
    nt = 1 + np.searchsorted([0.25, 0.6, 0.85], rng.random(count))
    kind[in_t] = 2
    top[in_t] = crown[in_t]
    obj[in_t] = hash01(tx, ty, 11)[in_t]
    n[in_t] = nt[in_t]
    to_ground = rng.random(count) < 0.7
    stuck = in_t & ((nt == 1) | ~to_ground)
    reach_ground[stuck] = False
    bottom[stuck] = (g + h_t * rng.uniform(0.1, 0.5, count))[stuck]
    bottom[in_t & (nt == 1)] = top[in_t & (nt == 1)]

    shrub = (kind == 0) & (rng.random(count) < 0.04)
    kind[shrub] = 4
    n[shrub] = 2
    top[shrub] = (g + rng.uniform(0.3, 1.5, count))[shrub]

    water = scene.river(x, y) & (kind == 0)
    kind[water] = 3
    top[water] = bottom[water] = (scene.ground(900.0 + 0.0 * x, y) - 3.0)[water]
    noise = rng.random(count) < 2e-4
    kind[noise] = 5
    n[noise] = 1
    top[noise] = bottom[noise] = (g - rng.uniform(2.0, 30.0, count))[noise]
    reach_ground[noise | water] = False
    keep = ~water | (rng.random(count) < 0.15)  # water swallows most pulses

    # One point per return.
    n = np.where(keep, n, 0)
    total = int(n.sum())
    idx = np.repeat(np.arange(count), n)
    start = np.cumsum(n) - n
    rn = np.arange(total) - start[idx] + 1
    nn = n[idx]
    frac = np.where(nn > 1, (rn - 1) / np.maximum(nn - 1, 1), 0.0)
    mid = (rn > 1) & (rn < nn)
    frac = np.where(mid, np.clip(frac + rng.uniform(-0.15, 0.15, total) / np.maximum(nn - 1, 1),
                                 0.02, 0.98), frac)
    z = top[idx] - (top[idx] - bottom[idx]) * frac
    last_ground = reach_ground[idx] & (rn == nn) & (nn > 1)
    single_ground = (kind[idx] == 0) | (kind[idx] == 4) & (rn == nn)
    on_ground = last_ground | single_ground
    z = np.where(on_ground, g[idx] + rng.normal(0.0, 0.03, total), z)
    a = across[idx]
    # A return lower along the beam lies further out across the track.
    px = x[idx] + (top[idx] - z) * a / ALTITUDE
    py = y[idx] + rng.normal(0.0, 0.01, total)
    height = z - g[idx]

    kp = kind[idx]
    cls = np.full(total, 2, np.uint8)
    veg = ((kp == 2) | (kp == 4)) & ~on_ground
    cls[veg] = np.where(height[veg] < 2.0, 3, np.where(height[veg] < 5.0, 4, 5))
    cls[(kp == 1) & ~on_ground] = 6
    cls[kp == 3] = 9
    cls[kp == 5] = 7
    cls[(rng.random(total) < 0.02) & (kp != 5)] = 1

    refl = np.select([kp == 1, kp == 2, kp == 3, kp == 4, kp == 5],
                     [0.1 + 0.4 * obj[idx], 0.45 + 0.1 * obj[idx], 0.03, 0.4, 0.05],
                     0.3 + 0.1 * np.sin(px / 13.0) * np.cos(py / 17.0))
    refl = np.where(on_ground, 0.3 + 0.1 * np.sin(px / 13.0) * np.cos(py / 17.0), refl)
    rng2 = ALTITUDE ** 2 + a ** 2
    share = np.where(nn > 1, 1.6 / (nn + 0.6), 1.0)
    inten = refl * 60000.0 * (ALTITUDE ** 2 / rng2) * share * rng.lognormal(0.0, 0.15, total)
    angle = np.degrees(np.arctan2(a, ALTITUDE))

    # Colors of an orthophoto: by surface, textured, with sensor noise.
    soil = 0.5 + 0.5 * np.sin(px / 23.0 + scene.p[12]) * np.cos(py / 29.0 + scene.p[13])
    base = np.stack([95 + 45 * soil, 115 + 5 * soil, 60 + 30 * soil], 1)
    roofs = np.array([[150, 60, 50], [110, 110, 115], [70, 70, 75], [170, 150, 120]], float)
    tint = obj[idx][:, None]
    col = np.select([(kp == 1)[:, None] & ~on_ground[:, None], veg[:, None], (kp == 3)[:, None]],
                    [roofs[(obj[idx] * 4).astype(int) % 4],
                     np.stack([40 + 30 * tint[:, 0], 70 + 40 * tint[:, 0], 35 + 10 * tint[:, 0]],
                              1), np.array([30.0, 50.0, 70.0])], base)
    # The photo's grain moves the three channels together, its sensor noise each alone.
    col = np.clip(col + rng.normal(0.0, 6.0, (total, 1)) + rng.normal(0.0, 2.0, (total, 3)), 0,
                  255)
    nir = np.select([veg, (kp == 1) & ~on_ground, kp == 3], [190.0, 60.0, 10.0],
                    90 + 40 * (1 - soil))
    nir = np.clip(nir + rng.normal(0.0, 8.0, total), 0, 255)

    return {
        "x": px, "y": py, "z": z, "intensity": np.clip(inten, 1, 65535).astype(np.uint16),
        "return_number": rn.astype(np.uint8), "number_of_returns": nn.astype(np.uint8),
        "scan_direction_flag": (direction[idx] == 0).astype(np.uint8),
        "edge_of_flight_line": ((k[idx] == 0) | (k[idx] == PULSES_PER_LINE - 1)).astype(np.uint8),
        "classification": cls, "angle": angle,
        "point_source_id": (101 + strip[idx]).astype(np.uint16),
        "overlap": (np.abs(a) > 225.0).astype(np.uint8), "t": t[idx],
        "rgb": (np.round(col) * 256).astype(np.uint16),
        "nir": (np.round(nir) * 256).astype(np.uint16),
        "amplitude": np.clip(10.0 * np.log10(inten) + rng.normal(0, 0.3, total), 0, 600),
        "reflectance": np.clip(10.0 * np.log10(refl) + rng.normal(0, 0.4, total), -300, 300),
        "deviation": np.clip(np.where(veg, 12.0, 3.0) + rng.exponential(3.0, total), 0, 60000),
    }


def records(header, p):
    fmt = header.point_format.id
    rec = laspy.ScaleAwarePointRecord.zeros(len(p["x"]), header=header)
    rec.x, rec.y, rec.z = p["x"], p["y"], p["z"]
    for name in ("intensity", "return_number", "number_of_returns", "scan_direction_flag",
                 "edge_of_flight_line", "classification", "point_source_id"):
        rec[name] = p[name]
    if fmt >= 6:
        rec["overlap"] = p["overlap"]
        rec["scan_angle"] = np.round(p["angle"] / 0.006).astype(np.int16)
        rec["gps_time"] = 3.3e8 + 1.2e4 + p["t"]  # adjusted standard GPS time
    else:
        rec["scan_angle_rank"] = np.round(p["angle"]).astype(np.int8)
        rec["gps_time"] = 3.12e5 + p["t"]  # GPS week time
    if fmt in (2, 3, 5, 7, 8, 10):
        rec["red"], rec["green"], rec["blue"] = p["rgb"][:, 0], p["rgb"][:, 1], p["rgb"][:, 2]
    if fmt in (8, 10):
        rec["nir"] = p["nir"]
    if "amplitude" in header.point_format.dimension_names:
        raw = rec.array  # the stored integers (scale 0.01 dB)
        raw["amplitude"] = np.round(p["amplitude"] * 100).astype(np.uint16)
        raw["reflectance"] = np.round(p["reflectance"] * 100).astype(np.int16)
        raw["deviation"] = np.round(p["deviation"]).astype(np.uint16)
    return rec


def make_header(fmt, extra, seed):
    hdr = laspy.LasHeader(point_format=fmt, version="1.4" if fmt >= 6 else "1.2")
    if extra:
        hdr.add_extra_dims(EXTRA)
    hdr.scales = np.array([0.01, 0.01, 0.01])
    hdr.offsets = np.array([512000.0, 5400000.0, 0.0])
    hdr.generating_software = TAG
    hdr.system_identifier = f"seed {seed}"
    return hdr


def is_current(path, fmt, extra, n, seed):
    try:
        with laspy.open(path) as f:
            h = f.header
            return (h.point_count == n and h.point_format.id == fmt and
                    h.point_format.num_extra_bytes == (6 if extra else 0) and
                    h.generating_software.rstrip("\0") == TAG and
                    h.system_identifier.rstrip("\0") == f"seed {seed}")
    except Exception:  # a partial or foreign file: write it again
        return False


def generate_one(directory, n, seed, fmt):
    """Writes one format's file, unless it is there already; returns its path."""
    extra = fmt == 8
    path = os.path.join(directory, f"survey-f{fmt}{'-eb' if extra else ''}-{n}.laz")
    if is_current(path, fmt, extra, n, seed):
        return path
    t0 = time.perf_counter()
    scene = Scene(seed)
    hdr = make_header(fmt, extra, seed)
    tmp = path + ".part"
    batch = 1 << 20  # pulses at a time
    written, first, b = 0, 0, 0
    rest = None
    with laspy.open(tmp, mode="w", header=hdr, do_compress=True,
                    laz_backend=laspy.LazBackend.LazrsParallel) as w:
        while written < n:
            # The same seed gives every format the same survey.
            rec = records(hdr, pulses(scene, first, batch, np.random.default_rng([seed, b])))
            first += batch
            b += 1
            if rest is not None:
                rec.array = np.concatenate([rest, rec.array])
            take = min(n - written, len(rec.array))
            if written + take < n:
                take -= take % CHUNK  # whole chunks; the rest waits for the next batch
            rest = rec.array[take:].copy()
            rec.array = rec.array[:take]
            w.write_points(rec)
            written += take
    os.replace(tmp, path)
    print(f"laz_bench: wrote {path}: {n} points, format {fmt}, {os.path.getsize(path) / 1e6:.0f} "
          f"MB, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return path


def generate(directory, n, seed, formats, jobs):
    os.makedirs(directory, exist_ok=True)
    if jobs <= 1:
        paths = [generate_one(directory, n, seed, f) for f in formats]
    else:  # the formats side by side: NumPy's part of the work is single-threaded
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            paths = list(pool.map(generate_one, *zip(*[(directory, n, seed, f) for f in formats])))
    for p in paths:
        print(p, flush=True)


def time_readers(path, runs, min_seconds):
    for name, backend in (("lazrs-parallel", laspy.LazBackend.LazrsParallel),
                          ("laszip", laspy.LazBackend.Laszip)):
        best, total, k, n, fmt, extra = 1e30, 0.0, 0, 0, 0, 0
        try:
            while k < runs or (total < min_seconds and k < 100):
                t = time.perf_counter()
                las = laspy.read(path, laz_backend=backend)
                s = time.perf_counter() - t
                n = len(las.points)
                fmt = las.header.point_format.id
                extra = las.header.point_format.num_extra_bytes
                del las
                gc.collect()
                best, total, k = min(best, s), total + s, k + 1
            print(f"{name} ok {n} {best:.6f} {fmt} {extra}", flush=True)
        except Exception as e:  # e.g. lazrs refuses LASzip 1.x's unchunked compressor
            msg = " ".join(str(e).split())[:120] or type(e).__name__
            print(f"{name} fail {msg}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("dir")
    g.add_argument("--points", type=int, default=20_000_000)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--formats", default="1,3,6,7,8")
    g.add_argument("--jobs", type=int, default=0,
                   help="formats written at once (default: one on 4 cores or fewer, else all)")
    t = sub.add_parser("time")
    t.add_argument("file")
    t.add_argument("--runs", type=int, default=3)
    t.add_argument("--min-seconds", type=float, default=0.5)
    a = ap.parse_args()
    if a.cmd == "generate":
        formats = [int(f) for f in a.formats.split(",")]
        jobs = a.jobs or (1 if (os.cpu_count() or 1) <= 4 else len(formats))
        generate(a.dir, a.points, a.seed, formats, jobs)
    else:
        time_readers(a.file, a.runs, a.min_seconds)


if __name__ == "__main__":
    main()
