"""What the comparisons against independent readers (compare_readers.py, compare_e57.py,
compare_laz.py) share: running the project's helpers for their JSON, the test data's
presence, a sample of our points against a reference's, and running the checks with one line
each and a summary."""
import json
import os
import subprocess
import sys

import numpy as np

# A check's answer that starts with this is reported as skipped, not failed.
SKIP = "skip: "


def unskipped(why):
    """A part of a larger check: skipped is as good as passed (the standalone checks report it)."""
    return None if why is not None and why.startswith(SKIP) else why


def run_json(cmd):
    """The JSON object on the last line that `cmd` prints."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    line = out.stdout.strip().splitlines()
    if not line:
        raise RuntimeError(f"{cmd}: no output, stderr: {out.stderr.strip()}")
    return json.loads(line[-1])


def require_testdata(path):
    """Exits with status 1 and a line naming `path` when the test data's folder `path` is absent:
    tests/data belongs to the checkout, so its absence is a broken checkout, not a reason to skip."""
    if not os.path.isdir(path):
        print(f"FAIL  test data {path} is absent: tests/data belongs to the checkout")
        sys.exit(1)


def compare_sample(sample, xyz, rgb, intensity, tol):
    """io_sample's rows [index, x, y, z, r, g, b, intensity, ...] against the reference's
    positions (within `tol`), 8-bit colors and intensities (None where it has none)."""
    for s in sample:
        i = s[0]
        if not np.allclose(s[1:4], xyz[i], rtol=0, atol=tol):
            return f"point {i}: ours {s[1:4]}, reference {xyz[i].tolist()}"
        if rgb is not None and list(s[4:7]) != rgb[i].tolist():
            return f"color {i}: ours {s[4:7]}, reference {rgb[i].tolist()}"
        if intensity is not None and abs(s[7] - intensity[i]) > 1e-3 * max(1, abs(s[7])):
            return f"intensity {i}: ours {s[7]}, reference {intensity[i]}"
    return None


def run_checks(checks):
    """Runs (label, function) checks, a function answering None (passed), a reason (failed) or
    SKIP + a reason; an exception fails its check. Prints a line a check and the counts; returns
    the exit status (1 when any failed)."""
    passed = failed = skipped = 0
    for label, fn in checks:
        try:
            why = fn()
        except Exception as e:  # a reference reader that cannot read a file is a failure too
            why = f"exception: {type(e).__name__}: {e}"
        if why is None:
            passed += 1
            print(f"ok    {label}", flush=True)
        elif why.startswith(SKIP):
            skipped += 1
            print(f"skip  {label}: {why[len(SKIP):]}", flush=True)
        else:
            failed += 1
            print(f"FAIL  {label}: {why}", flush=True)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0
