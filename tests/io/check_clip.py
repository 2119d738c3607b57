#!/usr/bin/env python3
"""`pointraster --convert` with a clip writes exactly the points the clip keeps.

A LAS file converted with --clip-box (inside, then outside) and with an axis --section, to LAS
and LAZ; laspy reads input and output, and the output's records must be the input's records that
the clip keeps, by the converter's own test (docs/CLIP.md): the world position minus the clip's
anchor (the first box's centre, else the section's point) rounded to float, against half the box's
size (or the slab's) rounded to float. The boxes are not turned, so the float test reduces to
those comparisons exactly.
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


if __name__ == "__main__":
    main()
