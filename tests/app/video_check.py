#!/usr/bin/env python3
"""Checks `pointraster --headless --video` on the real program with ffprobe and ffmpeg (FFmpeg's
own tools, not the libraries the program links):
  - an MP4 of a scene: H.264, yuv420p, the size asked for, the frame rate, the frame count
    (ffprobe -count_frames decodes every frame) and the duration;
  - an odd size: the MP4 drawn at the even size below, and the program says so;
  - PNG frames into a folder: one file a frame, numbered from 0, the odd size kept, the camera
    moving (the first and last frames differ);
  - the MP4's first and last frames, decoded by ffmpeg, against the PNG frames of the same path
    and size: the same picture through H.264 (small mean difference, the same color balance: a
    swapped red and blue would show);
  - a streamed survey (COPC): each frame drawn once its view converged;
  - Ctrl-C (SIGINT) while rendering: exit 130, one line, no output and no partial file left;
  - a target whose folder does not exist, and one that is a folder: exit 1, nothing left.

usage: video_check.py --pointraster BIN --copc FILE --workdir DIR
Exits 1 if any check fails; prints one line per check and 'N passed, N failed'.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

from check_log import check, summary

SCENE = ["--scene", "terrain", "--points", "2e5", "--mode", "cpu"]
PATH = "-200,150,-640,10,-14;0,120,-500,0,-20;200,150,-640,-10,-14"


def run(binary, args, timeout=300):
    r = subprocess.run([binary] + args, capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def probe(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                        "-show_entries",
                        "stream=codec_name,width,height,pix_fmt,r_frame_rate,nb_read_frames"
                        ":format=duration", "-of", "json", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    j = json.loads(r.stdout)
    s = j["streams"][0]
    s["duration"] = float(j["format"]["duration"])
    return s


def decode(path, w, h, select=None):
    """Frames of `path` (a video, or one PNG) as uint8 arrays of h x w x 3, by ffmpeg."""
    args = ["ffmpeg", "-v", "error", "-i", path]
    if select is not None:
        args += ["-vf", f"select=eq(n\\,{select})", "-frames:v", "1"]
    args += ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    r = subprocess.run(args, capture_output=True)
    data = np.frombuffer(r.stdout, dtype=np.uint8)
    return data.reshape(-1, h, w, 3)


def no_leftovers(folder):
    """Names in `folder` that a run may have left (hidden partial files or folders)."""
    return [n for n in os.listdir(folder) if ".partial" in n]


def check_mp4(a, work):
    out = os.path.join(work, "path.mp4")
    rc, so, se = run(a.pointraster, ["--headless"] + SCENE + [
        "--width", "160", "--height", "90", "--fps", "24", "--duration", "2",
        "--camera-path", PATH, "--video", out])
    check("mp4: exit 0", rc == 0, se.strip())
    check("mp4: summary line", "summary mode=cpu video=" in so and "frames=48" in so, so)
    s = probe(out) if rc == 0 else None
    check("mp4: ffprobe reads it", s is not None)
    if not s:
        return
    check("mp4: H.264 yuv420p", s["codec_name"] == "h264" and s["pix_fmt"] == "yuv420p", str(s))
    check("mp4: 160x90", (s["width"], s["height"]) == (160, 90), str(s))
    check("mp4: 24 fps", s["r_frame_rate"] == "24/1", str(s))
    check("mp4: 48 frames", int(s["nb_read_frames"]) == 48, str(s))
    check("mp4: 2 s", abs(s["duration"] - 2.0) < 1.0 / 24 + 1e-6, str(s))
    check("mp4: no partial file", not no_leftovers(work), str(no_leftovers(work)))


def check_odd_and_png(a, work):
    odd = os.path.join(work, "odd.mp4")
    rc, so, se = run(a.pointraster, ["--headless"] + SCENE + [
        "--width", "161", "--height", "91", "--fps", "24", "--duration", "2",
        "--camera-path", PATH, "--video", odd])
    s = probe(odd) if rc == 0 else None
    check("odd size: exit 0", rc == 0, se.strip())
    check("odd size: drawn at 160x90", s is not None and (s["width"], s["height"]) == (160, 90),
          str(s))
    check("odd size: said so", "161x91 has an odd side" in so and "160x90" in so, so)
    frames = os.path.join(work, "frames") + "/"
    rc, so, se = run(a.pointraster, ["--headless"] + SCENE + [
        "--width", "161", "--height", "91", "--fps", "24", "--duration", "2",
        "--camera-path", PATH, "--video", frames])
    check("png: exit 0", rc == 0, se.strip())
    names = sorted(os.listdir(frames)) if os.path.isdir(frames) else []
    want = [f"frame_{k:05d}.png" for k in range(48)]
    check("png: frame_00000.png to frame_00047.png", names == want, str(names[:3] + names[-2:]))
    if names != want:
        return
    with open(os.path.join(frames, want[0]), "rb") as f:
        head = f.read(24)
    size = (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big"))
    check("png: 161x91 (the odd size kept)", head[:8] == b"\x89PNG\r\n\x1a\n" and size == (161, 91),
          str(size))
    first = decode(os.path.join(frames, want[0]), 161, 91)[0]
    last = decode(os.path.join(frames, want[-1]), 161, 91)[0]
    check("png: the camera moves (first and last frames differ)",
          np.mean(first != last) > 0.2, f"{np.mean(first != last):.3f}")


def check_same_picture(a, work):
    """The MP4's frames against PNG frames of the same path at the same (even) size."""
    out = os.path.join(work, "same.mp4")
    frames = os.path.join(work, "same_%05d.png")
    common = ["--headless"] + SCENE + ["--width", "160", "--height", "90", "--fps", "12",
                                       "--duration", "2", "--camera-path", PATH]
    rc1, _, se1 = run(a.pointraster, common + ["--video", out])
    rc2, _, se2 = run(a.pointraster, common + ["--video", frames])
    check("same picture: both written", rc1 == 0 and rc2 == 0, se1 + se2)
    if rc1 or rc2:
        return
    video = decode(out, 160, 90)
    check("same picture: 24 frames decoded", video.shape[0] == 24, str(video.shape))
    for k in (0, 23):
        png = decode(frames % k, 160, 90)[0].astype(float)
        got = video[k].astype(float)
        diff = np.abs(got - png).mean()
        # The color balance: each channel's mean, which a swapped red and blue would change.
        means = np.abs(got.mean(axis=(0, 1)) - png.mean(axis=(0, 1))).max()
        check(f"same picture: frame {k} (mean difference {diff:.2f}, channel means {means:.2f})",
              diff < 8.0 and means < 3.0)


