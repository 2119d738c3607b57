#!/usr/bin/env python3
"""`pointraster --convert` with a clip (and a polygon) writes exactly the points they keep.

A LAS file converted with --clip-box (inside, then outside) and with an axis --section, to LAS
and LAZ; laspy reads input and output, and the output's records must be the input's records that
the clip keeps, by the converter's own test (docs/CLIP.md): the world position minus the clip's
anchor (the first box's centre, else the section's point) rounded to float, against half the box's
size (or the slab's) rounded to float. The boxes are not turned, so the float test reduces to
those comparisons exactly. --clip-polygon (a vertical prism over world x, y) keeps the points
whose x, y lie inside by the even-odd rule, computed here in double as the converter does. With
--copc, a COPC survey is cut with a small box and a polygon: the converter passes the octree nodes
outside them by unread, and still writes exactly the points inside.
"""
import argparse
import pathlib
import subprocess
import sys

import laspy
import numpy as np


def records(path):
    las = laspy.read(str(path))
    xyz = np.stack([np.asarray(las.X), np.asarray(las.Y), np.asarray(las.Z)], axis=1)
    world = np.stack([np.asarray(las.x), np.asarray(las.y), np.asarray(las.z)], axis=1)
    return las.header, xyz.astype(np.int64), world


def sorted_rows(a):
    return a[np.lexsort(a.T[::-1])]


def convert(exe, src, out, extra):
    cmd = [exe, "--convert", str(out), str(src)] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))


def within(world, anchor, half):
    """The converter's float test of each axis: |float(w - anchor)| <= float(half)."""
    keep = np.ones(len(world), dtype=bool)
    for a in range(3):
        if half[a] is None:
            continue
        d = (world[:, a] - anchor[a]).astype(np.float32)
        h = np.float32(half[a])
        keep &= (d <= h) & (d >= -h)
    return keep


def in_polygon(world, poly):
    """The even-odd test of engine/clip_polygon.cpp, in double."""
    px, py = world[:, 0], world[:, 1]
    inside = np.zeros(len(world), dtype=bool)
    n = len(poly)
    for i in range(n):
        ax, ay = poly[i]
        bx, by = poly[i - 1]
        crosses = (ay > py) != (by > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = ax + (py - ay) / (by - ay) * (bx - ax)
        inside ^= crosses & (px < x)
    return inside


def polygon_arg(poly):
    return ";".join("%r,%r" % (float(x), float(y)) for x, y in poly)


def check(name, exe, src, out, extra, keep_of):
    header, xyz, world = records(src)
    convert(exe, src, out, extra)
    oheader, oxyz, _ = records(out)
    if not (np.array_equal(oheader.scales, header.scales)
            and np.array_equal(oheader.offsets, header.offsets)):
        sys.exit("FAIL %s: the output's scale or offset differs from the input's" % name)
    want = sorted_rows(xyz[keep_of(world)])
    got = sorted_rows(oxyz)
    if len(want) == 0 or len(want) == len(xyz):
        sys.exit("FAIL %s: the clip keeps %d of %d points: no test" % (name, len(want), len(xyz)))
    if got.shape != want.shape or not np.array_equal(got, want):
        sys.exit("FAIL %s: wrote %d points, the clip keeps %d" % (name, len(got), len(want)))
    print("ok %s: %d of %d points" % (name, len(got), len(xyz)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pointraster", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--copc", help="a COPC file cut with a small box and a polygon")
    a = ap.parse_args()
    work = pathlib.Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    header, _, _ = records(a.input)
    lo, hi = np.asarray(header.mins), np.asarray(header.maxs)
    centre = (lo + hi) / 2
    size = (hi - lo) * 0.5
    box = ",".join(repr(float(v)) for v in list(centre) + list(size))
    half = [float(s) * 0.5 for s in size]
    check("box inside", a.pointraster, a.input, work / "inside.las", ["--clip-box", box],
          lambda w: within(w, centre, half))
    check("box outside", a.pointraster, a.input, work / "outside.laz",
          ["--clip-box", box, "--clip-mode", "outside"],
          lambda w: ~within(w, centre, half))
    z = float(centre[2])
    t = float(hi[2] - lo[2]) * 0.3
    check("section", a.pointraster, a.input, work / "section.las",
          ["--section", "z=%r,%r" % (z, t)],
          lambda w: within(w, [0.0, 0.0, z], [None, None, t * 0.5]))
    # A concave polygon (an L) over the middle of the cloud, alone and within the box.
    c, e = centre, hi - lo
    poly = [(c[0] - 0.3 * e[0], c[1] - 0.3 * e[1]), (c[0] + 0.3 * e[0], c[1] - 0.25 * e[1]),
            (c[0] + 0.3 * e[0], c[1]), (c[0], c[1] + 0.05 * e[1]),
            (c[0] - 0.05 * e[0], c[1] + 0.35 * e[1]), (c[0] - 0.3 * e[0], c[1] + 0.3 * e[1])]
    check("polygon", a.pointraster, a.input, work / "polygon.las",
          ["--clip-polygon", polygon_arg(poly)], lambda w: in_polygon(w, poly))
    check("box and polygon", a.pointraster, a.input, work / "box_polygon.laz",
          ["--clip-box", box, "--clip-polygon", polygon_arg(poly)],
          lambda w: within(w, centre, half) & in_polygon(w, poly))
    if a.copc:
        check_copc(a.pointraster, a.copc, work)


def check_copc(exe, src, work):
    header, _, _ = records(src)
    lo, hi = np.asarray(header.mins), np.asarray(header.maxs)
    centre, e = (lo + hi) / 2, hi - lo
    size = [e[0] * 0.1, e[1] * 0.1, e[2] * 2]
    box = ",".join(repr(float(v)) for v in list(centre) + size)
    half = [float(s) * 0.5 for s in size]
    check("copc box", exe, src, work / "copc_box.las", ["--clip-box", box],
          lambda w: within(w, centre, half))
    poly = [(centre[0] - 0.1 * e[0], centre[1] - 0.1 * e[1]),
            (centre[0] + 0.12 * e[0], centre[1]), (centre[0], centre[1] + 0.1 * e[1])]
    check("copc polygon", exe, src, work / "copc_polygon.copc.laz",
          ["--clip-polygon", polygon_arg(poly)], lambda w: in_polygon(w, poly))


if __name__ == "__main__":
    main()
