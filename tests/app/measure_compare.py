#!/usr/bin/env python3
"""Checks `pointraster --measure` against values computed here independently with NumPy from the
same points: polyline lengths (3D and horizontal), height, the angle at a vertex (arccos of the
dot product), the polygon's areas (the shoelace formula seen from above, and half the length of
the summed cross products in 3D), the circle through three points (the intersection of two
perpendicular bisector planes with the points' plane), the nearest point of a cloud, the points
inside a rotated box; the 2.5D volume of a cone of points written to a binary PLY file here,
against pi R^2 H / 3 within 1%; the --measure-out GeoJSON and CSV files read back with the json
and csv modules; and that bad input ends with one line on stderr and exit status 2.

usage: measure_compare.py --pointraster BIN --workdir DIR
Exits 1 if any check fails; prints one line per check and 'N passed, N failed'.
"""
import argparse
import csv
import json
import math
import os
import shlex
import subprocess
import sys

import numpy as np

from check_log import check, summary


def close(a, b, rel=1e-9, abs_=1e-9):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def points_arg(pts):
    return ";".join(",".join(repr(float(c)) for c in p) for p in pts)


def run(binary, args):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def measure_lines(out):
    """The 'measure KIND k=v ...' lines as (kind, {k: [floats] or text})."""
    found = []
    for line in out.splitlines():
        if not line.startswith("measure "):
            continue
        words = shlex.split(line)
        values = {}
        for w in words[2:]:
            k, v = w.split("=", 1)
            try:
                values[k] = [float(x) for x in v.split(",")]
            except ValueError:
                values[k] = v
        found.append((words[1], values))
    return found


def measure(binary, kind, pts, extra=()):
    rc, out, err = run(binary, ["--measure", kind, points_arg(pts)] + list(extra))
    if rc != 0:
        raise RuntimeError(f"--measure {kind} exit {rc}: {err.strip()}")
    return measure_lines(out)[0][1]


def check_geometry(binary, rng):
    # UTM-size coordinates, z up (--up z), so that the horizontal is x, y.
    base = np.array([636594.0, 5412310.0, 210.0])
    pts = base + rng.uniform(-50, 50, size=(5, 3))
    v = measure(binary, "distance", pts[:4], ["--up", "z"])
    seg = np.linalg.norm(np.diff(pts[:4], axis=0), axis=1)
    hseg = np.linalg.norm(np.diff(pts[:4, :2], axis=0), axis=1)
    check("distance 3d", close(v["3d"][0], seg.sum()), f"{v['3d']} {seg.sum()}")
    check("distance horizontal", close(v["horizontal"][0], hseg.sum()))
    check("distance segments", all(close(a, b) for a, b in zip(v["segments_3d"], seg)))
    check("distance height", close(v["height"][0], pts[3, 2] - pts[0, 2], abs_=1e-8))
    # y up: the height is along y, the horizontal x and z.
    v = measure(binary, "height", pts[:2], ["--up", "y"])
    d = pts[1] - pts[0]
    check("height along y", close(v["height"][0], d[1], abs_=1e-8))
    check("height horizontal (y up)", close(v["horizontal"][0], math.hypot(d[0], d[2])))
    v = measure(binary, "angle", pts[:3], ["--up", "z"])
    u, w = pts[0] - pts[1], pts[2] - pts[1]
    deg = math.degrees(math.acos(np.dot(u, w) / np.linalg.norm(u) / np.linalg.norm(w)))
    check("angle", close(v["degrees"][0], deg, rel=1e-7), f"{v['degrees']} {deg}")
    # A convex pentagon (sorted by angle about its mean, seen from above) with heights.
    ring = pts[np.argsort(np.arctan2(pts[:, 1] - pts[:, 1].mean(), pts[:, 0] - pts[:, 0].mean()))]
    v = measure(binary, "area", ring, ["--up", "z"])
    x, y = ring[:, 0] - ring[0, 0], ring[:, 1] - ring[0, 1]
    shoelace = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    rel = ring - ring[0]
    newell = 0.5 * np.linalg.norm(np.cross(rel, np.roll(rel, -1, axis=0)).sum(axis=0))
    check("area horizontal (shoelace)", close(v["horizontal"][0], shoelace), f"{v} {shoelace}")
    check("area 3d (cross products)", close(v["3d"][0], newell), f"{v['3d']} {newell}")
    check_circle(binary, pts[:3])


def check_circle(binary, p):
    v = measure(binary, "circle", p)
    a, b, c = p
    n = np.cross(b - a, c - a)
    # The centre lies on both bisector planes of ab and ac and in the points' plane.
    m = np.array([b - a, c - a, n])
    rhs = np.array([np.dot(b - a, (a + b) / 2), np.dot(c - a, (a + c) / 2), np.dot(n, a)])
    centre = np.linalg.solve(m, rhs)
    radius = np.linalg.norm(a - centre)
    check("circle radius (bisectors)", close(v["radius"][0], radius, rel=1e-8), f"{v} {radius}")
    check("circle centre", np.linalg.norm(np.array(v["center"]) - centre) < 1e-6 * radius)


def write_ply(path, xyz):
    head = (
        "ply\nformat binary_little_endian 1.0\nelement vertex %d\n"
        "property double x\nproperty double y\nproperty double z\nend_header\n" % len(xyz)
    )
    with open(path, "wb") as f:
        f.write(head.encode())
        f.write(np.ascontiguousarray(xyz, dtype="<f8").tobytes())