def check_stream(a, work):
    out = os.path.join(work, "survey.mp4")
    rc, so, se = run(a.pointraster, ["--headless", "--mode", "cpu", a.copc, "--width", "96",
                                     "--height", "64", "--fps", "10", "--duration", "1",
                                     "--camera-path", a.copc_path, "--video", out])
    s = probe(out) if rc == 0 else None
    check("survey: exit 0", rc == 0, se.strip())
    check("survey: 10 frames of 96x64", s is not None and int(s["nb_read_frames"]) == 10 and
          (s["width"], s["height"]) == (96, 64), str(s))


def check_cancel(a, work):
    folder = os.path.join(work, "cancel")
    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, "long.mp4")
    p = subprocess.Popen([a.pointraster, "--headless"] + SCENE + [
        "--width", "320", "--height", "180", "--fps", "120", "--duration", "600",
        "--camera-path", PATH, "--video", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    started = False
    for _ in range(600):  # the hidden partial file appears once the encoder has opened
        if no_leftovers(folder):
            started = True
            break
        time.sleep(0.05)
    time.sleep(0.5)  # some frames into it
    p.send_signal(signal.SIGINT)
    so, se = p.communicate(timeout=120)
    check("cancel: the video had started", started)
    check("cancel: exit 130", p.returncode == 130, f"{p.returncode}: {se.strip()}")
    lines = [ln for ln in se.splitlines() if ln.strip()]
    check("cancel: one line says so", len(lines) == 1 and "cancelled (interrupted)" in lines[0]
          and "not written" in lines[0], se)
    check("cancel: nothing left", os.listdir(folder) == [], str(os.listdir(folder)))


def check_bad_targets(a, work):
    args = ["--headless"] + SCENE + ["--width", "32", "--height", "18", "--fps", "5",
                                     "--duration", "1", "--camera-path", PATH, "--video"]
    rc, so, se = run(a.pointraster, args + [os.path.join(work, "nowhere", "a.mp4")])
    check("missing folder: exit 1, one line", rc == 1 and len(se.strip().splitlines()) == 1, se)
    check("missing folder: named", "does not exist" in se, se)
    folder = os.path.join(work, "target")
    os.makedirs(os.path.join(folder, "taken.mp4"), exist_ok=True)
    rc, so, se = run(a.pointraster, args + [os.path.join(folder, "taken.mp4")])
    check("a folder in the way: exit 1, one line",
          rc == 1 and len(se.strip().splitlines()) == 1 and "not written" in se, se)
    check("a folder in the way: nothing left", os.listdir(folder) == ["taken.mp4"] and
          os.listdir(os.path.join(folder, "taken.mp4")) == [], str(os.listdir(folder)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pointraster", required=True)
    ap.add_argument("--copc", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    if not shutil.which("ffprobe") or not shutil.which("ffmpeg"):
        print("FAIL ffprobe and ffmpeg are needed (apt-get install ffmpeg)")
        return 1
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    # A path over the COPC file: from its bounds (--info --json), along its x at 30 degrees down.
    info = json.loads(run(a.pointraster, ["--info", "--json", a.copc])[1].splitlines()[0])
    lo, hi = info["bounds_min"], info["bounds_max"]
    cy = (lo[1] + hi[1]) / 2
    span = max(hi[0] - lo[0], hi[1] - lo[1])
    z = hi[2] + 0.6 * span
    a.copc_path = f"{lo[0]},{cy - span},{z},0,-30;{hi[0]},{cy - span},{z},0,-30"
    check_mp4(a, a.workdir)
    check_odd_and_png(a, a.workdir)
    check_same_picture(a, a.workdir)
    check_stream(a, a.workdir)
    check_cancel(a, a.workdir)
    check_bad_targets(a, a.workdir)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
