#!/usr/bin/env python3
"""Checks pointraster's LAZ decoder against laspy with the lazrs backend (LASzip's own library,
laspy's laszip backend, for the LASzip 1.x variants that lazrs refuses): every point record byte
for byte (all attributes: integer X/Y/Z, intensity, returns, flags, classification, scan angle,
user data, point source id, GPS time, RGB, NIR, wave packets, extra bytes), for every
LAZ/COPC file and for files generated here with lazrs in each point format 0-10 (with and without
extra bytes), chunk sizes from 1 to 65,537 with a last partial chunk, and variable chunks; LASzip
1.x's unchunked compressor (lazrs' one-chunk files rewritten without the chunk table, formats
0-5) and its version-1 items (written by laz_legacy.py, unchunked and chunked, formats 0-3 with
extra bytes; LASzip must read them back as the records written); then that each LAZ file and
its LAS twin load identically (positions, colors, intensity, classification, returns, point
source, GPS time, named fields: loading skips the layers of the fields a cloud does not keep)
through `io_sample read`; that the scalar extra bytes of LAZ files load as named fields with
laspy's values; and that each COPC file of the test data read down to each depth gives the
point count and bounds of laspy's CopcReader.level_query(range(0, depth+1)).

usage: compare_laz.py --sampler BIN --testdata DIR --workdir DIR [--points N]
Exits 1 if any check fails; prints one line per check and 'N passed, N failed'.
"""
import argparse
import io
import os
import struct
import subprocess
import sys

import laspy
import lazrs
import numpy as np

import laz_legacy
from checks import SKIP, require_testdata, run_checks, run_json, unskipped

# Files of LASzip 1.x's unchunked compressor and version-1 items, which lazrs refuses: read with
# laspy's laszip backend (LASzip's own library).
LASZIP_ONLY = {"simple-laszip-compressor-version-1.2r0.laz"}

def reference_records(path, backend=None):
    if backend is None:
        legacy = os.path.basename(path) in LASZIP_ONLY
        backend = laspy.LazBackend.Laszip if legacy else laspy.LazBackend.Lazrs
    las = laspy.read(path, laz_backend=backend)
    return las, las.points.array.tobytes()