def cone_cloud(workdir):
    """A cone of radius 10 and height 5 on flat ground at z 100 (UTM-size x, y)."""
    R, H, n = 10.0, 5.0, 500
    s = (np.arange(n) + 0.5) / n * 30 - 15
    X, Y = np.meshgrid(s, s)
    Z = np.maximum(0.0, H * (1 - np.hypot(X, Y) / R))
    xyz = np.c_[X.ravel() + 500000, Y.ravel() + 4000000, Z.ravel() + 100]
    path = os.path.join(workdir, "cone.ply")
    write_ply(path, xyz)
    return path, xyz, math.pi * R * R * H / 3


def check_cloud(binary, workdir):
    ply, xyz, cone = cone_cloud(workdir)
    square = [[499986, 3999986, 100], [500014, 3999986, 100], [500014, 4000014, 100],
              [499986, 4000014, 100]]
    v = measure(binary, "volume", square, [ply, "--measure-cell", "0.25"])
    check("cone volume within 1%", abs(v["cut"][0] - cone) < 0.01 * cone, f"{v['cut']} {cone}")
    check("cone: base from the vertices", v["base"][0] == 100.0)
    # A base 1 below: the cone and a 28 x 28 x 1 slab.
    v = measure(binary, "volume", square, [ply, "--measure-base", "99", "--measure-cell", "0.25"])
    expect = cone + 28 * 28
    check("cone over a lower base within 1%", abs(v["cut"][0] - expect) < 0.01 * expect)
    q = np.array([500001.3, 3999998.2, 104.0])
    v = measure(binary, "point", [q], [ply])
    i = int(np.argmin(((xyz - q) ** 2).sum(axis=1)))
    check("point: the nearest", int(v["index"][0]) == i, f"{v['index']} {i}")
    # A box turned 30 degrees about z, pitched 10 about x, rolled 5 about y.
    centre, size, angles = np.array([500002.0, 4000001.0, 102.0]), np.array([6.0, 3.0, 4.0]), (30, 10, 5)
    v = measure(binary, "box", [centre, size, angles], [ply])
    check("box: points inside", int(v["inside"][0]) == box_count(xyz, centre, size, angles),
          f"{v['inside']} {box_count(xyz, centre, size, angles)}")
    check("box volume", close(v["volume"][0], 72.0))
    return ply, square


def rot(axis, deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    r = np.eye(3)
    r[i, i], r[i, j], r[j, i], r[j, j] = c, -s, s, c
    return r


def box_count(xyz, centre, size, angles):
    # z up: R = Rz(yaw) Rx(pitch) Ry(roll); a point is inside where |R^T (p - c)| <= size / 2.
    r = rot(2, angles[0]) @ rot(0, angles[1]) @ rot(1, angles[2])
    local = (xyz - centre) @ r
    return int(np.all(np.abs(local) <= size / 2, axis=1).sum())


def check_export(binary, workdir, ply, square):
    gj, cs = os.path.join(workdir, "m.geojson"), os.path.join(workdir, "m.csv")
    args = [ply, "--measure", "volume", points_arg(square), "--measure", "distance",
            points_arg(square[:2]), "--measure-cell", "0.5"]
    rc, out, err = run(binary, args + ["--measure-out", gj])
    lines = measure_lines(out)
    doc = json.load(open(gj))
    feats = doc["features"]
    check("geojson: two features", rc == 0 and len(feats) == 2, err)
    ring = feats[0]["geometry"]["coordinates"][0]
    check("geojson: the polygon ring closed, 3D", ring[0] == ring[-1] and ring[:4] == square)
    check("geojson: values as properties",
          feats[0]["properties"]["cut"] == lines[0][1]["cut"][0]
          and feats[1]["properties"]["3d"] == lines[1][1]["3d"][0])
    rc, out, err = run(binary, args + ["--measure-out", cs])
    check("csv: seven fields a row", all(len(r) == 7 for r in csv.reader(open(cs))))
    rows = list(csv.DictReader(open(cs)))
    cut = [r for r in rows if r["id"] == "1" and r["quantity"] == "cut"]
    check("csv: the cut", rc == 0 and len(cut) == 1 and float(cut[0]["value"]) == lines[0][1]["cut"][0])
    vx = [r for r in rows if r["id"] == "2" and r["quantity"].startswith("vertex")]
    check("csv: the vertices", [[float(r[k]) for k in "xyz"] for r in vx] == square[:2])


def check_errors(binary, ply):
    cases = [
        (["--measure", "area", "0,0,0;1,0,0"], "needs at least 3 points"),
        (["--measure", "circle", "0,0,0;1,1,1;0,0,0"], "coincide"),
        (["--measure", "volume", "0,0,0;1,0,0;0,1,0", "--measure-cell", "0", ply], "must be above 0"),
        (["--measure", "distance", "0,0,nan;1,0,0"], "not finite"),
        (["--measure", "angle", "0,0;1,0,0;2,0,0"], "expected X,Y,Z"),
    ]
    for args, words in cases:
        rc, out, err = run(binary, args)
        one = err.strip().count("\n") == 0 and words in err
        check(f"error: {' '.join(args[:2])} ({words})", rc == 2 and one, f"rc {rc}: {err.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pointraster", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    check_geometry(a.pointraster, np.random.default_rng(7))
    ply, square = check_cloud(a.pointraster, a.workdir)
    check_export(a.pointraster, a.workdir, ply, square)
    check_errors(a.pointraster, ply)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
