#!/usr/bin/env python3
"""Checks `pointraster --profile` against a corridor computed here independently with NumPy from
the same points: a LAS file of random points at UTM-size coordinates (colors, intensity,
classification, GPS time and an extra-bytes field) written with laspy, a polyline of three
segments, and the exported points read back from LAS, LAZ (laspy) and CSV (NumPy): every point
within half the width of a segment (its foot on the segment) is there, no other point is, each
with its attributes and its distance along the line (the nearest segment's station). The float
positions pointraster holds (origin + float offset) differ from the file's by less than 1e-4 m,
so points within 1e-4 m of the corridor's edges are allowed either way. Also the 'profile' line,
the --profile-image PNG's size; a COPC survey's corridor read node by node gives the points of the
file read whole (and a point budget a subset); and that bad input ends with one line on stderr, exit status 2
and no file written.

usage: profile_compare.py --pointraster BIN --workdir DIR
Exits 1 if any check fails; prints one line per check and 'N passed, N failed'.
"""
import argparse
import os
import struct
import subprocess
import sys

import laspy
import numpy as np

from check_log import check, summary

EPS = 1e-4  # the float positions' error, well above it


def run(binary, args):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def write_input(path, rng, n=300_000):
    header = laspy.LasHeader(point_format=7, version="1.4")
    header.scales = np.array([0.001, 0.001, 0.001])
    header.offsets = np.array([636000.0, 5412000.0, 0.0])
    header.add_extra_dim(laspy.ExtraBytesParams(name="height", type=np.float32))
    las = laspy.LasData(header)
    x = 636000.0 + rng.uniform(0.0, 400.0, n)
    y = 5412000.0 + rng.uniform(0.0, 400.0, n)
    las.x, las.y = x, y
    las.z = 200.0 + 5.0 * np.sin(x / 40.0) + rng.uniform(0.0, 2.0, n)
    las.intensity = rng.integers(0, 65535, n, dtype=np.uint16)
    las.classification = rng.integers(0, 20, n, dtype=np.uint8)
    las.gps_time = rng.uniform(0.0, 1e5, n)
    las.red = rng.integers(0, 256, n, dtype=np.uint16) * 257
    las.green = rng.integers(0, 256, n, dtype=np.uint16) * 257
    las.blue = rng.integers(0, 256, n, dtype=np.uint16) * 257
    las.height = rng.uniform(-3.0, 3.0, n).astype(np.float32)
    las.write(path)
    return laspy.read(path)


def corridor(x, y, line, half):
    """Per point: the nearest segment's |offset| (inf outside every corridor) and station, and
    whether the point lies within EPS of an edge or of a tie (allowed either way)."""
    best = np.full(x.shape, np.inf)
    station = np.zeros(x.shape)
    second = np.full(x.shape, np.inf)
    near_edge = np.zeros(x.shape, dtype=bool)
    start = 0.0
    for (ax, ay), (bx, by) in zip(line[:-1], line[1:]):
        length = np.hypot(bx - ax, by - ay)
        dx, dy = (bx - ax) / length, (by - ay) / length
        vx, vy = x - ax, y - ay
        t = vx * dx + vy * dy
        off = np.abs(dx * vy - dy * vx)
        inside = (t >= 0.0) & (t <= length) & (off <= half)
        loose = (t >= -EPS) & (t <= length + EPS) & (off <= half + EPS)
        tight = (t >= EPS) & (t <= length - EPS) & (off <= half - EPS)
        near_edge |= loose & ~tight
        take = inside & (off < best)
        second = np.where(take, best, np.where(loose, np.minimum(second, off), second))
        best = np.where(take, off, best)
        station = np.where(take, start + t, station)
        start += length
    with np.errstate(invalid="ignore"):  # inf - inf outside every corridor
        near_edge |= np.abs(second - best) <= EPS
    return best, station, near_edge, start


def key(x, y, z):
    return np.round(x * 1000).astype(np.int64) * 10**12 + np.round(y * 1000).astype(np.int64) * 10**5 \
        + np.round(z * 1000).astype(np.int64)


