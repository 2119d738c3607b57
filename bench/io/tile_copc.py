#!/usr/bin/env python3
"""Makes a survey of tiles from one COPC file, for the streaming benchmarks: NX x NY copies of the
file side by side, each moved by a whole tile's width (the LAS header's X and Y offsets, its
bounds and the COPC info VLR's cube centre changed; the compressed points are the same bytes,
since LAS stores integers relative to the offset), and a virtual point cloud (.vpc, PDAL
wrench's format: a GeoJSON FeatureCollection of STAC Items with pc:count, proj:bbox and a data
asset) that lists them.

  tile_copc.py FILE.copc.laz OUTDIR NX NY
writes OUTDIR/tile-<i>-<j>.copc.laz and OUTDIR/survey.vpc (relative hrefs). Standard library
only (it runs on the GPU machine, which has no PyPI).
"""
import json
import os
import shutil
import struct
import sys

# LAS 1.4 header: X/Y offsets at 155/163, max/min X at 179/187, max/min Y at 195/203, max/min Z
# at 211/219, the point count (uint64) at 247. The copc info VLR is the first VLR (its payload
# at 375 + 54): centre X/Y/Z, half size.
OFF_X, OFF_Y = 155, 163
MAX_X, MIN_X, MAX_Y, MIN_Y, MAX_Z, MIN_Z = 179, 187, 195, 203, 211, 219
COUNT = 247
COPC_INFO = 375 + 54


def read_header(path):
    with open(path, "rb") as f:
        head = bytearray(f.read(COPC_INFO + 32))
    if head[:4] != b"LASF" or head[375 + 2:375 + 6] != b"copc":
        sys.exit(f"{path}: not a COPC file (no copc info VLR first)")
    return head


def moved(head, dx, dy):
    h = bytearray(head)
    for at, d in ((OFF_X, dx), (MAX_X, dx), (MIN_X, dx), (COPC_INFO, dx),
                  (OFF_Y, dy), (MAX_Y, dy), (MIN_Y, dy), (COPC_INFO + 8, dy)):
        struct.pack_into("<d", h, at, struct.unpack_from("<d", h, at)[0] + d)
    return h


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    src, out, nx, ny = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    head = read_header(src)
    get = lambda at: struct.unpack_from("<d", head, at)[0]
    width = max(get(MAX_X) - get(MIN_X), get(MAX_Y) - get(MIN_Y))
    count = struct.unpack_from("<Q", head, COUNT)[0]
    os.makedirs(out, exist_ok=True)
    features = []
    for i in range(nx):
        for j in range(ny):
            name = f"tile-{i}-{j}.copc.laz"
            path = os.path.join(out, name)
            shutil.copyfile(src, path)
            h = moved(head, i * width, j * width)
            with open(path, "r+b") as f:
                f.write(h)
            g = lambda at: struct.unpack_from("<d", h, at)[0]
            bbox = [g(MIN_X), g(MIN_Y), g(MIN_Z), g(MAX_X), g(MAX_Y), g(MAX_Z)]
            features.append({
                "type": "Feature", "stac_version": "1.0.0", "id": name[:-9],
                "geometry": None,
                "properties": {"datetime": "2026-12-04T00:00:00Z", "pc:count": count,
                               "proj:bbox": bbox},
                "links": [],
                "assets": {"data": {"href": "./" + name, "roles": ["data"]}},
            })
    with open(os.path.join(out, "survey.vpc"), "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f, indent=1)
    print(f"{nx * ny} tiles of {count} points ({nx * ny * count} in all), {width:.1f} m wide, "
          f"in {out}")


if __name__ == "__main__":
    main()
