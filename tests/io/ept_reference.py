#!/usr/bin/env python3
"""An EPT node's points as independent readers decode them, for tests/io/io_ept_test.cpp: a
laszip node (ept-data/KEY.laz) through laspy, a zstandard node (ept-data/KEY.zst) through the
zstandard module and a NumPy record type built from ept.json's schema.

usage: ept_reference.py DATASET KEY OUT
Writes OUT: per point 12 little-endian float64 values: x, y, z (integers * scale + offset),
intensity, classification, return number, number of returns, point source id, GPS time, red,
green, blue (0 for a dimension the node lacks). Exits 1 with a message when the node does not read.
"""
import json
import os
import sys

import numpy as np

FIELDS = ["intensity", "classification", "return_number", "number_of_returns",
          "point_source_id", "gps_time", "red", "green", "blue"]
EPT_NAMES = ["Intensity", "Classification", "ReturnNumber", "NumberOfReturns", "PointSourceId",
             "GpsTime", "Red", "Green", "Blue"]


def laszip_node(path):
    import laspy
    las = laspy.read(path)
    dims = set(las.point_format.dimension_names)
    cols = [np.asarray(las.x), np.asarray(las.y), np.asarray(las.z)]
    for f in FIELDS:
        cols.append(np.asarray(las[f], dtype=np.float64) if f in dims
                    else np.zeros(len(las.points)))
    return np.column_stack(cols).astype("<f8")


def zstandard_node(path, schema):
    import zstandard
    kinds = {"signed": "i", "unsigned": "u", "float": "f"}
    dtype = np.dtype([(d["name"], "<" + kinds[d["type"]] + str(d["size"])) for d in schema])
    raw = zstandard.ZstdDecompressor().stream_reader(open(path, "rb")).read()
    rec = np.frombuffer(raw, dtype=dtype)
    by_name = {d["name"]: d for d in schema}
    cols = []
    for axis in "XYZ":
        d = by_name[axis]
        cols.append(rec[axis].astype(np.float64) * d.get("scale", 1.0) + d.get("offset", 0.0))
    for name in EPT_NAMES:
        cols.append(rec[name].astype(np.float64) if name in by_name else np.zeros(len(rec)))
    return np.column_stack(cols).astype("<f8")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    dataset, key, out = sys.argv[1:]
    ept = json.load(open(os.path.join(dataset, "ept.json")))
    if ept["dataType"] == "laszip":
        table = laszip_node(os.path.join(dataset, "ept-data", key + ".laz"))
    elif ept["dataType"] == "zstandard":
        table = zstandard_node(os.path.join(dataset, "ept-data", key + ".zst"), ept["schema"])
    else:
        sys.exit(f"ept_reference.py: dataType {ept['dataType']} is not compared")
    table.tofile(out)
    print(len(table))


if __name__ == "__main__":
    main()
