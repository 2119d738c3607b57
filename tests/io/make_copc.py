#!/usr/bin/env python3
"""Writes a COPC test file with copclib (copc-lib's Python binding): an octree of random depth-`--depth`
nodes holding random points (format 7: RGB, intensity, classification, returns, point source, GPS
time) in a cube at UTM-size coordinates, its hierarchy cut into nested pages (a sub-page for every
level-2 node, and inside it a sub-page for every level-3 node with an even x), so that a reader
must follow child pages two deep to find every node.

The info VLR's cube starts at the header's min and spans the header's largest extent, as
copclib's Box(key, header) computes a node's box, so the nodes' boxes agree for every reader.

    make_copc.py OUT.copc.laz [--seed S] [--depth D] [--extra-bytes] [--dump REF.bin]

With --extra-bytes every point carries one extra byte, a random value: the extra-bytes VLR
copclib writes describes it as the unsigned char field FIELD_0.

Prints what it wrote, one line each: `levels N0 N1 ...` (nodes a level), `pages P` (child pages),
`points N`. With --dump, reads OUT back with laspy (laz-rs) and writes its records, for a reader to
compare with: the point count (uint64), scale and offset (3 float64 each), then arrays of X, Y, Z
(int32), red, green, blue (uint16), intensity (uint16), classification, return number, number of
returns (uint8), point source id (uint16) and GPS time (float64).
"""
import argparse
import random
import sys

import copclib as copc
import numpy as np

ORIGIN = (636000.0, 849000.0, 400.0)  # near Autzen, so that readers pick a non-zero origin
SPAN = 512.0
SCALE = 0.01


def node_points(header, key, rng, count, extra_bytes):
    """`count` random points inside the node's box (copclib's Box(key, header)), each with one
    random extra byte when `extra_bytes`."""
    box = copc.Box(key, header)
    points = copc.Points(header)
    for _ in range(count):
        p = points.CreatePoint()
        p.x = rng.uniform(box.x_min, box.x_max)
        p.y = rng.uniform(box.y_min, box.y_max)
        p.z = rng.uniform(box.z_min, box.z_max)
        p.red, p.green, p.blue = (rng.randrange(65536) for _ in range(3))
        p.intensity = rng.randrange(65536)
        p.classification = rng.randrange(32)
        p.number_of_returns = rng.randrange(1, 8)
        p.return_number = rng.randrange(1, p.number_of_returns + 1)
        p.point_source_id = rng.randrange(65536)
        p.gps_time = rng.uniform(0.0, 1e6)
        if extra_bytes:
            p.extra_bytes = [rng.randrange(256)]
        points.AddPoint(p)
    return points


def page_of(key):
    """The page a node's entry goes to: level-2 nodes and below live in their level-2 ancestor's
    page, level-3 nodes with an even x (and their children) in their own, nested inside it."""
    d, x, y, z = key.d, key.x, key.y, key.z
    if d >= 3 and (x >> (d - 3)) % 2 == 0:
        s = d - 3
        return copc.VoxelKey(3, x >> s, y >> s, z >> s)
    if d >= 2:
        s = d - 2
        return copc.VoxelKey(2, x >> s, y >> s, z >> s)
    return copc.VoxelKey(0, 0, 0, 0)


def octree(rng, depth):
    """The keys of a random octree: each child of a node exists with probability 1/2."""
    keys, level = [], [(0, 0, 0, 0)]
    for d in range(depth + 1):
        keys.extend(level)
        if d == depth:
            break
        level = [(d + 1, 2 * x + (i & 1), 2 * y + ((i >> 1) & 1), 2 * z + ((i >> 2) & 1))
                 for (_, x, y, z) in level for i in range(8) if rng.random() < 0.5]
    return keys


def write(path, seed, depth, extra_bytes):
    rng = random.Random(seed)
    scale, origin = copc.Vector3(SCALE, SCALE, SCALE), copc.Vector3(*ORIGIN)
    if extra_bytes:
        cfg = copc.CopcConfigWriter(7, scale, origin, "", copc.EbVlr(1))
    else:
        cfg = copc.CopcConfigWriter(7, scale, origin)
    header = cfg.las_header
    header.min = copc.Vector3(*ORIGIN)
    header.max = copc.Vector3(*(o + SPAN for o in ORIGIN))
    info = cfg.copc_info
    info.center_x, info.center_y, info.center_z = (o + SPAN / 2 for o in ORIGIN)
    info.halfsize = SPAN / 2
    info.spacing = SPAN / 64
    writer = copc.FileWriter(path, cfg)
    levels, pages, total = [0] * (depth + 1), set(), 0
    for k in octree(rng, depth):
        key = copc.VoxelKey(*k)
        count = rng.randrange(1, 60)
        page = page_of(key)
        writer.AddNode(key, node_points(header, key, rng, count, extra_bytes), page)
        if page.d > 0:
            pages.add((page.d, page.x, page.y, page.z))
        levels[key.d] += 1
        total += count
    writer.Close()
    print("levels " + " ".join(str(n) for n in levels))
    print(f"pages {len(pages)}")
    print(f"points {total}")


def dump(path, out):
    import laspy

    las = laspy.read(path)
    h = las.header
    with open(out, "wb") as f:
        f.write(np.uint64(len(las.points)).tobytes())
        f.write(np.asarray(h.scales, dtype="<f8").tobytes())
        f.write(np.asarray(h.offsets, dtype="<f8").tobytes())
        for name, dtype in (("X", "<i4"), ("Y", "<i4"), ("Z", "<i4"), ("red", "<u2"),
                            ("green", "<u2"), ("blue", "<u2"), ("intensity", "<u2"),
                            ("classification", "u1"), ("return_number", "u1"),
                            ("number_of_returns", "u1"), ("point_source_id", "<u2"),
                            ("gps_time", "<f8")):
            f.write(np.asarray(las[name], dtype=dtype).tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--extra-bytes", action="store_true", help="one extra byte a point (FIELD_0)")
    ap.add_argument("--dump", help="laspy's reading of OUT, for a reader to compare with")
    args = ap.parse_args()
    write(args.out, args.seed, args.depth, args.extra_bytes)
    if args.dump:
        dump(args.out, args.dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
