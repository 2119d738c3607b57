#!/usr/bin/env python3
"""Reads a conversion's outputs with independent readers and compares their point records.

    check_copc.py REFERENCE.las [--copc OUT.copc.laz] [--laz OUT.laz]

REFERENCE is the conversion's LAS output (plain records, read with laspy). A COPC file is read
with copclib (copclib.FileReader: every node's records, ValidateSpatialBounds()), with laspy's
CopcReader (every point queried: their count) and with laspy through both LAZ backends (lazrs
and laszip); a LAZ file with laspy through both backends. Each reading must give the same
multiset of records, byte for byte, as the reference, and the same header (point format, count,
scale, offset). Prints one line per check and exits 1 on the first difference.
"""

import argparse
import sys

import copclib
import laspy


def fail(message):
    print("FAIL " + message)
    sys.exit(1)


def record_set(data, record_length):
    """The records of `data` (bytes) as a sorted list, one bytes object a record."""
    if len(data) % record_length:
        fail(f"{len(data)} bytes is not a whole number of {record_length}-byte records")
    return sorted(data[i:i + record_length] for i in range(0, len(data), record_length))


def laspy_records(path, backend=None):
    las = laspy.read(path, laz_backend=backend) if backend else laspy.read(path)
    h = las.header
    records = record_set(las.points.array.tobytes(), h.point_format.size)
    return h, records


def same_header(name, h, ref):
    if h.point_format.id != ref.point_format.id:
        fail(f"{name}: point format {h.point_format.id}, the reference's {ref.point_format.id}")
    if h.point_count != ref.point_count:
        fail(f"{name}: {h.point_count} points, the reference {ref.point_count}")
    if list(h.scales) != list(ref.scales) or list(h.offsets) != list(ref.offsets):
        fail(f"{name}: scale/offset {list(h.scales)} {list(h.offsets)}, the reference's "
             f"{list(ref.scales)} {list(ref.offsets)}")


def check_copclib(path, ref_header, ref_records):
    reader = copclib.FileReader(path)
    header = reader.copc_config.las_header
    length = header.point_record_length
    data = bytearray()
    nodes = reader.GetAllNodes()
    for node in nodes:
        chunk = bytes(reader.GetPointData(node))
        if len(chunk) != node.point_count * length:
            fail(f"copclib: node {node.key} holds {len(chunk) // length} records, its entry "
                 f"{node.point_count}")
        data += chunk
    if not reader.ValidateSpatialBounds():
        fail("copclib: ValidateSpatialBounds() is false (a node's points leave its cube)")
    if header.point_count != ref_header.point_count:
        fail(f"copclib: the header counts {header.point_count} points, the reference "
             f"{ref_header.point_count}")
    if record_set(bytes(data), length) != ref_records:
        fail("copclib: the nodes' records differ from the reference's")
    print(f"ok copclib {len(nodes)} nodes, depth {reader.GetMaxDepth()}, "
          f"{header.point_count} points")


def check_copc_reader(path, ref_header):
    """laspy's CopcReader (its own hierarchy walk) opens the file and queries every point."""
    with laspy.CopcReader.open(path) as reader:
        count = len(reader.query())
        declared = reader.header.point_count
    if count != ref_header.point_count or declared != ref_header.point_count:
        fail(f"laspy CopcReader: {count} points queried, {declared} declared, the reference "
             f"{ref_header.point_count}")
    print(f"ok laspy CopcReader {count} points")


def check_laspy(name, path, ref_header, ref_records):
    for backend in (laspy.LazBackend.Lazrs, laspy.LazBackend.Laszip):
        h, records = laspy_records(path, backend)
        same_header(f"{name} ({backend.name})", h, ref_header)
        if records != ref_records:
            fail(f"{name} ({backend.name}): the records differ from the reference's")
        print(f"ok laspy {backend.name} {name} {h.point_count} points")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reference")
    ap.add_argument("--copc")
    ap.add_argument("--laz")
    args = ap.parse_args()
    ref_header, ref_records = laspy_records(args.reference)
    print(f"ok reference {ref_header.point_count} points, format {ref_header.point_format.id}")
    if args.copc:
        check_copclib(args.copc, ref_header, ref_records)
        check_copc_reader(args.copc, ref_header)
        check_laspy("copc", args.copc, ref_header, ref_records)
    if args.laz:
        check_laspy("laz", args.laz, ref_header, ref_records)


if __name__ == "__main__":
    main()