def check_points(name, src, sel_expected, ambiguous, station, got_xyz, got_dist, dist_tol, attrs):
    src_keys = key(src.x, src.y, src.z)
    index = {k: i for i, k in enumerate(src_keys)}
    got_keys = key(*got_xyz)
    idx = np.array([index.get(k, -1) for k in got_keys])
    check(f"{name}: every exported point is an input point", (idx >= 0).all(),
          f"{(idx < 0).sum()} unknown")
    idx = idx[idx >= 0]
    exported = np.zeros(len(src_keys), dtype=bool)
    exported[idx] = True
    missing = sel_expected & ~exported & ~ambiguous
    extra = exported & ~sel_expected & ~ambiguous
    check(f"{name}: the points within half the width, no other",
          not missing.any() and not extra.any() and exported.sum() > 1000,
          f"{missing.sum()} missing, {extra.sum()} extra of {exported.sum()}")
    sure = ~ambiguous[idx]
    err = np.abs(np.asarray(got_dist)[: len(idx)][sure] - station[idx][sure])
    check(f"{name}: distance along the line", err.max() <= dist_tol, f"max error {err.max()}")
    for a, got in attrs.items():
        check(f"{name}: {a} carried", np.array_equal(np.asarray(src[a])[idx], np.asarray(got)))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None


def check_profile(binary, workdir, src_path, src):
    line = [(636020.5, 5412030.25, 0.0), (636200.0, 5412350.0, 10.0), (636380.0, 5412100.0, 0.0),
            (636150.0, 5412020.0, 0.0)]
    width = 7.5
    arg = ";".join(",".join(repr(c) for c in p) for p in line)
    best, station, ambiguous, length = corridor(np.asarray(src.x), np.asarray(src.y),
                                                [p[:2] for p in line], width / 2)
    expected = np.isfinite(best)
    out = {s: os.path.join(workdir, "profile." + s) for s in ("las", "laz", "csv", "png")}
    for s in ("las", "laz", "csv"):
        if os.path.exists(out[s]):
            os.remove(out[s])
    rc, so, se = run(binary, ["--profile", arg, "--profile-width", str(width), "--profile-out",
                              out["las"], "--profile-image", out["png"], "--width", "640",
                              "--height", "200", src_path])
    check("--profile runs", rc == 0, se)
    fields = dict(w.split("=") for w in next(l for l in so.splitlines()
                                             if l.startswith("profile ")).split()[1:])
    check("profile line: points", int(fields["points"]) == len(laspy.read(out["las"]).points), so)
    check("profile line: length", abs(float(fields["length"]) - length) < 1e-9, so)
    check("profile line: width", float(fields["width"]) == width, so)
    check("--profile-image size", png_size(out["png"]) == (640, 200), str(png_size(out["png"])))
    attrs = ("intensity", "classification", "gps_time", "red", "green", "blue", "height")
    for s in ("las", "laz"):
        if s == "laz":
            rc, so, se = run(binary, ["--profile", arg, "--profile-width", str(width),
                                      "--profile-out", out["laz"], src_path])
            check("--profile-out LAZ runs", rc == 0, se)
        las = laspy.read(out[s])
        check(f"{s}: distance is an extra dimension",
              "distance" in list(las.point_format.extra_dimension_names))
        check_points(s.upper(), src, expected, ambiguous, station,
                     (np.asarray(las.x), np.asarray(las.y), np.asarray(las.z)),
                     np.asarray(las.distance, dtype=np.float64), 1e-3,
                     {a: np.asarray(las[a]) for a in attrs})
    rc, so, se = run(binary, ["--profile", arg, "--profile-width", str(width), "--profile-out",
                              out["csv"], src_path])
    check("--profile-out CSV runs", rc == 0, se)
    csv = np.genfromtxt(out["csv"], delimiter=",", names=True)
    check_points("CSV", src, expected, ambiguous, station, (csv["x"], csv["y"], csv["z"]),
                 csv["distance"], 1e-4,
                 {"classification": csv["classification"].astype(np.uint8),
                  "red": csv["red"].astype(np.uint16) * 257})
    check("CSV: offsets within half the width", np.abs(csv["offset"]).max() <= width / 2)
    # The CSV's coordinates are the doubles pointraster measured: the stations and offsets
    # computed here from them agree to rounding.
    off, st, amb, _ = corridor(csv["x"], csv["y"], [p[:2] for p in line], width / 2)
    sure = ~amb
    check("CSV: distance and offset from its own coordinates",
          np.abs(st[sure] - csv["distance"][sure]).max() < 1e-9 and
          np.abs(off[sure] - np.abs(csv["offset"][sure])).max() < 1e-9 and np.isfinite(off).all())