def our_records(sampler, path, workdir):
    out = os.path.join(workdir, "records.bin")
    r = subprocess.run([sampler, "records", path, out], capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()
    data = open(out, "rb").read()
    os.remove(out)
    return data, None


def compare_records(sampler, path, workdir, backend=None):
    ours, err = our_records(sampler, path, workdir)
    if ours is None:
        return f"io_sample failed: {err}"
    las, ref = reference_records(path, backend)
    if ours == ref:
        return None
    rl = las.header.point_format.size
    if len(ours) != len(ref):
        return f"{len(ours) // rl} records, reference {len(ref) // rl}"
    a, b = np.frombuffer(ours, np.uint8), np.frombuffer(ref, np.uint8)
    d = np.nonzero(a != b)[0]
    return f"{len(d)} bytes differ, first in record {d[0] // rl} at byte {d[0] % rl}"


def compare_twin(sampler, laz, las):
    """The LAZ file and its LAS twin load the same cloud (sampled points with their color,
    intensity, classification, returns, point source and GPS time; origin, bounds)."""
    a = run_json([sampler, "read", laz, "500"])
    b = run_json([sampler, "read", las, "500"])
    if "error" in a or "error" in b:
        return f"load failed: {a.get('error') or b.get('error')}"
    # Both keep positions as float offsets from an origin each reader picks from its own
    # sample of the file: compare world coordinates to float precision, the rest exactly.
    for k in ("points", "has_color"):
        if a[k] != b[k]:
            return f"{k} differs between the LAZ file and its LAS twin"
    tol = 1e-3
    for k in ("bounds_min", "bounds_max"):
        if not np.allclose(a[k], b[k], rtol=0, atol=tol):
            return f"{k} differs between the LAZ file and its LAS twin"
    for s, t in zip(a["sample"], b["sample"]):
        if s[0] != t[0] or s[4:] != t[4:] or not np.allclose(s[1:4], t[1:4], rtol=0, atol=tol):
            return f"point {s[0]}: LAZ {s}, LAS twin {t}"
    if a.get("fields") != b.get("fields"):
        return (f"named fields differ: LAZ {[f[0] for f in a['fields']]}, "
                f"LAS twin {[f[0] for f in b['fields']]}")
    return None


def compare_fields(sampler, path, backend=None):
    """The scalar extra bytes (data types 1-10 of the first extra-bytes VLR) as named fields, with
    laspy's values (scale and offset applied) at the sampled points, as float32."""
    ours = run_json([sampler, "read", path, "200"])
    if "error" in ours:
        return f"load failed: {ours['error']}"
    if "fields" not in ours:
        return SKIP + "this io_sample prints no named fields"
    las, _ = reference_records(path, backend)
    want = []
    for v in las.header.vlrs:
        if v.record_id == 4 and hasattr(v, "extra_bytes_structs"):
            want = [e.name.rstrip(b"\0").decode() for e in v.extra_bytes_structs
                    if 1 <= e.data_type <= 10]
            break
    names = [f[0] for f in ours["fields"]]
    if names != want:
        return f"named fields {names}, laspy's scalar extra bytes {want}"
    idx = [s[0] for s in ours["sample"]]
    for name, values in ours["fields"]:
        ref = np.asarray(las[name], dtype=np.float64)[idx].astype(np.float32)
        got = np.asarray(values, dtype=np.float32)
        if not np.array_equal(ref, got):
            k = int(np.nonzero(ref != got)[0][0])
            return f"{name} of point {idx[k]}: {got[k]}, laspy {ref[k]}"
    return None


def make_points(fmt, extra, n, rng):
    """Raw records: X/Y/Z random walks, other bytes random with runs (so that both the
    'changed' and 'unchanged' paths of every item are taken)."""
    size = laspy.PointFormat(fmt).size + extra
    raw = rng.integers(0, 256, size=(n, size), dtype=np.uint8)
    keep = rng.random((n, size)) < 0.6
    keep[0] = False
    idx = np.where(keep, 0, np.arange(n)[:, None])
    idx = np.maximum.accumulate(idx, axis=0)
    raw = np.take_along_axis(raw, idx, axis=0)
    xyz = np.cumsum(rng.integers(-2000, 2000, size=(n, 3)), axis=0).astype(np.int32)
    raw[:, :12] = xyz.view(np.uint8).reshape(n, 12)
    if fmt >= 6:  # GPS time: increasing, in runs (a pulse's returns share it)
        t = np.cumsum(np.where(rng.random(n) < 0.3, rng.random(n) * 1e-3, 0.0)) + 3.0e8
        raw[:, 22:30] = t.astype("<f8").view(np.uint8).reshape(n, 8)
    elif fmt in (1, 3, 4, 5):
        t = np.cumsum(np.where(rng.random(n) < 0.3, rng.random(n) * 1e-3, 0.0)) + 5.0e5
        raw[:, 20:28] = t.astype("<f8").view(np.uint8).reshape(n, 8)
    return size, raw.tobytes()


# Scalar extra bytes of the generated files with typed fields ("typed"): 7 bytes.
TYPED = [laspy.ExtraBytesParams(name="height", type="u2", scales=np.array([0.01]),
                                offsets=np.array([5.0])),
         laspy.ExtraBytesParams(name="count", type="i4"),
         laspy.ExtraBytesParams(name="flag", type="u1")]


def write_pair(path_las, path_laz, fmt, extra, n, chunk, rng):
    """A LAS file and its LAZ twin, written by lazrs. `extra`: that many extra bytes (one
    descriptor of an array of bytes), or "typed": the scalar fields of TYPED."""
    typed = extra == "typed"
    if typed:
        extra = 7
    size, pts = make_points(fmt, extra, n, rng)
    version = "1.4" if fmt >= 6 else ("1.3" if fmt >= 4 else "1.2")
    hdr = laspy.LasHeader(point_format=fmt, version=version)
    if typed:
        hdr.add_extra_dims(TYPED)
    elif extra:
        hdr.add_extra_dim(laspy.ExtraBytesParams(name="extra", type=f"{extra}u1"))
    hdr.scales = np.array([0.01, 0.01, 0.01])
    hdr.offsets = np.array([512000.0, 5400000.0, 0.0])
    las = laspy.LasData(hdr)
    las.points = laspy.ScaleAwarePointRecord(
        np.frombuffer(pts, dtype=las.point_format.dtype()).copy(), las.point_format,
        hdr.scales, hdr.offsets)
    las.update_header()
    las.write(path_las)
    data = bytearray(open(path_las, "rb").read())
    header_size, offset, nvlr = struct.unpack_from("<HII", data, 94)
    variable = chunk == "variable"
    vlr = lazrs.LazVlr.new_for_compression(fmt, extra, variable)
    if not variable:
        rd = bytearray(vlr.record_data())
        struct.pack_into("<I", rd, 12, chunk)
        vlr = lazrs.LazVlr(bytes(rd))
    if variable:  # chunks of 1 to 5000 points
        f = io.BytesIO()
        comp = lazrs.LasZipCompressor(f, vlr)
        cuts, at = [], 0
        while at < n:
            k = int(rng.integers(1, 5000))
            cuts.append(pts[at * size:(at + k) * size])
            at += k
        comp.compress_chunks(cuts)
        comp.done()
        body = f.getvalue()
    else:
        body = lazrs.compress_points(vlr, pts, True)
    rd = bytes(vlr.record_data())
    vlr_bytes = (struct.pack("<H16sHH32s", 0, b"laszip encoded", 22204, len(rd), b"lazrs") + rd)
    head = bytearray(data[:offset])
    head[104] |= 0x80
    struct.pack_into("<II", head, 96, offset + len(vlr_bytes), nvlr + 1)
    # lazrs writes the chunk table's position relative to its own stream: make it absolute
    body = bytearray(body)
    table = struct.unpack_from("<q", body, 0)[0]
    struct.pack_into("<q", body, 0, table + offset + len(vlr_bytes))
    with open(path_laz, "wb") as f:
        f.write(head + vlr_bytes + body)


def laszip_payload(data):
    """Offset of the LASzip VLR's payload in a LAS file's bytes."""
    header_size, _, nvlr = struct.unpack_from("<HII", data, 94)
    p = header_size
    for _ in range(nvlr):
        length = struct.unpack_from("<H", data, p + 20)[0]
        if data[p + 2:p + 16] == b"laszip encoded" and struct.unpack_from("<H", data, p + 18)[0] == 22204:
            return p + 54
        p += 54 + length
    raise RuntimeError("no LASzip VLR")


def make_unchunked(path_laz):
    """Rewrites a LAZ file of one point-wise chunk as LASzip 1.x's unchunked compressor wrote it:
    the chunk's bytes (first point raw, then the arithmetic stream) right at the offset to the
    point data, no chunk table offset before them, no chunk table after them, compressor 1,
    chunk size 0, WAVEPACKET13 as version 1 (the coding lazrs calls version 2)."""
    data = bytearray(open(path_laz, "rb").read())
    offset = struct.unpack_from("<I", data, 96)[0]
    table = struct.unpack_from("<q", data, offset)[0]
    vlr = laszip_payload(data)
    struct.pack_into("<H", data, vlr, 1)
    struct.pack_into("<I", data, vlr + 12, 0)
    for k in range(struct.unpack_from("<H", data, vlr + 32)[0]):
        at = vlr + 34 + 6 * k
        if struct.unpack_from("<H", data, at)[0] == 9:
            struct.pack_into("<H", data, at + 4, 1)
    with open(path_laz, "wb") as f:
        f.write(data[:offset] + data[offset + 8:table])


def check_legacy(sampler, base, fmt, extra, n, chunk, unchunked_v2, rng):
    """A LASzip 1.x file against LASzip's reading of it and against its LAS twin: unchunked_v2,
    lazrs' version-2 items in one unchunked stream; else laz_legacy's version-1 items, unchunked
    (chunk None) or in fixed chunks."""
    write_pair(base + ".las", base + ".laz", fmt, extra, n, n if unchunked_v2 else 50_000, rng)
    try:
        if unchunked_v2:
            make_unchunked(base + ".laz")
        else:
            laz_legacy.write_laz(open(base + ".las", "rb").read(), base + ".laz", fmt,
                                 7 if extra == "typed" else extra, chunk)
        # LASzip must read back the records written: the file is what it claims to be.
        _, ref = reference_records(base + ".laz", laspy.LazBackend.Laszip)
        if ref != laspy.read(base + ".las").points.array.tobytes():
            return "LASzip reads other records than were written"
        return (compare_records(sampler, base + ".laz", os.path.dirname(base),
                                laspy.LazBackend.Laszip) or
                compare_twin(sampler, base + ".laz", base + ".las") or
                (unskipped(compare_fields(sampler, base + ".laz", laspy.LazBackend.Laszip))
                 if extra == "typed" else None))
    finally:
        os.remove(base + ".las")
        os.remove(base + ".laz")


def glob_copc(testdata):
    d = os.path.join(testdata, "laz")
    return [os.path.join(d, f) for f in os.listdir(d) if ".copc." in f]


def copc_levels(path):
    with laspy.CopcReader.open(path) as r:
        level = 0
        while len(r.level_query(level)) > 0:
            level += 1
        return level


def compare_copc_depth(sampler, path, depth):
    """Levels 0..depth of a COPC file: our point count and bounds against laspy's CopcReader."""
    with laspy.CopcReader.open(path) as r:
        pts = r.level_query(range(0, depth + 1))
    ours = run_json([sampler, "read", path, "0", str(depth)])
    if ours["points"] != len(pts):
        return f"{ours['points']} points read, laspy {len(pts)}"
    xyz = [np.asarray(pts.x), np.asarray(pts.y), np.asarray(pts.z)]
    for k in range(3):
        lo, hi = float(xyz[k].min()), float(xyz[k].max())
        if abs(ours["bounds_min"][k] - lo) > 1e-6 or abs(ours["bounds_max"][k] - hi) > 1e-6:
            return f"axis {k}: bounds {ours['bounds_min'][k]}..{ours['bounds_max'][k]}, laspy {lo}..{hi}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sampler", required=True)
    ap.add_argument("--testdata", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--points", type=int, default=120_001)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    checks = []  # (label, function)
    laz_dir = os.path.join(args.testdata, "laz")
    require_testdata(laz_dir)
    for f in sorted(os.listdir(laz_dir)):
        if f.endswith(".laz"):
            p = os.path.join(laz_dir, f)
            checks.append((p, lambda p=p: compare_records(args.sampler, p, args.workdir)))
    for f in ("extra.laz", "las_with_several_extra_byte_bloc.laz"):
        p = os.path.join(laz_dir, f)
        checks.append((f"{p} named fields", lambda p=p: compare_fields(args.sampler, p)))
    rng = np.random.default_rng(7)
    n = args.points
    cases = [(fmt, 0, 50_000, n) for fmt in range(11)]
    cases += [(fmt, 5, 50_000, n // 4) for fmt in (1, 3, 6, 7, 8, 10)]
    cases += [(3, 0, 1, 3001), (7, 2, 1, 3001), (1, 0, 7, 10_001), (8, 0, 7, 10_001),
              (3, 0, 65_537, n + 70_000), (6, 0, 65_537, n + 70_000),
              (3, 0, "variable", n // 2), (7, 3, "variable", n // 2)]
    cases += [(3, "typed", 50_000, n // 4), (7, "typed", 50_000, n // 4)]
    for fmt, extra, chunk, count in cases:
        base = os.path.join(args.workdir, f"gen_f{fmt}_e{extra}_c{chunk}_n{count}")

        def check(base=base, fmt=fmt, extra=extra, chunk=chunk, count=count):
            write_pair(base + ".las", base + ".laz", fmt, extra, count, chunk, rng)
            try:
                # Typed extra bytes (named fields) are also checked against laspy's values.
                return (compare_records(args.sampler, base + ".laz", args.workdir) or
                        compare_twin(args.sampler, base + ".laz", base + ".las") or
                        (unskipped(compare_fields(args.sampler, base + ".laz"))
                         if extra == "typed" else None))
            finally:
                os.remove(base + ".las")
                os.remove(base + ".laz")

        checks.append((os.path.basename(base) + ".laz", check))
    # LASzip 1.x: (format, extra bytes, chunk size or None for unchunked, points, version-2 items)
    legacy = [(fmt, 0, None, 30_000, True) for fmt in range(6)]
    legacy += [(1, 3, None, 30_000, True), (3, "typed", None, 30_000, True)]
    legacy += [(fmt, 0, None, 20_000, False) for fmt in range(4)]
    legacy += [(1, 2, None, 20_000, False), (3, "typed", None, 20_000, False),
               (3, 0, 5_000, 20_001, False), (2, 3, 7_000, 20_000, False)]
    for fmt, extra, chunk, count, v2 in legacy:
        label = (f"laszip1_f{fmt}_e{extra}_" + ("v2" if v2 else "v1") + "_" +
                 (f"c{chunk}" if chunk else "unchunked") + f"_n{count}")
        checks.append((label + ".laz", lambda b=os.path.join(args.workdir, label), f=fmt, e=extra,
                       c=chunk, k=count, v=v2: check_legacy(args.sampler, b, f, e, k, c, v, rng)))
    for p in sorted(glob_copc(args.testdata)):
        for depth in range(copc_levels(p)):
            checks.append((f"{os.path.basename(p)} depth {depth}",
                           lambda p=p, d=depth: compare_copc_depth(args.sampler, p, d)))
    return run_checks(checks)

if __name__ == "__main__":
    sys.exit(main())
