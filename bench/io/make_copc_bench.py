#!/usr/bin/env python3
"""Writes large, valid COPC files fast, for the streaming benchmarks (copclib's FileWriter writes a
few hundred nodes a second; this writes the format directly and lets lazrs compress the chunks).

  make_copc_bench.py --out FILE [--points N] [--format 6|7] [--max-node-points M] [--seed S]
                     [--extent METRES] [--input LAS_OR_LAZ] [--page-min-nodes K] [--verify]
      N synthetic points (default 2e7; 1e8 take ~4.7 GB of memory) over a square tile near
      (500000, 4000000) in UTM-like coordinates, scale 0.001: rolling terrain (a sum of waves),
      forest patches with trees up to 25 m, classes (ground, low/medium/high vegetation), returns,
      intensity, scan angle and point source per 400 m flight strip, GPS time, and for format 7
      RGB from the height. The tile's edge is --extent, by default the one giving 20 points/m².
      With --input, the points of a LAS/LAZ file instead (scale, offset, attributes and its WKT
      kept; colors from the height when the file has none). The octree: the root cube starts at
      the header's minimum with the largest extent as edge (what copclib's Box(key, header)
      assumes), root spacing = edge / 128; a node keeps one random point in each occupied cell of
      a 128³ grid over its cube and hands the rest to its children; a node of at most M points
      (default 50,000) keeps them all (a leaf); children that would get fewer than 100 points
      leave them in the parent (untwine's rule); depth at most 14.
  make_copc_bench.py --out FILE --many-nodes N [--format 6|7] [--seed S] [--page-min-nodes K]
                     [--verify]
      A file whose hierarchy holds at least N nodes (e.g. 300,000) of 20 to 50 points each: a
      terrain surface covered by one node a column on every level down to D - 1 (4^d columns on
      level d) and by the first columns of level D in Morton order, as many as N asks for (a
      column whose ancestors' cubes sit at other heights brings more). lazrs spends ~0.4 ms of CPU
      starting each chunk (the layered point-14 models; finish_current_chunk() costs the same),
      2 to 8 minutes for 300,000 chunks on 2 shared cores, so 32 template chunks a level are
      compressed and each node gets a template's bytes with the first point (stored raw at the
      start of a layered chunk) moved into its cube: X, Y and Z are coded as differences from
      the previous point, so the whole chunk decodes shifted by the same amount. Only the root
      chunk is compressed on its own (it holds the points at the exact bounds).

Both: LAS 1.4, point format 6 or 7 (default 7), the `copc` info VLR first (offset 375), the
LASzip VLR for variable-size chunks (one chunk a node, the chunk table after the points) and the
hierarchy EVLR (copc/1000): the root page holds levels 0-3, each node at a level 4k (k > 0)
starts a page of its own (a -1 entry in its parent's page), or with --page-min-nodes K only
those whose subtree has more than K nodes (untwine: 50). Header bounds are the points' exact
bounds; the legacy counts are 0 (point formats 6+), the 64-bit counts by return are filled.
Every point lies inside its node's box as copclib computes it (checked in doubles before
writing; a point one ulp outside its cell at a shared face goes to the neighbour cell, or a
level up where the box of a cube's top cell ends an ulp short of the top face).

--verify reads the file back: laspy decodes every point (count, bounds equal to the header's);
copclib's FileReader loads the hierarchy (node and point counts) and, for files of at most 2,000
nodes, checks ValidateSpatialBounds() and reads every node, else reads 300 random nodes and
checks their points against their boxes. Decoding costs lazrs a similar time a chunk: laspy
takes minutes over a 300,000-node file.

Run with /work/venv-io/bin/python (numpy, lazrs; laspy for --input and --verify, copclib for
--verify).
"""
import argparse
import io
import math
import os
import struct
import sys
import time

import lazrs
import numpy as np

