#!/usr/bin/env python3
"""pointraster.Renderer.render() from Python against the seed's projection alone, in one process.

For each point count: the seed's function (bench/peers/seed_cupy.py's render_all_verts_cupy on
CuPy arrays, or seed_numpy.py's on NumPy arrays in CPU mode) projecting the peers' cube (uniform
points in a cube of half-size 50, camera at (0, 0, 10), identity rotation, focus 5), and a
Renderer on the same points (read where they lie: CuPy or PyTorch device arrays for the GPU, NumPy
for the CPU) drawing the same view (up y, camera (0, 0, 10, 0, 0), focus 5) with its depth test and
image: render() reads it back to a NumPy array, render_on_device() (GPU) leaves it on the GPU
(the renderer's frame buffer as a device array). Times are medians of --frames calls, each synchronized (the
seed's: the GPU waited for after each call). The Python call's own cost is the wall time of
render() less the C++ render() call it makes (Renderer.frame_ms, read-back included); render_ms
is the renderer's own frame (the device frame by CUDA events on the GPU).

  PYTHONPATH=build/python python3 bench/python/render_bench.py                  # GPU, 1e7 and 1e8
  PYTHONPATH=build/python python3 bench/python/render_bench.py --mode cpu --points 1e5
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import pointraster

PEERS = Path(__file__).resolve().parents[1] / "peers"


def seed_function(script):
    """The seed's function from its script, run at its smallest (N=8, LOOPS=1)."""
    old = {k: os.environ.get(k) for k in ("N", "LOOPS")}
    os.environ.update(N="8", LOOPS="1")
    try:
        spec = importlib.util.spec_from_file_location(script.stem, script)
        module = importlib.util.module_from_spec(spec)
        stdout, sys.stdout = sys.stdout, open(os.devnull, "w")  # its own timing lines
        try:
            spec.loader.exec_module(module)
        finally:
            sys.stdout.close()
            sys.stdout = stdout
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return module.render_all_verts_cupy


def median_ms(fn, frames, sync=lambda: None):
    fn()
    sync()  # warm-up: first calls compile kernels, allocate
    times = []
    for _ in range(frames):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def cube(n, seed=1):
    rng = np.random.default_rng(seed)
    return ((rng.random((n, 3), dtype=np.float32) - 0.5) * 2 * 50).astype(np.float32)


def run(n, args):
    host = cube(n)
    eye = np.eye(3, dtype=np.float32)
    shift = np.array([0, 0, 10], np.float32)
    focus = np.single(5)
    if args.mode == "gpu":
        import cupy as cp

        seed = seed_function(PEERS / "seed_cupy.py")
        pts_cp = cp.asarray(host)
        peer = lambda: seed(pts_cp, cp.asarray(eye), cp.asarray(shift), cp.asarray(focus))
        sync = cp.cuda.Stream.null.synchronize
        if args.lib == "torch":
            import torch

            points = torch.from_numpy(host).cuda()
        else:
            points = pts_cp
    else:
        seed = seed_function(PEERS / "seed_numpy.py")
        peer = lambda: seed(host, eye, shift, focus)
        sync = lambda: None
        points = host
    peer_ms = median_ms(peer, args.frames, sync)
    r = pointraster.Renderer(points, width=args.width, height=args.height, mode=args.mode,
                             up="y", camera=(0, 0, 10, 0, 0), focus=5)
    host = frames_of(r.render, r, args.frames)
    if args.mode == "gpu":
        dev = frames_of(r.render_on_device, r, args.frames)
    else:
        dev = (float("nan"),) * 4
    return (n, peer_ms) + host + dev


def frames_of(call, r, frames):
    """Medians of (wall ms of the Python call, its C++ frame ms, the renderer's own ms, the Python
    call's own us) over `frames` calls of `call`."""
    walls, cpp, renders, over = [], [], [], []
    call()
    for _ in range(frames):
        t0 = time.perf_counter()
        call()
        wall = (time.perf_counter() - t0) * 1e3
        walls.append(wall)
        cpp.append(r.frame_ms)
        renders.append(r.render_ms)
        over.append((wall - r.frame_ms) * 1e3)
    return tuple(statistics.median(v) for v in (walls, cpp, renders, over))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["gpu", "cpu"], default="gpu")
    ap.add_argument("--points", default="1e7,1e8", help="comma-separated counts (1e7, 100000)")
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--lib", choices=["cupy", "torch"], default="cupy",
                    help="the device arrays the Renderer reads (GPU mode)")
    args = ap.parse_args()
    if args.mode == "gpu" and not pointraster.gpu_available():
        sys.exit("render_bench: mode gpu: " + pointraster.gpu_status())
    peer = "seed CuPy projection" if args.mode == "gpu" else "seed NumPy projection"
    src = f"{args.lib} arrays" if args.mode == "gpu" else "NumPy arrays"
    print(f"mode {args.mode}, {args.width}x{args.height}, {args.frames} frames, points from "
          f"{src}; medians")
    print("render(): the image read back to NumPy; on device: render_on_device(), the frame left "
          "on the GPU;\nC++: the render() call the Python call makes; own: the renderer's frame "
          "(GPU: by CUDA events);\nPython us: the Python call less its C++ call; x: the seed's "
          "time over the Python call's")
    head = (f"{'points':>12} | {peer + ' ms':>26} | {'render() ms':>11} | {'C++ ms':>8} |"
            f" {'own ms':>8} | {'Python us':>9} | {'x':>6} | {'on device ms':>12} | {'C++ ms':>8} |"
            f" {'Python us':>9} | {'x':>6}")
    print(head)
    print("-" * len(head))
    for n in (int(float(p)) for p in args.points.split(",")):
        n, peer_ms, wall, cpp, own, over, dwall, dcpp, _, dover = run(n, args)
        print(f"{n:>12,} | {peer_ms:>26.3f} | {wall:>11.3f} | {cpp:>8.3f} | {own:>8.3f} |"
              f" {over:>9.1f} | {peer_ms / wall:>5.1f}x | {dwall:>12.3f} | {dcpp:>8.3f} |"
              f" {dover:>9.1f} | {peer_ms / dwall:>5.1f}x")


if __name__ == "__main__":
    main()
