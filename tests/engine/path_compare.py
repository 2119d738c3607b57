#!/usr/bin/env python3
"""Checks camera paths (engine/camera_path.h, through tests/engine/path_sample) against an
independent computation here:
  - positions: the centripetal Catmull-Rom segment in its cubic Hermite form, with the tangents of
    Yuksel, Schaefer and Keyser ("Parameterization and applications of Catmull-Rom curves", 2011)
    m1 = (t2 - t1) ((P1 - P0)/(t1 - t0) - (P2 - P0)/(t2 - t0) + (P2 - P1)/(t2 - t1)) and its mirror
    m2, where the program evaluates the Barry-Goldman pyramid; open ends reflected, loops closed;
  - orientations: pyquaternion's slerp (the shorter arc) of R_y(yaw) R_x(-pitch), the forward and
    up axes read from its rotation matrix;
  - constant speed: the spline sampled densely here (20000 points a segment) and its cumulative
    arc length inverted with np.interp, against the program's 1024-step table.
Paths: random ones (uneven spacing, open and looped, yaw across +-180), one through straight down.

usage: path_compare.py --sampler BIN
Exits 1 if any check fails; prints one line per check and 'N passed, N failed'.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
from pyquaternion import Quaternion

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
from check_log import check, summary  # noqa: E402


def hermite_segment(p0, p1, p2, p3, u):
    """Centripetal (alpha 0.5) Catmull-Rom between p1 and p2 at u in [0, 1] (array of u)."""
    t0 = 0.0
    t1 = t0 + np.linalg.norm(p1 - p0) ** 0.5
    t2 = t1 + np.linalg.norm(p2 - p1) ** 0.5
    t3 = t2 + np.linalg.norm(p3 - p2) ** 0.5
    m1 = (t2 - t1) * ((p1 - p0) / (t1 - t0) - (p2 - p0) / (t2 - t0) + (p2 - p1) / (t2 - t1))
    m2 = (t2 - t1) * ((p2 - p1) / (t2 - t1) - (p3 - p1) / (t3 - t1) + (p3 - p2) / (t3 - t2))
    u = np.asarray(u, dtype=float)[..., None]
    h00 = 2 * u**3 - 3 * u**2 + 1
    h10 = u**3 - 2 * u**2 + u
    h01 = -2 * u**3 + 3 * u**2
    h11 = u**3 - u**2
    return h00 * p1 + h10 * m1 + h01 * p2 + h11 * m2


def segment_points(keys, loop, i):
    """The four control points of segment i: neighbours around a loop, else reflected ends."""
    pos = [np.array(k[1:4], dtype=float) for k in keys]
    n = len(pos)
    p1, p2 = pos[i], pos[(i + 1) % n]
    p0 = pos[(i - 1) % n] if (i > 0 or loop) else 2 * p1 - p2
    p3 = pos[(i + 2) % n] if (i + 2 < n or loop) else 2 * p2 - p1
    return p0, p1, p2, p3


def rotation(yaw_deg, pitch_deg):
    return Quaternion(axis=[0, 1, 0], angle=math.radians(yaw_deg)) * Quaternion(
        axis=[1, 0, 0], angle=-math.radians(pitch_deg))


def angles(q):
    """Yaw and pitch in degrees: pitch from the forward axis f, yaw from f cos p - up sin p."""
    m = q.rotation_matrix
    f, up = m[:, 2], m[:, 1]
    pitch = math.asin(max(-1.0, min(1.0, f[1])))
    d = f * math.cos(pitch) - up * math.sin(pitch)
    return math.degrees(math.atan2(d[0], d[2])), math.degrees(pitch)


class Path:
    def __init__(self, keys, loop, constant):
        self.keys, self.loop, self.constant = keys, loop, constant
        n = len(keys)
        self.start = keys[0][0]
        span = keys[-1][0] - keys[0][0]
        self.duration = span * n / (n - 1) if loop else span
        self.segments = n if loop else n - 1
        if constant:
            u = np.linspace(0.0, 1.0, 20001)
            parts, offset = [], 0.0
            for i in range(self.segments):
                pts = hermite_segment(*segment_points(keys, loop, i), u)
                steps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
                cum = offset + np.concatenate([[0.0], np.cumsum(steps)])
                parts.append((cum, i + u))
                offset = cum[-1]
            self.arc = np.concatenate([c for c, _ in parts])
            self.param = np.concatenate([g for _, g in parts])
            self.length = offset

    def locate(self, t):
        """Segment and local parameter at time t."""
        keys, n = self.keys, len(self.keys)
        tt = t - self.start
        tt = tt % self.duration if self.loop else min(max(tt, 0.0), self.duration)
        if self.constant:
            g = float(np.interp(tt / self.duration * self.length, self.arc, self.param))
            i = min(int(math.floor(g)), self.segments - 1)
            return i, g - i
        at = self.start + tt
        i = max(j for j in range(n) if keys[j][0] <= at) if at >= keys[0][0] else 0
        if i == n - 1 and not self.loop:
            return n - 2, 1.0
        span = (self.duration - (keys[-1][0] - self.start)) if i == n - 1 else (
            keys[i + 1][0] - keys[i][0])
        return i, (at - keys[i][0]) / span

    def pose(self, t):
        i, u = self.locate(t)
        p = hermite_segment(*segment_points(self.keys, self.loop, i), [u])[0]
        a, b = self.keys[i], self.keys[(i + 1) % len(self.keys)]
        yaw, pitch = angles(Quaternion.slerp(rotation(a[4], a[5]), rotation(b[4], b[5]), u))
        return p, yaw, pitch


def random_keys(rng, n, straight_down=False):
    keys, t, p = [], 0.0, np.zeros(3)
    for i in range(n):
        p = p + rng.uniform(-1, 1, 3) * rng.choice([1.0, 10.0, 100.0])
        yaw = rng.uniform(-200, 200)
        pitch = -90.0 if straight_down and i % 2 == 0 else rng.uniform(-80, 80)
        keys.append([t] + list(p) + [yaw, pitch])
        t += rng.uniform(0.5, 3.0)
    return keys


def angle_diff(a, b):
    return (a - b + 180.0) % 360.0 - 180.0


def compare(sampler, name, keys, loop, constant, samples=400):
    args = [sampler, str(int(loop)), str(int(constant)), str(samples)]
    args += [",".join(repr(float(v)) for v in k) for k in keys]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        check(f"{name}: path_sample runs", False, r.stderr.strip())
        return
    got = json.loads(r.stdout)
    ref = Path(keys, loop, constant)
    check(f"{name}: duration", abs(got["duration"] - ref.duration) < 1e-9 * ref.duration,
          f"{got['duration']} vs {ref.duration}")
    scale = max(np.ptp(np.array([k[1:4] for k in keys]), axis=0).max(), 1.0)
    if constant:
        check(f"{name}: length", abs(got["length"] - ref.length) < 1e-5 * ref.length,
              f"{got['length']} vs {ref.length}")
    dp = da = 0.0
    for t, x, y, z, yaw, pitch in got["poses"]:
        p, ryaw, rpitch = ref.pose(t)
        dp = max(dp, float(np.linalg.norm(np.array([x, y, z]) - p)))
        da = max(da, abs(angle_diff(yaw, ryaw)), abs(pitch - rpitch))
    # The constant-speed table's chords and linear steps against the dense sampling here.
    pos_tol, ang_tol = (2e-6 * scale, 1e-3) if constant else (1e-9 * scale, 1e-7)
    check(f"{name}: positions (largest difference {dp:.3g}, scale {scale:.3g})", dp <= pos_tol)
    check(f"{name}: angles (largest difference {da:.3g} degrees)", da <= ang_tol)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sampler", required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(20240611)
    for trial in range(6):
        n = int(rng.integers(2, 7))
        keys = random_keys(rng, n)
        for loop in (False, True):
            for constant in (False, True):
                name = f"random {trial} ({n} keys{', loop' if loop else ''}" \
                       f"{', constant speed' if constant else ''})"
                compare(a.sampler, name, keys, loop, constant)
    compare(a.sampler, "through straight down", random_keys(rng, 5, True), False, False)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
