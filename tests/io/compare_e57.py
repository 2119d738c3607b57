#!/usr/bin/env python3
"""Compares pointraster's E57 reader with pye57 (which wraps libE57Format): point counts, bounds
after the poses, a sample of points, intensities and colors, for the test data's E57 files and for
files written here with pye57's libE57Format bindings: several scans with non-trivial poses,
cartesian and spherical coordinates, float (32/64-bit) and scaled-integer fields in shuffled
order, with and without color and intensity, invalid points, fields the reader skips (row and
column indices), and one large scan with UTM-size translation. Also checks --scan.

usage: compare_e57.py --pointraster BIN --sampler BIN --testdata DIR --workdir DIR [--points N]
       compare_e57.py --write FILE N       (only writes the large generated file, for bench/io)
Exits 1 if any comparison fails; prints one line per check and 'N passed, N failed'.
"""
import argparse
import math
import os
import sys
import uuid

import numpy as np

from checks import compare_sample, require_testdata, run_checks, run_json

SAMPLE = 300


# ---------- writing E57 files with pye57's libE57Format bindings ----------

def quaternion(axis, degrees):
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    h = math.radians(degrees) / 2
    return np.array([math.cos(h), *(math.sin(h) * a)])


def write_e57(path, scans):
    """scans: dicts with n, system ('cartesian'|'spherical'), coord ('double'|'single'|'scaled'),
    color, intensity, invalid, extra (row/column indices), order (field order), rotation,
    translation, seed."""
    import pye57
    from pye57 import libe57
    if os.path.exists(path):
        os.remove(path)
    e = pye57.E57(path, mode="w")
    imf = e.image_file
    for k, sc in enumerate(scans):
        rng = np.random.default_rng(sc["seed"])
        n = sc["n"]
        data = {}
        if sc["system"] == "cartesian":
            names = ["cartesianX", "cartesianY", "cartesianZ"]
            pts = rng.uniform(-40.0, 40.0, size=(n, 3))
            if sc["coord"] == "scaled":
                pts = np.round(pts * 1000.0) / 1000.0
            for i, nm in enumerate(names):
                data[nm] = pts[:, i].copy()
            state = "cartesianInvalidState"
        else:
            names = ["sphericalRange", "sphericalAzimuth", "sphericalElevation"]
            data["sphericalRange"] = rng.uniform(1.0, 60.0, n)
            data["sphericalAzimuth"] = rng.uniform(-math.pi, math.pi, n)
            data["sphericalElevation"] = rng.uniform(-1.4, 1.4, n)
            if sc["coord"] == "scaled":
                data["sphericalRange"] = np.round(data["sphericalRange"] * 1e4) / 1e4
            state = "sphericalInvalidState"
        if sc["invalid"]:
            st = rng.integers(0, 3, n).astype(np.int8)
            st[rng.uniform(size=n) < 0.7] = 0
            data[state] = st
        if sc["intensity"]:
            data["intensity"] = rng.uniform(0.0, 2047.0, n).astype(np.float32)
        if sc["color"]:
            for c in ("colorRed", "colorGreen", "colorBlue"):
                data[c] = rng.integers(0, 256, n).astype(np.uint8)
        if sc.get("extra"):
            data["rowIndex"] = (np.arange(n) // 100).astype(np.uint16)
            data["columnIndex"] = (np.arange(n) % 100).astype(np.uint16)
        node = libe57.StructureNode(imf)
        node.set("guid", libe57.StringNode(imf, "{%s}" % uuid.uuid4()))
        node.set("name", libe57.StringNode(imf, f"scan {k}"))
        if sc["rotation"] is not None:
            pose = libe57.StructureNode(imf)
            rot = libe57.StructureNode(imf)
            for nm, v in zip("wxyz", sc["rotation"]):
                rot.set(nm, libe57.FloatNode(imf, float(v)))
            tr = libe57.StructureNode(imf)
            for nm, v in zip("xyz", sc["translation"]):
                tr.set(nm, libe57.FloatNode(imf, float(v)))
            pose.set("rotation", rot)
            pose.set("translation", tr)
            node.set("pose", pose)
        if sc["intensity"]:
            lim = libe57.StructureNode(imf)
            lim.set("intensityMinimum", libe57.FloatNode(imf, 0.0))
            lim.set("intensityMaximum", libe57.FloatNode(imf, 2047.0))
            node.set("intensityLimits", lim)
        if sc["color"]:
            lim = libe57.StructureNode(imf)
            for c in ("Red", "Green", "Blue"):
                lim.set(f"color{c}Minimum", libe57.IntegerNode(imf, 0))
                lim.set(f"color{c}Maximum", libe57.IntegerNode(imf, 255))
            node.set("colorLimits", lim)
        proto = libe57.StructureNode(imf)
        fields = list(data.keys())
        if sc.get("shuffle"):
            fields = [fields[i] for i in np.random.default_rng(sc["seed"] + 1).permutation(len(fields))]
        prec = libe57.E57_SINGLE if sc["coord"] == "single" else libe57.E57_DOUBLE
        for f in fields:
            v = data[f]
            if f in names:
                if sc["coord"] == "scaled" and f in ("cartesianX", "cartesianY", "cartesianZ"):
                    proto.set(f, libe57.ScaledIntegerNode(imf, 0, -100000, 100000, 0.001, 0.0))
                elif sc["coord"] == "scaled" and f == "sphericalRange":
                    proto.set(f, libe57.ScaledIntegerNode(imf, 0, 0, 700000, 1e-4, 0.0))
                else:
                    p = prec if f != "sphericalRange" or sc["coord"] != "scaled" else libe57.E57_DOUBLE
                    proto.set(f, libe57.FloatNode(imf, float(v.min()), p, float(v.min()), float(v.max())))
            elif f == "intensity":
                proto.set(f, libe57.FloatNode(imf, 0.0, libe57.E57_SINGLE, 0.0, 2047.0))
            elif f.startswith("color"):
                proto.set(f, libe57.IntegerNode(imf, 0, 0, 255))
            elif f.endswith("InvalidState"):
                proto.set(f, libe57.IntegerNode(imf, 0, 0, 2))
            else:
                proto.set(f, libe57.IntegerNode(imf, 0, 0, 65535))
        codecs = libe57.VectorNode(imf, True)
        points = libe57.CompressedVectorNode(imf, proto, codecs)
        node.set("points", points)
        e.data3d.append(node)
        chunk = min(n, 1 << 20)
        arrays, buffers = e.make_buffers(fields, chunk)
        writer = points.writer(buffers)
        i = 0
        while i < n:
            m = min(chunk, n - i)
            for f in fields:
                arrays[f][:m] = data[f][i:i + m]
            writer.write(m)
            i += m
        writer.close()
    e.close()


def generated_sets(large):
    q1 = quaternion([0, 0, 1], 30)
    q2 = quaternion([1, 2, 3], 75)
    q3 = quaternion([-1, 0.5, 0.2], 140)
    multi = [
        dict(n=50000, system="cartesian", coord="double", color=True, intensity=True,
             invalid=True, rotation=q1, translation=[100.0, 200.0, 10.0], seed=1, shuffle=True),
        dict(n=40000, system="spherical", coord="double", color=False, intensity=True,
             invalid=True, rotation=q2, translation=[-5.0, 3.0, 1.5], seed=2, shuffle=True),
        dict(n=70001, system="cartesian", coord="scaled", color=True, intensity=False,
             invalid=False, rotation=q3, translation=[20.0, -30.0, 2.0], seed=3, extra=True,
             shuffle=True),
        dict(n=30000, system="spherical", coord="scaled", color=True, intensity=True,
             invalid=False, rotation=None, translation=None, seed=4, extra=True),
        dict(n=20000, system="cartesian", coord="single", color=False, intensity=False,
             invalid=True, rotation=q1, translation=[0.0, 0.0, 0.0], seed=5),
    ]
    big = [dict(n=large, system="cartesian", coord="single", color=True, intensity=True,
                invalid=False, rotation=q2, translation=[512345.0, 5412345.0, 250.0], seed=6)]
    return [("gen_multi.e57", multi), ("gen_large.e57", big)]


# ---------- the reference: pye57 ----------

def reference(path, scans=None):
    import pye57
    e = pye57.E57(path)
    xyz, rgb, inten, any_color, any_int = [], [], [], False, False
    for k in range(e.scan_count):
        if scans is not None and k not in scans:
            continue
        h = e.get_header(k)
        has_c = all(c in h.point_fields for c in ("colorRed", "colorGreen", "colorBlue"))
        has_i = "intensity" in h.point_fields
        d = e.read_scan(k, intensity=has_i, colors=has_c, ignore_missing_fields=True)
        p = np.stack([d["cartesianX"], d["cartesianY"], d["cartesianZ"]], axis=1)
        n = len(p)
        xyz.append(p)
        if has_c:
            any_color = True
            rgb.append(np.stack([d["colorRed"], d["colorGreen"], d["colorBlue"]], axis=1))
        else:
            rgb.append(np.full((n, 3), 255, dtype=np.uint8))
        if has_i:
            any_int = True
            inten.append(np.asarray(d["intensity"], dtype=np.float64))
        else:
            inten.append(np.zeros(n))
    return dict(xyz=np.concatenate(xyz), rgb=np.concatenate(rgb).astype(np.uint8) if any_color else None,
                intensity=np.concatenate(inten) if any_int else None)


def compare(path, args, scans=None):
    cmd = [args.pointraster, "--info", "--json", path]
    for k in scans or []:
        cmd += ["--scan", str(k)]
    info = run_json(cmd)
    if "error" in info:
        return f"pointraster failed: {info['error']}"
    ref = reference(path, scans)
    xyz = ref["xyz"]
    n = len(xyz)
    if info["points"] != n:
        return f"point count: ours {info['points']}, reference {n}"
    span = np.abs(xyz - np.array(info["origin"])).max() if n else 0.0
    tol = 1e-3 + span * 1.2e-7
    for key, ref_b in (("bounds_min", xyz.min(axis=0)), ("bounds_max", xyz.max(axis=0))):
        if not np.allclose(info[key], ref_b, rtol=0, atol=tol):
            return f"{key}: ours {info[key]}, reference {ref_b.tolist()}"
    if info["has_color"] != (ref["rgb"] is not None):
        return f"has_color: ours {info['has_color']}, reference {ref['rgb'] is not None}"
    if info["has_intensity"] != (ref["intensity"] is not None):
        return f"has_intensity: ours {info['has_intensity']}"
    if scans is not None:
        return None  # the sampler reads every scan; counts and bounds checked the choice
    ours = run_json([args.sampler, "read", path, str(SAMPLE)])
    if ours["points"] != n:
        return f"sampler point count {ours['points']}, reference {n}"
    return compare_sample(ours["sample"], xyz, ref["rgb"], ref["intensity"], tol)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--write":
        name, scans = generated_sets(int(sys.argv[3]))[1]
        write_e57(sys.argv[2], scans)
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--pointraster", required=True)
    ap.add_argument("--sampler", required=True)
    ap.add_argument("--testdata", required=True, help="the folder of the test data's .e57 files")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--points", type=int, default=1_000_000)
    args = ap.parse_args()
    checks = []  # (file, the scans --scan names or None)
    require_testdata(args.testdata)
    for f in sorted(os.listdir(args.testdata)):
        if f.endswith(".e57"):
            checks.append((os.path.join(args.testdata, f), None))
    checks.append((os.path.join(args.testdata, "A_B.e57"), [1]))
    os.makedirs(args.workdir, exist_ok=True)
    generated = []
    for name, scans in generated_sets(args.points):
        p = os.path.join(args.workdir, name)
        write_e57(p, scans)
        generated.append(p)
        checks.append((p, None))
    checks.append((generated[0], [1, 3]))
    checks.append((generated[0], [4]))
    status = run_checks(
        [(p + (f" --scan {' '.join(map(str, scans))}" if scans else ""),
          lambda p=p, scans=scans: compare(p, args, scans)) for p, scans in checks])
    for p in generated:
        os.remove(p)
    return status

if __name__ == "__main__":
    sys.exit(main())