def line_fields(out, prefix):
    line = next((l for l in out.splitlines() if l.startswith(prefix + " ")), "")
    return dict(w.split("=") for w in line.split()[1:])


def csv_rows(path):
    with open(path) as f:
        return sorted(f.read().splitlines()[1:])


def check_survey(binary, workdir, rng, n=2_000_000):
    """A COPC survey's corridor, read node by node at full depth, gives the same points as the
    file read whole; a small point budget reads the top levels only, a subset."""
    las_path = os.path.join(workdir, "survey.las")
    header = laspy.LasHeader(point_format=6, version="1.4")
    header.scales = np.array([0.001, 0.001, 0.001])
    header.offsets = np.array([500000.0, 4000000.0, 0.0])
    las = laspy.LasData(header)
    las.x = 500000.0 + rng.uniform(0.0, 2000.0, n)
    las.y = 4000000.0 + rng.uniform(0.0, 2000.0, n)
    las.z = 100.0 + rng.uniform(0.0, 3.0, n)
    las.intensity = rng.integers(0, 65535, n, dtype=np.uint16)
    las.write(las_path)
    copc = os.path.join(workdir, "survey.copc.laz")
    rc, so, se = run(binary, ["--convert", copc, las_path])
    check("--convert to COPC", rc == 0, se)
    arg = "500100,4000100,0;500400,4000300,0"
    common = ["--profile", arg, "--profile-width", "6"]
    out = {k: os.path.join(workdir, f"survey_{k}.csv") for k in ("stream", "whole", "budget")}
    rc, so, se = run(binary, common + ["--profile-out", out["stream"], copc])
    corridor = line_fields(so, "corridor")
    check("survey: corridor read", rc == 0 and corridor.get("complete") == "1", so + se)
    check("survey: only the nodes near the line", 0 < int(corridor.get("points", 0)) < n // 2,
          str(corridor))
    rc, so, se = run(binary, common + ["--profile-out", out["whole"], "--stream", "off", copc])
    check("survey: read whole", rc == 0, se)
    stream, whole = csv_rows(out["stream"]), csv_rows(out["whole"])
    check("survey: the corridor's points are those of the whole file",
          stream == whole and len(whole) > 500, f"{len(stream)} vs {len(whole)}")
    rc, so, se = run(binary, common + ["--point-budget", "20000", "--profile-out", out["budget"],
                                       copc])
    corridor = line_fields(so, "corridor")
    budget = csv_rows(out["budget"])
    check("survey: a budget reads the top levels only",
          rc == 0 and corridor.get("complete") == "0" and 0 < len(budget) < len(whole) and
          set(budget) <= set(whole), str(corridor) + se)


def check_errors(binary, workdir, src_path):
    target = os.path.join(workdir, "bad.csv")
    cases = [
        (["--profile", "636020,5412030,0", "--profile-width", "5"], "at least 2 points"),
        (["--profile", "636020,5412030,0;636100,5412100,0", "--profile-width", "0"], "above 0"),
        (["--profile", "636020,5412030,0;636100,5412100,0", "--profile-width", "-3"], "above 0"),
        (["--profile", "636020,5412030,0;636100,5412100,0", "--profile-width", "wide"],
         "not a valid number"),
        (["--profile", "636020,5412030,0;636100,abc,0", "--profile-width", "5"],
         "not a valid number"),
        (["--profile", "636020,5412030,0;636020,5412030,9", "--profile-width", "5"],
         "same place"),
        (["--profile", "636020,5412030,0;636100,5412100,inf", "--profile-width", "5"],
         "not finite"),
    ]
    for args, says in cases:
        if os.path.exists(target):
            os.remove(target)
        rc, so, se = run(binary, args + ["--profile-out", target, src_path])
        lines = se.strip().splitlines()
        check(f"bad input {args[1]!r} width {args[3]!r}: one line, exit 2, no file",
              rc == 2 and len(lines) == 1 and says in se and so == "" and
              not os.path.exists(target), f"rc={rc} stderr={se!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pointraster", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    src_path = os.path.join(a.workdir, "input.las")
    src = write_input(src_path, np.random.default_rng(5))
    check_profile(a.pointraster, a.workdir, src_path, src)
    check_survey(a.pointraster, a.workdir, np.random.default_rng(6))
    check_errors(a.pointraster, a.workdir, src_path)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