BITS = 21  # bits per axis of the finest grid: 63-bit Morton codes
GRID_BITS = 7  # a node samples 2^7 = 128 cells along its edge
MAX_DEPTH = BITS - GRID_BITS
MIN_CHILD = 100
PAGE_LEVELS = 4
HEADER_SIZE = 375
EVLR_HEADER = 60
BATCH = 1 << 21  # points per vectorised batch
ENTRY = np.dtype([("level", "<i4"), ("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("offset", "<u8"),
                  ("byte_size", "<i4"), ("point_count", "<i4")])
GPS_T0 = 3.0e8  # adjusted standard GPS time (GPS seconds - 1e9): March 2021
SCAN_RATE = 2.0e5  # pulses a second: the GPS time step between generated points


def record_dtype(fmt):
    fields = [("X", "<i4"), ("Y", "<i4"), ("Z", "<i4"), ("intensity", "<u2"), ("returns", "u1"),
              ("flags", "u1"), ("classification", "u1"), ("user_data", "u1"),
              ("scan_angle", "<i2"), ("point_source_id", "<u2"), ("gps_time", "<f8")]
    if fmt == 7:
        fields += [("red", "<u2"), ("green", "<u2"), ("blue", "<u2")]
    return np.dtype(fields)


def log(msg):
    print(msg, flush=True)


class Clock:
    """Wall and CPU time (all threads, lazrs' included) since the last lap: the CPU time says
    what the work costs on a machine that others share."""

    def __init__(self):
        self.wall, self.cpu = time.time(), time.process_time()

    def lap(self):
        text = f"{time.time() - self.wall:.1f} s ({time.process_time() - self.cpu:.1f} s cpu)"
        self.__init__()
        return text


# ---------------------------------------------------------------------------------------------
# Synthetic terrain


class Terrain:
    """Heights in metres over local (x, y) in metres: waves from 1.5 km down to 12 m, amplitude
    growing with the wavelength (like a fractal surface), plus a forest mask of long waves."""

    def __init__(self, seed):
        rng = np.random.default_rng(seed + 7919)
        lengths = np.geomspace(1500.0, 12.0, 14)
        angles = rng.uniform(0, 2 * np.pi, lengths.size)
        self.kx = 2 * np.pi / lengths * np.cos(angles)
        self.ky = 2 * np.pi / lengths * np.sin(angles)
        self.phase = rng.uniform(0, 2 * np.pi, lengths.size)
        self.amp = 0.9 * lengths**0.75 / 8.0
        fa = rng.uniform(0, 2 * np.pi, 3)
        self.fkx = 2 * np.pi / np.array([700.0, 310.0, 170.0]) * np.cos(fa)
        self.fky = 2 * np.pi / np.array([700.0, 310.0, 170.0]) * np.sin(fa)
        self.base = 150.0

    def height(self, x, y):
        z = np.full(x.shape, self.base)
        for kx, ky, ph, a in zip(self.kx, self.ky, self.phase, self.amp):
            z += a * np.sin(kx * x + ky * y + ph)
        return z

    def forest(self, x, y):
        f = np.zeros(x.shape)
        for kx, ky in zip(self.fkx, self.fky):
            f += np.sin(kx * x + ky * y)
        return f > 0.8

    def lattice(self, extent):
        """Heights and the forest sum on a lattice over [0, extent]² (at most ~0.5 m apart):
        sin(kx x + ky y + p) = sin(kx x + p) cos(ky y) + cos(kx x + p) sin(ky y) makes each
        a product of (lattice × waves) matrices."""
        cells = int(np.clip(np.ceil(extent / 0.5), 256, 4096))
        t = np.linspace(0.0, extent, cells + 1)

        def waves(kx, ky, ph, amp):
            ax = np.outer(t, kx) + ph
            by = np.outer(t, ky)
            return (np.cos(by) @ (np.sin(ax) * amp).T + np.sin(by) @ (np.cos(ax) * amp).T)

        heights = self.base + waves(self.kx, self.ky, self.phase, self.amp)
        forest = waves(self.fkx, self.fky, np.zeros(self.fkx.size), np.ones(self.fkx.size))
        return Lattice(heights, extent / cells), Lattice(forest, extent / cells)


class Lattice:
    """Bilinear interpolation of values[row = y, column = x] at spacing h from (0, 0)."""

    def __init__(self, values, h):
        self.values, self.h = values, h
        self.flat = values.ravel()
        self.n = values.shape[0] - 1

    def __call__(self, x, y):
        fx, fy = x / self.h, y / self.h
        i = np.clip(fx.astype(np.int64), 0, self.n - 1)
        j = np.clip(fy.astype(np.int64), 0, self.n - 1)
        tx, ty = fx - i, fy - j
        at = j * (self.n + 1) + i
        v = self.flat
        bottom = v[at] + (v[at + 1] - v[at]) * tx
        top = v[at + self.n + 1] + (v[at + self.n + 2] - v[at + self.n + 1]) * tx
        return bottom + (top - bottom) * ty


def hash32(v, salt):
    """A 32-bit mix of integers (murmur3's finaliser): per-point noise that needs no storage.
    uint32 products wrap modulo 2^32, as the finaliser wants."""
    h = v.astype(np.uint32) * np.uint32(0x9E3779B1) + np.uint32(salt)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


def generate(n, extent, seed, scale):
    """n points: integer coordinates (offset 0, 0, 0 relative to the tile origin) and classes."""
    height, forest_sum = Terrain(seed).lattice(extent)
    rng = np.random.default_rng(seed)
    ix = np.empty(n, np.int32)
    iy = np.empty(n, np.int32)
    iz = np.empty(n, np.int32)
    cls = np.empty(n, np.uint8)
    for s in range(0, n, BATCH):
        e = min(n, s + BATCH)
        m = e - s
        x = rng.uniform(0.0, extent, m)
        y = rng.uniform(0.0, extent, m)
        z = height(x, y) + rng.normal(0.0, 0.03, m)
        above = np.zeros(m)
        forest = forest_sum(x, y) > 0.8
        veg = forest & (rng.random(m) < 0.6)
        tree_h = 8.0 + 17.0 * rng.random(m)
        above[veg] = tree_h[veg] * rng.random(np.count_nonzero(veg)) ** 0.5
        z += above
        c = np.full(m, 2, np.uint8)
        c[veg & (above < 0.5)] = 3
        c[veg & (above >= 0.5) & (above < 2.0)] = 4
        c[veg & (above >= 2.0)] = 5
        ix[s:e] = np.floor(x / scale)
        iy[s:e] = np.floor(y / scale)
        iz[s:e] = np.round(z / scale)
        cls[s:e] = c
    return ix, iy, iz, cls


PALETTE = np.array([[40, 90, 160], [70, 140, 70], [150, 160, 80], [140, 110, 70], [235, 235, 235]],
                   np.float64)


def height_colors(t):
    """RGB (16-bit, 8-bit values * 256) along a hypsometric ramp, t in [0, 1]."""
    t = np.clip(t, 0.0, 1.0) * (len(PALETTE) - 1)
    i = np.minimum(t.astype(np.int64), len(PALETTE) - 2)
    f = (t - i)[:, None]
    rgb = PALETTE[i] * (1 - f) + PALETTE[i + 1] * f
    return (rgb.astype(np.uint16) * 256)


# Classes 2 (ground), 3-5 (vegetation): returns (number | count << 4) and base intensity.
RETURNS_OF_CLASS = np.array([17] * 3 + [33] * 3 + [17] * 250, np.uint8)
INTENSITY_OF_CLASS = np.array([1100] * 3 + [250] * 3 + [1100] * 250, np.uint16)
# The height ramp in 4096 steps, 64 more for the per-point jitter; trees tinted green.
COLOR_RAMP = height_colors(np.linspace(0.0, 1.0 + 64 / 4096, 4096 + 64))
COLOR_RAMP_VEG = COLOR_RAMP // 4 + (np.array([34, 100, 34], np.uint16) * 256) * 3 // 4


class SyntheticSource:
    """Attributes of generated points, computed per batch from the coordinates, the class and
    the point's index in generation order (its GPS time)."""

    def __init__(self, ix, iy, iz, cls, scale, offset):
        self.ix, self.iy, self.iz, self.cls = ix, iy, iz, cls
        self.scale, self.offset = (scale,) * 3, offset
        self.n = ix.size
        self.wkt = None
        self.gps_range = (GPS_T0, GPS_T0 + (self.n - 1) / SCAN_RATE)

    def records(self, idx, fmt, zmin, zmax):
        """Records of the points idx: lookup tables where a formula per point would cost more
        than lazrs' compression of the record (the scan angle, the colors)."""
        rec = np.zeros(idx.size, record_dtype(fmt))
        ix, iz, cls = self.ix[idx], self.iz[idx], self.cls[idx]
        rec["X"], rec["Y"], rec["Z"] = ix, self.iy[idx], iz
        h = hash32(idx, 17)
        veg = cls >= 3
        rec["returns"] = RETURNS_OF_CLASS[cls]
        rec["classification"] = cls
        rec["intensity"] = INTENSITY_OF_CLASS[cls] + (h & np.uint32(1023))
        strip_width = int(round(400.0 / self.scale[0]))
        strip = ix // strip_width
        across = ix - strip * strip_width  # the angle in steps of 1/4 m across the strip
        steps = np.arange(0, strip_width + 1, 250) * self.scale[0] - 200.0
        angles = np.round(np.degrees(np.arctan2(steps, 900.0)) / 0.006).astype(np.int16)
        rec["scan_angle"] = angles[across // 250]
        rec["point_source_id"] = strip + 1
        rec["flags"] = ((idx // 2000) & 1).astype(np.uint8) << 6  # scan direction per line
        rec["gps_time"] = GPS_T0 + idx / SCAN_RATE
        if fmt == 7:
            z0 = int(round((zmin - self.offset[2]) / self.scale[2]))
            per = (len(COLOR_RAMP) - 64) / max((zmax - zmin) / self.scale[2], 1.0)
            t = ((iz - z0) * per).astype(np.int64) + ((h >> np.uint32(10)) & np.uint32(63))
            rgb = np.where(veg[:, None], COLOR_RAMP_VEG[t], COLOR_RAMP[t])
            rec["red"], rec["green"], rec["blue"] = rgb[:, 0], rgb[:, 1], rgb[:, 2]
        return rec


class FileSource:
    """Points of an existing LAS/LAZ file (read whole with laspy)."""

    def __init__(self, path):
        import laspy

        try:
            las = laspy.read(path)
        except Exception as e:  # laspy raises many kinds; one line naming the file
            sys.exit(f"make_copc_bench: {path}: cannot read: {e}")
        self.las = las
        self.n = len(las.points)
        if self.n == 0:
            sys.exit(f"make_copc_bench: {path}: no points")
        self.ix = np.asarray(las.X, np.int32)
        self.iy = np.asarray(las.Y, np.int32)
        self.iz = np.asarray(las.Z, np.int32)
        self.scale = tuple(float(v) for v in las.header.scales)
        self.offset = tuple(float(v) for v in las.header.offsets)
        names = set(las.point_format.dimension_names)
        self.names = names
        self.gps_range = ((float(np.min(las.gps_time)), float(np.max(las.gps_time)))
                          if "gps_time" in names else (0.0, 0.0))
        self.wkt = None
        for vlr in list(las.header.vlrs) + list(getattr(las, "evlrs", []) or []):
            if vlr.user_id == "LASF_Projection" and vlr.record_id == 2112:
                data = getattr(vlr, "record_data_bytes", None)
                self.wkt = data() if callable(data) else getattr(vlr, "record_data", None)
                if self.wkt is None and hasattr(vlr, "string"):
                    self.wkt = vlr.string.encode() + b"\0"

    def records(self, idx, fmt, zmin, zmax):
        las = self.las
        rec = np.zeros(idx.size, record_dtype(fmt))
        rec["X"], rec["Y"], rec["Z"] = self.ix[idx], self.iy[idx], self.iz[idx]
        ret = np.clip(np.asarray(las.return_number)[idx], 0, 15).astype(np.uint8)
        num = np.clip(np.asarray(las.number_of_returns)[idx], 0, 15).astype(np.uint8)
        rec["returns"] = ret | (num << 4)
        rec["intensity"] = np.asarray(las.intensity)[idx]
        rec["classification"] = np.asarray(las.classification)[idx]
        rec["user_data"] = np.asarray(las.user_data)[idx]
        rec["point_source_id"] = np.asarray(las.point_source_id)[idx]
        if "scan_angle" in self.names:
            rec["scan_angle"] = np.asarray(las.scan_angle)[idx]
        elif "scan_angle_rank" in self.names:
            rec["scan_angle"] = np.asarray(las.scan_angle_rank, np.int16)[idx] * 167
        if "gps_time" in self.names:
            rec["gps_time"] = np.asarray(las.gps_time)[idx]
        if fmt == 7:
            if "red" in self.names:
                rec["red"] = np.asarray(las.red)[idx]
                rec["green"] = np.asarray(las.green)[idx]
                rec["blue"] = np.asarray(las.blue)[idx]
            else:
                z = self.iz[idx] * self.scale[2] + self.offset[2]
                rgb = height_colors((z - zmin) / max(zmax - zmin, 1e-9))
                rec["red"], rec["green"], rec["blue"] = rgb[:, 0], rgb[:, 1], rgb[:, 2]
        return rec


# ---------------------------------------------------------------------------------------------
# Geometry: the cube, cells and Morton codes


class Cube:
    """The octree's cube as copclib sees it: from the header's minimum, edge = largest extent.
    Node (d, x, y, z) spans [min + step * k, min + step * k + step] per axis, step = edge / 2^d,
    computed in that order in doubles, both ends included (copclib's Box::Contains)."""

    def __init__(self, scale, offset, imin, imax):
        self.scale = np.array(scale, np.float64)
        self.offset = np.array(offset, np.float64)
        self.min = np.array(imin, np.float64) * self.scale + self.offset
        self.max = np.array(imax, np.float64) * self.scale + self.offset
        self.span = float(np.max(self.max - self.min))
        if not self.span > 0:
            self.span = float(np.max(self.scale))

    def world(self, icoord, axis):
        return icoord.astype(np.float64) * self.scale[axis] + self.offset[axis]

    def cell(self, icoord, axis, level):
        """The cell index at `level` (a number or one a point) holding each coordinate, corrected
        so that the box computed the copclib way contains the point (a division can land one
        cell off at a boundary)."""
        x = self.world(icoord, axis)
        level = np.asarray(level, np.int64)
        step = self.span / np.exp2(level.astype(np.float64))
        mn = self.min[axis]
        top = np.left_shift(1, level) - 1
        k = np.clip(np.floor((x - mn) / step), 0, top).astype(np.int64)
        for _ in range(2):
            lo = step * k + mn
            k = np.where((x < lo) & (k > 0), k - 1, k)
            lo = step * k + mn
            k = np.where((x > lo + step) & (k < top), k + 1, k)
        return k

    def inside(self, icoord, axis, level, k):
        x = self.world(icoord, axis)
        step = self.span / np.exp2(level.astype(np.float64))
        lo = step * k + self.min[axis]
        return (x >= lo) & (x <= lo + step)


def spread3(v):
    """Interleaves the 21 low bits of v with two zero bits each (Morton encoding)."""
    v = v.astype(np.uint64) & np.uint64(0x1FFFFF)
    v = (v | (v << np.uint64(32))) & np.uint64(0x1F00000000FFFF)
    v = (v | (v << np.uint64(16))) & np.uint64(0x1F0000FF0000FF)
    v = (v | (v << np.uint64(8))) & np.uint64(0x100F00F00F00F00F)
    v = (v | (v << np.uint64(4))) & np.uint64(0x10C30C30C30C30C3)
    v = (v | (v << np.uint64(2))) & np.uint64(0x1249249249249249)
    return v


def compact3(v):
    v = v & np.uint64(0x1249249249249249)
    v = (v ^ (v >> np.uint64(2))) & np.uint64(0x10C30C30C30C30C3)
    v = (v ^ (v >> np.uint64(4))) & np.uint64(0x100F00F00F00F00F)
    v = (v ^ (v >> np.uint64(8))) & np.uint64(0x1F0000FF0000FF)
    v = (v ^ (v >> np.uint64(16))) & np.uint64(0x1F00000000FFFF)
    v = (v ^ (v >> np.uint64(32))) & np.uint64(0x1FFFFF)
    return v.astype(np.int64)


def morton(kx, ky, kz):
    return spread3(kx) | (spread3(ky) << np.uint64(1)) | (spread3(kz) << np.uint64(2))


def unmorton(m):
    return compact3(m), compact3(m >> np.uint64(1)), compact3(m >> np.uint64(2))


def run_starts(a):
    """Indices where a sorted array starts a run of equal values."""
    if a.size == 0:
        return np.zeros(0, np.int64)
    flags = np.empty(a.size, bool)
    flags[0] = True
    np.not_equal(a[1:], a[:-1], out=flags[1:])
    return np.flatnonzero(flags)


# ---------------------------------------------------------------------------------------------
# The octree


def finest_codes(ix, iy, iz, cube):
    """Morton codes of the finest cells (2^21 along the edge). A boundary point may land one
    cell off the copclib box; the check after the levels are assigned places it again."""
    m = np.empty(ix.size, np.uint64)
    per_cell = float(1 << BITS) / cube.span
    for s in range(0, ix.size, BATCH):
        e = min(ix.size, s + BATCH)
        k = [np.clip((cube.world(c[s:e], a) - cube.min[a]) * per_cell, 0, (1 << BITS) - 1)
             .astype(np.uint64) for a, c in enumerate((ix, iy, iz))]
        m[s:e] = morton(*k)
    return m


def prefix_starts(mm, shift):
    """Where the sorted codes mm start a new prefix mm >> shift, batch by batch (no array of
    prefixes as large as mm)."""
    out = []
    sh = np.uint64(shift)
    for s in range(0, mm.size, BATCH):
        e = min(mm.size, s + BATCH)
        a = mm[max(s - 1, 0):e] >> sh
        flags = a[1:] != a[:-1]
        if s == 0:
            flags = np.concatenate(([True], flags))
        out.append(np.flatnonzero(flags) + s)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def level_pass(mm, d, max_node_points, rng):
    """Which of the points (sorted codes mm, all below one level-d node each) stay at level d:
    all of a node of at most max_node_points, else one random point per occupied cell of the
    node's 128³ grid (the codes' prefixes at level d + 7) and the points of children that would
    hold fewer than MIN_CHILD. Batches of whole children keep the temporaries small."""
    n = mm.size
    node_starts = prefix_starts(mm, 3 * (BITS - d))
    node_counts = np.diff(np.append(node_starts, n))
    split = node_counts > max_node_points
    stay = np.zeros(n, bool)
    child_shift = np.uint64(3 * (BITS - d - 1))
    cell_shift = np.uint64(3 * (BITS - min(BITS, d + GRID_BITS)))
    s = 0
    while s < n:
        e = min(n, s + BATCH)
        if e < n:  # end the batch where a child ends
            e = int(np.searchsorted(mm, ((mm[e - 1] >> child_shift) + np.uint64(1)) << child_shift))
        seg = mm[s:e]
        node = np.searchsorted(node_starts, np.arange(s, e), side="right") - 1
        st = ~split[node]
        cstarts = run_starts(seg >> cell_shift)
        clen = np.diff(np.append(cstarts, seg.size))
        st[cstarts + (rng.random(cstarts.size) * clen).astype(np.int64)] = True
        rest = np.flatnonzero(~st)
        if rest.size:
            chs = run_starts(seg[rest] >> child_shift)
            chn = np.diff(np.append(chs, rest.size))
            st[rest[np.repeat(chn < MIN_CHILD, chn)]] = True
        stay[s:e] = st
        s = e
    return stay


def assign_levels(m, max_node_points, rng):
    """Level of each point (m: finest Morton codes, sorted), top-down: level_pass keeps some
    points at each level and hands the rest one level down; the last level keeps all."""
    n = m.size
    level = np.full(n, -1, np.int8)
    pos = np.arange(n, dtype=np.uint32 if n < 2**32 else np.int64)
    mm = m
    for d in range(MAX_DEPTH + 1):
        if pos.size == 0:
            break
        if d == MAX_DEPTH:
            level[pos] = d
            break
        stay = level_pass(mm, d, max_node_points, rng)
        level[pos[stay]] = d
        keep = ~stay
        del stay
        pos = pos[keep]
        mm = mm[keep]
    return level


def place_again(cube, coords, lv, code, at):
    """Points at `at` (coordinates coords) that lie outside their node's box as copclib computes
    it, one ulp off at a shared face: the neighbour cell at the same level, else the first level
    up whose cell's box holds them (the box of the top cell can end an ulp short of the cube's
    top face). Updates lv and code; returns how many fit no box, not even the root's."""
    todo = np.ones(at.size, bool)
    for up in range(MAX_DEPTH + 1):
        sel = np.flatnonzero(todo)
        d = np.maximum(lv[at[sel]].astype(np.int64) - up, 0)
        k = [cube.cell(c[sel], a, d) for a, c in enumerate(coords)]
        fits = np.ones(sel.size, bool)
        for a, c in enumerate(coords):
            fits &= cube.inside(c[sel], a, d, k[a])
        ok = sel[fits]
        lv[at[ok]] = d[fits]
        code[at[ok]] = morton(k[0][fits], k[1][fits], k[2][fits])
        todo[ok] = False
        if not todo.any():
            break
    return int(np.count_nonzero(todo))


def build_octree(ix, iy, iz, cube, max_node_points, seed):
    """Orders the points node by node. Returns (order: point indices in file order, nodes:
    dict of arrays level, kx, ky, kz, start, count), every point checked inside its node's box."""
    t = Clock()
    m = finest_codes(ix, iy, iz, cube)
    perm = np.argsort(m)
    m = m[perm]
    if perm.size < 2**32:
        perm = perm.astype(np.uint32)
    log(f"  morton codes and sort: {t.lap()}")
    t = Clock()
    level = assign_levels(m, max_node_points, np.random.default_rng(seed + 1))
    fin = np.argsort(level, kind="stable")  # level by level, Morton order inside a level
    lv = level[fin]
    del level
    code = np.empty(m.size, np.uint64)
    for s in range(0, m.size, BATCH):
        e = min(m.size, s + BATCH)
        code[s:e] = m[fin[s:e]] >> (np.uint64(3) * (np.uint64(BITS) - lv[s:e].astype(np.uint64)))
    del m
    order = perm[fin]
    del perm, fin
    log(f"  levels: {t.lap()}")
    t = Clock()
    bad_total = unplaced = 0
    for s in range(0, order.size, BATCH):
        e = min(order.size, s + BATCH)
        idx, lvb = order[s:e], lv[s:e]
        ks = list(unmorton(code[s:e]))
        bad = np.zeros(e - s, bool)
        for axis, coord in enumerate((ix, iy, iz)):
            bad |= ~cube.inside(coord[idx], axis, lvb, ks[axis])
        nb = np.flatnonzero(bad)
        if nb.size:
            bad_total += nb.size
            unplaced += place_again(cube, (ix[idx[nb]], iy[idx[nb]], iz[idx[nb]]), lv, code,
                                    s + nb)
    if bad_total:  # order again by (level, node)
        key = (lv.astype(np.uint64) << np.uint64(58)) | code
        o = np.argsort(key, kind="stable")
        order, lv, code = order[o], lv[o], code[o]
    log(f"  box check: {t.lap()} ({bad_total} points placed again)")
    if unplaced:
        log(f"  warning: {unplaced} points lie outside the root box as copclib computes it")
    key = (lv.astype(np.uint64) << np.uint64(58)) | code
    starts = run_starts(key)
    counts = np.diff(np.append(starts, order.size))
    kx, ky, kz = unmorton(code[starts])
    nodes = dict(level=lv[starts].astype(np.int64), kx=kx, ky=ky, kz=kz, start=starts,
                 count=counts)
    return order, nodes


# ---------------------------------------------------------------------------------------------
# The hierarchy


def page_layout(keys, page_min_nodes):
    """Splits the nodes (a set of (level, x, y, z) including every ancestor) into pages: the root
    page, and a page at each node of level 4k (k > 0) whose subtree holds more than
    page_min_nodes nodes. Returns (pages: page key -> node keys, children: page key -> child page
    keys), the root page first."""
    subtree = {}
    for d, x, y, z in keys:
        for lv in range(PAGE_LEVELS, d + 1, PAGE_LEVELS):
            s = d - lv
            a = (lv, x >> s, y >> s, z >> s)
            subtree[a] = subtree.get(a, 0) + 1
    root = (0, 0, 0, 0)

    def page_of(key):
        d, x, y, z = key
        lv = d - d % PAGE_LEVELS
        while lv > 0:
            s = d - lv
            a = (lv, x >> s, y >> s, z >> s)
            if subtree[a] > page_min_nodes:
                return a
            lv -= PAGE_LEVELS
        return root

    pages = {root: []}
    for key in sorted(keys):
        pages.setdefault(page_of(key), []).append(key)
    children = {p: [] for p in pages}
    for p in pages:
        if p != root:
            d, x, y, z = p
            children[page_of((d - 1, x >> 1, y >> 1, z >> 1))].append(p)
    return pages, children


def hierarchy_bytes(entries, begin, page_min_nodes):
    """The hierarchy EVLR's data, its pages laid out from file offset `begin` (root page first,
    then breadth first). entries: node key -> (offset, byte_size, point_count); ancestors that
    are missing join with no points. Returns (data, root page size, number of pages)."""
    keys = set(entries)
    for key in list(keys):
        d, x, y, z = key
        while d > 0:
            d, x, y, z = d - 1, x >> 1, y >> 1, z >> 1
            if (d, x, y, z) in keys:
                break
            keys.add((d, x, y, z))
    pages, children = page_layout(keys, page_min_nodes)
    order = [(0, 0, 0, 0)]
    for p in order:
        order.extend(children[p])
    where = {}
    at = begin
    for p in order:
        size = 32 * (len(pages[p]) + len(children[p]))
        where[p] = (at, size)
        at += size
    out = []
    for p in order:
        rows = np.zeros(len(pages[p]) + len(children[p]), ENTRY)
        nk = np.array(pages[p] + children[p], np.int64).reshape(-1, 4)
        rows["level"], rows["x"], rows["y"], rows["z"] = nk[:, 0], nk[:, 1], nk[:, 2], nk[:, 3]
        vals = [entries.get(k, (0, 0, 0)) for k in pages[p]] + [
            (where[c][0], where[c][1], -1) for c in children[p]]
        v = np.array(vals, np.int64).reshape(-1, 3)
        rows["offset"], rows["byte_size"], rows["point_count"] = v[:, 0], v[:, 1], v[:, 2]
        out.append(rows.tobytes())
    return b"".join(out), where[(0, 0, 0, 0)][1], len(order)


# ---------------------------------------------------------------------------------------------
# LAS 1.4 structures


def vlr_bytes(user_id, record_id, data, description=""):
    return struct.pack("<H16sHH32s", 0, user_id.encode(), record_id, len(data),
                       description.encode()) + data


def evlr_bytes(user_id, record_id, data, description=""):
    return struct.pack("<H16sHQ32s", 0, user_id.encode(), record_id, len(data),
                       description.encode()) + data


def info_vlr(cube, root_page_offset, root_page_size, gps_range):
    half = cube.span / 2.0
    centre = cube.min + half
    data = struct.pack("<5d2Q2d", centre[0], centre[1], centre[2], half, cube.span / 128.0,
                       root_page_offset, root_page_size, gps_range[0], gps_range[1])
    data += bytes(8 * 11)
    assert len(data) == 160
    return vlr_bytes("copc", 1, data, "copc info")


def las_header(fmt, point_offset, vlr_count, cube, point_count, by_return, evlr_offset):
    rec_len = record_dtype(fmt).itemsize
    today = time.gmtime()
    h = struct.pack("<4sHH16sBB32s32sHHHIIBHI5I", b"LASF", 0, 0x11, bytes(16), 1, 4,
                    b"pointraster", b"pointraster make_copc_bench", today.tm_yday,
                    today.tm_year, HEADER_SIZE, point_offset, vlr_count, fmt | 0x80, rec_len, 0,
                    0, 0, 0, 0, 0)
    h += struct.pack("<3d3d", *cube.scale, *cube.offset)
    h += struct.pack("<6d", cube.max[0], cube.min[0], cube.max[1], cube.min[1], cube.max[2],
                     cube.min[2])
    h += struct.pack("<QQIQ15Q", 0, evlr_offset, 1, point_count, *by_return)
    assert len(h) == HEADER_SIZE
    return h


class CopcWriter:
    """Writes header and VLRs (the info VLR filled in at the end), lets the caller put the point
    chunks, then the hierarchy EVLR."""

    def __init__(self, path, fmt, cube, page_min_nodes, wkt=None):
        self.path, self.fmt, self.cube = path, fmt, cube
        self.page_min_nodes = page_min_nodes
        self.laz_vlr = lazrs.LazVlr.new_for_compression(fmt, 0, True)
        vlrs = [info_vlr(cube, 0, 0, (0.0, 0.0)),
                vlr_bytes("laszip encoded", 22204, self.laz_vlr.record_data(), "lazrs")]
        if wkt:
            vlrs.append(vlr_bytes("LASF_Projection", 2112, bytes(wkt), "WKT"))
        self.vlr_count = len(vlrs)
        self.point_offset = HEADER_SIZE + sum(len(v) for v in vlrs)
        self.f = open(path, "w+b")
        self.f.write(bytes(HEADER_SIZE))
        for v in vlrs:
            self.f.write(v)
        assert self.f.tell() == self.point_offset

    def finish(self, keys, counts, sizes, by_return, gps_range):
        """keys: (n, 4) node keys in chunk order; counts and sizes of their chunks."""
        f = self.f
        f.seek(0, os.SEEK_END)
        evlr_offset = f.tell()
        offsets = self.point_offset + 8 + np.concatenate(([0], np.cumsum(sizes)[:-1]))
        entries = {tuple(int(v) for v in k): (int(o), int(s), int(c))
                   for k, o, s, c in zip(keys, offsets, sizes, counts)}
        data, root_size, npages = hierarchy_bytes(entries, evlr_offset + EVLR_HEADER,
                                                  self.page_min_nodes)
        f.write(evlr_bytes("copc", 1000, data, "EPT hierarchy"))
        f.seek(0)
        f.write(las_header(self.fmt, self.point_offset, self.vlr_count, self.cube,
                           int(np.sum(counts)), by_return, evlr_offset))
        f.write(info_vlr(self.cube, evlr_offset + EVLR_HEADER, root_size, gps_range))
        f.close()
        return len(data) // 32, npages


def by_return_counts(returns_byte):
    c = np.bincount(returns_byte & 15, minlength=16)
    return [int(v) for v in c[1:16]]


def write_octree_file(path, src, cube, fmt, max_node_points, seed, page_min_nodes):
    """Builds the octree of `src`'s points and writes the COPC file; returns (nodes, entries,
    pages)."""
    order, nodes = build_octree(src.ix, src.iy, src.iz, cube, max_node_points, seed)
    t = Clock()
    w = CopcWriter(path, fmt, cube, page_min_nodes, src.wkt)
    comp = lazrs.ParLasZipCompressor(w.f, w.laz_vlr)
    starts, counts = nodes["start"], nodes["count"]
    by_return = np.zeros(15, np.int64)
    first = 0
    records_cpu = 0.0
    while first < starts.size:  # batches of whole nodes, ~BATCH points each
        last = int(np.searchsorted(starts, starts[first] + BATCH, side="right"))
        last = max(last, first + 1)
        s, e = int(starts[first]), int(starts[last - 1] + counts[last - 1])
        c0 = time.process_time()
        rec = src.records(order[s:e], fmt, cube.min[2], cube.max[2])
        records_cpu += time.process_time() - c0
        by_return += by_return_counts(rec["returns"])
        raw = rec.view(np.uint8)
        size = rec.dtype.itemsize
        chunks = [raw[(int(starts[i]) - s) * size:(int(starts[i] + counts[i]) - s) * size]
                  for i in range(first, last)]
        comp.compress_chunks(chunks)
        first = last
    comp.done()
    w.f.seek(w.point_offset)
    table = np.array(lazrs.read_chunk_table(w.f, w.laz_vlr), np.int64).reshape(-1, 2)
    if table.shape[0] != counts.size or not np.array_equal(table[:, 0], counts):
        sys.exit(f"make_copc_bench: {path}: the chunk table does not match the nodes")
    log(f"  records and compression: {t.lap()}, of which records {records_cpu:.1f} s cpu")
    t = Clock()
    keys = np.stack([nodes["level"], nodes["kx"], nodes["ky"], nodes["kz"]], axis=1)
    n_entries, n_pages = w.finish(keys, counts, table[:, 1], [int(v) for v in by_return],
                                  src.gps_range)
    log(f"  hierarchy: {t.lap()}")
    log("  " + level_summary(nodes["level"], counts))
    return counts.size, n_entries, n_pages


def level_summary(levels, counts):
    parts = []
    for d in range(int(levels.max()) + 1):
        sel = levels == d
        if sel.any():
            parts.append(f"{d}:{int(sel.sum())}/{int(counts[sel].sum())}")
    return "levels (nodes/points) " + " ".join(parts)


# ---------------------------------------------------------------------------------------------
# --many-nodes: a deep hierarchy of small nodes from shifted template chunks

LEAF_EDGE = 4000  # the deepest nodes' edge in scaled units (4 m) in tiles larger than 1 km
COLOR_BUCKETS, VARIANTS = 8, 4


def surface_nodes(n_nodes, terrain, scale):
    """Node keys (level, x, y, z) covering the terrain: every column of levels 0..D-1 and the
    first columns of level D in Morton order, enough for n_nodes; z from the height at the
    column's centre; ancestors added. Returns (keys array sorted by level then Morton order,
    D, tile edge in scaled units, zmin in scaled units)."""
    full, depth = 0, 0
    while full + 4**depth < n_nodes:
        full += 4**depth
        depth += 1
    edge = max(LEAF_EDGE << depth, 1 << 20)  # a tile of at least ~1 km holds the relief
    partial = n_nodes - full  # columns of level `depth` (the rest come from level depth - 1)
    cols = []
    for d, count in ((max(depth - 1, 0), 4**max(depth - 1, 0)), (depth, partial)):
        c = np.arange(count, dtype=np.uint64)  # 2D Morton order: even bits x, odd bits y
        cx = np.zeros(count, np.int64)
        cy = np.zeros(count, np.int64)
        for b in range(d):
            cx |= ((c >> np.uint64(2 * b)) & np.uint64(1)).astype(np.int64) << b
            cy |= ((c >> np.uint64(2 * b + 1)) & np.uint64(1)).astype(np.int64) << b
        cols.append((d, cx, cy))
    centres = [((cx + 0.5) * (edge >> d) * scale, (cy + 0.5) * (edge >> d) * scale)
               for d, cx, cy in cols]
    heights = [terrain.height(x, y) for x, y in centres]
    zmin = int(math.floor((min(h.min() for h in heights) - 5.0) / scale))
    keys = set()
    for (d, cx, cy), h in zip(cols, heights):
        kz = ((np.round(h / scale).astype(np.int64) - zmin) // (edge >> d))
        keys.update(zip([d] * cx.size, cx.tolist(), cy.tolist(), kz.tolist()))
    for key in list(keys):
        d, x, y, z = key
        while d > 0:
            d, x, y, z = d - 1, x >> 1, y >> 1, z >> 1
            if (d, x, y, z) in keys:
                break
            keys.add((d, x, y, z))
    k = np.array(sorted(keys), np.int64)
    if k[0].tolist() != [0, 0, 0, 0] or (k[:, 3] >> k[:, 0]).max() > 0:
        sys.exit("make_copc_bench: the terrain does not fit in the root cube")
    m = morton(k[:, 1], k[:, 2], k[:, 3])
    o = np.lexsort((m, k[:, 0]))
    return k[o], depth, edge, zmin


def make_templates(depth, edge, fmt, rng):
    """COLOR_BUCKETS * VARIANTS templates a level: 20 to 50 points at offsets inside
    [1, e - 2] of the node's cube (e its edge in scaled units), z within a slab of at most 20 m."""
    recs = []
    for d in range(depth + 1):
        e = edge >> d
        slab = min(e - 2, 20000)
        for b in range(COLOR_BUCKETS):
            for v in range(VARIANTS):
                c = int(rng.integers(20, 51))
                r = np.zeros(c, record_dtype(fmt))
                r["X"] = rng.integers(1, e - 1, c)
                r["Y"] = rng.integers(1, e - 1, c)
                r["Z"] = rng.integers(0, slab + 1, c)
                r["intensity"] = rng.integers(600, 2000, c)
                r["returns"] = 1 | (1 << 4)
                r["classification"] = 2
                r["point_source_id"] = 1
                r["gps_time"] = GPS_T0 + (len(recs) * 64 + np.arange(c)) / SCAN_RATE
                if fmt == 7:
                    rgb = height_colors(np.full(c, (b + 0.5) / COLOR_BUCKETS))
                    rgb += rng.integers(0, 8 * 256, (c, 3)).astype(np.uint16)
                    r["red"], r["green"], r["blue"] = rgb[:, 0], rgb[:, 1], rgb[:, 2]
                recs.append(r)
    return recs


def compress_separately(chunks, vlr):
    """Compresses each record array as one chunk; returns their bytes."""
    buf = io.BytesIO()
    comp = lazrs.ParLasZipCompressor(buf, vlr)
    comp.compress_chunks([c.view(np.uint8) for c in chunks])
    comp.done()
    buf.seek(0)
    table = lazrs.read_chunk_table(buf, vlr)
    data = buf.getvalue()
    out, at = [], 8
    for count, size in table:
        out.append(np.frombuffer(data[at:at + size], np.uint8))
        at += size
    return out


def node_shifts(keys, edge, zmin, terrain, tmpl_zmax, tmpl_of, scale):
    """The integer shift of each node's template: x, y the cube's corner; z puts the slab near
    the terrain at the node's centre, clamped so that every point stays inside the cube."""
    d = keys[:, 0]
    e = edge >> d
    sx, sy = keys[:, 1] * e, keys[:, 2] * e
    h = terrain.height((sx + e / 2) * scale, (sy + e / 2) * scale)
    bottom = keys[:, 3] * e
    zmaxo = tmpl_zmax[tmpl_of]
    want = np.round(h / scale).astype(np.int64) - zmin - zmaxo // 2
    sz = np.clip(want, bottom + 1, bottom + e - 1 - zmaxo)
    return np.stack([sx, sy, sz], axis=1)


def choose_templates(keys, edge, terrain, scale):
    """Each node's template: by level, the colour bucket of the height at its column's centre,
    and a variant hashed from its key."""
    d = keys[:, 0]
    e = edge >> d
    h = terrain.height((keys[:, 1] * e + e / 2) * scale, (keys[:, 2] * e + e / 2) * scale)
    hn = (h - h.min()) / max(h.max() - h.min(), 1e-9)
    bucket = np.minimum((hn * COLOR_BUCKETS).astype(np.int64), COLOR_BUCKETS - 1)
    variant = hash32(keys[:, 1] * 73856093 ^ keys[:, 2] * 19349663 ^ d, 5) % VARIANTS
    return (d * COLOR_BUCKETS + bucket) * VARIANTS + variant.astype(np.int64)


def root_with_bounds(templates, tmpl_of, shift, edge):
    """The root's records: its template's points and the two points at the file's bounds (the
    tile's corners, z from 0 to the highest point of any node), which fix the header's box."""
    ext = np.array([[int(r[a].max()) for a in "XYZ"] for r in templates])
    top = int(np.max(shift[:, 2] + ext[tmpl_of, 2]))
    root = templates[tmpl_of[0]].copy()
    for a, name in enumerate("XYZ"):
        root[name] += shift[0, a]
    corners = root[:2].copy()
    corners["X"], corners["Y"], corners["Z"] = [0, edge], [0, edge], [0, top]
    return np.concatenate([corners[:1], root, corners[1:]])


def write_shifted_chunks(f, templates, tbytes, tmpl_of, shift):
    """Node i > 0's chunk: template tmpl_of[i]'s bytes with its raw first point's X, Y, Z (the
    chunk's first 12 bytes) moved by shift[i]; batches of nodes gathered at once."""
    tall = np.concatenate(tbytes)
    tsize = np.array([b.size for b in tbytes], np.int64)
    tstart = np.concatenate(([0], np.cumsum(tsize)[:-1]))
    first = np.array([[int(r["X"][0]), int(r["Y"][0]), int(r["Z"][0])] for r in templates])
    for s in range(1, tmpl_of.size, 20000):
        e = min(tmpl_of.size, s + 20000)
        tj = tmpl_of[s:e]
        lens = tsize[tj]
        ends = np.cumsum(lens)
        begins = ends - lens
        buf = tall[np.repeat(tstart[tj] - begins, lens) + np.arange(int(ends[-1]))]
        patch = (first[tj] + shift[s:e]).astype("<i4").view(np.uint8).reshape(-1, 12)
        for b in range(12):
            buf[begins + b] = patch[:, b]
        f.write(buf.tobytes())
    return tsize[tmpl_of]


def write_many_nodes(path, n_nodes, fmt, seed, page_min_nodes):
    rng = np.random.default_rng(seed)
    terrain = Terrain(seed)
    scale = (0.001, 0.001, 0.001)
    t = Clock()
    keys, depth, edge, zmin = surface_nodes(n_nodes, terrain, scale[0])
    templates = make_templates(depth, edge, fmt, rng)
    tmpl_zmax = np.array([int(r["Z"].max()) for r in templates], np.int64)
    tmpl_of = choose_templates(keys, edge, terrain, scale[0])
    shift = node_shifts(keys, edge, zmin, terrain, tmpl_zmax, tmpl_of, scale[0])
    root = root_with_bounds(templates, tmpl_of, shift, edge)
    cube = Cube(scale, (500000.0, 4000000.0, zmin * scale[2]), [0, 0, 0],
                [edge, edge, int(root["Z"][-1])])
    check_node_points(cube, keys, shift, templates, tmpl_of, root)
    log(f"  {keys.shape[0]} nodes, depth {int(keys[:, 0].max())}, "
        f"{len(templates)} templates: {t.lap()}")
    t = Clock()
    w = CopcWriter(path, fmt, cube, page_min_nodes)
    tbytes = compress_separately(templates + [root], w.laz_vlr)
    root_bytes = tbytes.pop()
    w.f.write(bytes(8))  # the offset to the chunk table, written below
    w.f.write(root_bytes.tobytes())
    sizes = write_shifted_chunks(w.f, templates, tbytes, tmpl_of, shift)
    sizes[0] = root_bytes.size
    counts = np.array([r.size for r in templates], np.int64)[tmpl_of]
    counts[0] = root.size
    table_at = w.f.tell()
    lazrs.write_chunk_table(w.f, list(zip(counts.tolist(), sizes.tolist())), w.laz_vlr)
    w.f.seek(w.point_offset)
    w.f.write(struct.pack("<q", table_at))
    log(f"  chunks: {t.lap()}")
    t = Clock()
    used = [templates[i]["gps_time"] for i in np.unique(tmpl_of)]
    gps = [float(min(g.min() for g in used)), float(max(g.max() for g in used))]
    by_return = [int(counts.sum())] + [0] * 14
    n_entries, n_pages = w.finish(keys, counts, sizes, by_return, gps)
    log(f"  hierarchy: {t.lap()}")
    return keys, counts, n_entries, n_pages


def check_node_points(cube, keys, shift, templates, tmpl_of, root):
    """Every point inside its node's box the copclib way (doubles), before anything is written."""
    for t_ in np.unique(tmpl_of):
        sel = np.flatnonzero(tmpl_of == t_)
        sel = sel[sel > 0]
        if sel.size == 0:
            continue
        r = templates[t_]
        for a, name in enumerate("XYZ"):
            coords = shift[sel, a][:, None] + r[name][None, :].astype(np.int64)
            lv = np.repeat(keys[sel, 0], r.size)
            k = np.repeat(keys[sel, a + 1], r.size)
            if not cube.inside(coords.ravel(), a, lv, k).all():
                sys.exit(f"make_copc_bench: template {t_} leaves its node's box on {name}")
    for a, name in enumerate("XYZ"):
        if not cube.inside(root[name].astype(np.int64), a, np.zeros(root.size, np.int64),
                           np.zeros(root.size, np.int64)).all():
            sys.exit(f"make_copc_bench: a root point leaves the root box on {name}")


# ---------------------------------------------------------------------------------------------
# Reading back


def verify(path, n_points):
    """laspy: header count and every point decoded (chunk by chunk), bounds equal to the
    header's; copclib: the hierarchy's counts, ValidateSpatialBounds() for up to 2,000 nodes,
    else 300 random nodes read and checked against their boxes."""
    import copclib
    import laspy

    t = Clock()
    ok = True
    with laspy.open(path) as r:
        h = r.header
        seen, lo, hi = 0, np.full(3, np.inf), np.full(3, -np.inf)
        for pts in r.chunk_iterator(5_000_000):
            seen += len(pts)
            xyz = np.stack([np.asarray(pts.x), np.asarray(pts.y), np.asarray(pts.z)], 1)
            lo, hi = np.minimum(lo, xyz.min(0)), np.maximum(hi, xyz.max(0))
        bounds_ok = np.array_equal(lo, h.mins) and np.array_equal(hi, h.maxs)
        log(f"  laspy: header {h.point_count}, decoded {seen}, bounds "
            f"{'equal the header' if bounds_ok else 'DIFFER from the header'}")
        ok &= h.point_count == n_points == seen and bounds_ok
    reader = copclib.FileReader(path)
    nodes = reader.GetAllNodes()
    total = sum(n.point_count for n in nodes)
    pages = reader.GetPageList()
    log(f"  copclib: {len(nodes)} nodes, {len(pages)} pages, {total} points, "
        f"depth {reader.GetMaxDepth()}")
    ok &= total == n_points
    header = reader.copc_config.las_header
    if len(nodes) <= 2000:
        valid = reader.ValidateSpatialBounds()
        read = sum(len(reader.GetPoints(n)) for n in nodes)
        log(f"  copclib: ValidateSpatialBounds() {valid}, every node read: {read} points")
        ok &= valid and read == n_points
    else:
        rng = np.random.default_rng(0)
        pick = rng.choice(len(nodes), 300, replace=False)
        bad = 0
        for i in pick:
            n = nodes[int(i)]
            pts = reader.GetPoints(n)
            bad += len(pts) != n.point_count or not pts.Within(copclib.Box(n.key, header))
        log(f"  copclib: 300 random nodes read, {bad} wrong (count or box)")
        ok &= bad == 0
    log(f"  verify: {t.lap()}, {'ok' if ok else 'FAILED'}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the COPC file to write")
    ap.add_argument("--points", type=float, default=2e7, help="synthetic points (default 2e7)")
    ap.add_argument("--input", help="a LAS/LAZ file whose points are indexed instead")
    ap.add_argument("--format", type=int, choices=(6, 7), default=7, help="point format")
    ap.add_argument("--max-node-points", type=int, default=50000,
                    help="a node of at most this many points is a leaf (default 50,000)")
    ap.add_argument("--extent", type=float, help="tile edge in metres (default: 20 points/m²)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--many-nodes", type=int, metavar="N",
                    help="a hierarchy of at least N small nodes (20-50 points each)")
    ap.add_argument("--page-min-nodes", type=int, default=0, metavar="K",
                    help="a node of level 4k starts a page when its subtree has more than K "
                    "nodes (default 0: every one; untwine uses 50)")
    ap.add_argument("--verify", action="store_true", help="read the file back (laspy, copclib)")
    a = ap.parse_args()
    if a.many_nodes is not None and a.input:
        sys.exit("make_copc_bench: --many-nodes makes its own points; drop --input")
    if a.max_node_points < 1:
        sys.exit("make_copc_bench: --max-node-points must be at least 1")
    if os.path.dirname(a.out):
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
    t0 = Clock()
    if a.many_nodes is not None:
        if a.many_nodes < 1:
            sys.exit("make_copc_bench: --many-nodes must be at least 1")
        log(f"{a.out}: --many-nodes {a.many_nodes}, format {a.format}")
        keys, counts, n_entries, n_pages = write_many_nodes(a.out, a.many_nodes, a.format, a.seed,
                                                            a.page_min_nodes)
        n_points, n_nodes = int(counts.sum()), keys.shape[0]
        log("  " + level_summary(keys[:, 0], counts))
    else:
        if a.input:
            log(f"{a.out}: points of {a.input}, format {a.format}")
            t = Clock()
            src = FileSource(a.input)
            log(f"  read {src.n} points: {t.lap()}")
        else:
            n = int(a.points)
            if n < 1:
                sys.exit("make_copc_bench: --points must be at least 1")
            extent = a.extent or max(100.0, round(math.sqrt(n / 20.0), -1))
            log(f"{a.out}: {n} synthetic points over {extent:.0f} m, format {a.format}")
            t = Clock()
            ix, iy, iz, cls = generate(n, extent, a.seed, 0.001)
            src = SyntheticSource(ix, iy, iz, cls, 0.001, (500000.0, 4000000.0, 0.0))
            log(f"  generate: {t.lap()}")
        imin = [int(c.min()) for c in (src.ix, src.iy, src.iz)]
        imax = [int(c.max()) for c in (src.ix, src.iy, src.iz)]
        cube = Cube(src.scale, src.offset, imin, imax)
        n_nodes, n_entries, n_pages = write_octree_file(a.out, src, cube, a.format,
                                                        a.max_node_points, a.seed,
                                                        a.page_min_nodes)
        n_points = src.n
    el, cpu = time.time() - t0.wall, time.process_time() - t0.cpu
    size = os.path.getsize(a.out)
    log(f"  {n_points} points, {n_nodes} nodes, {n_entries} hierarchy entries in {n_pages} "
        f"pages, {size / 1e6:.1f} MB ({size / n_points:.1f} B/point): {el:.1f} s "
        f"({cpu:.1f} s cpu), {n_points / el / 1e6:.2f} M points/s")
    if a.verify and not verify(a.out, n_points):
        sys.exit(1)


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # the output's folder or file cannot be made or written
        sys.exit(f"make_copc_bench: {e.filename or ''}: {e.strerror or e}")
