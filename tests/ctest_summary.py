#!/usr/bin/env python3
"""What the ctest runs of tests/run_all.sh did, from their JUnit files (ctest --output-junit),
and why each skipped test skipped.

  ctest_summary.py JUNIT_XML...

A test may skip only where it needs a GPU and there is none: the CUDA tests ("no CUDA device"),
the window tests of the GPU mode ("no GPU mode here"), the GPU benchmarks' smoke tests (exit 77,
"no CUDA device"); and the one window test of the fallback to the CPU skips where a GPU is there.
Every other skip is printed with its test and its reason: the test data is part of the checkout
and run_all.sh installs every tool the tests use, so such a skip means something is missing.

Skips are read from the tests' output: GoogleTest's "[  SKIPPED ]" blocks (also inside a ctest
test that runs a whole binary, like viewer_window) and the "skip  LABEL: REASON" lines of the
Python comparisons (tests/io/checks.py). The last line printed is

  N passed, M skipped: no GPU[, K skipped: REASON ...][, F failed]

counting ctest tests (a test skipped inside a passing ctest test is counted on the line before).
Exits 1 when a test failed, and under CI (CI=true) also when one skipped for another reason.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

NO_GPU = re.compile(r"no CUDA device|no GPU mode here")
# Window.GpuModeFallsBackToCpuWithAReasonWhenUnavailable: the fallback exists only without a GPU.
GPU_THERE = re.compile(r"^a GPU is available")

GTEST_BLOCK = re.compile(r"^\[ RUN      \] (\S+)\n(.*?)^\[  SKIPPED \] \1 \(", re.M | re.S)
CHECK_SKIP = re.compile(r"^skip  (.+?): (.+)$", re.M)


def gtest_skips(out):
    """(test, reason) for each GoogleTest test that skipped in `out`: the message under the
    "file:line: Skipped" line."""
    skips = []
    for m in GTEST_BLOCK.finditer(out):
        lines = m.group(2).splitlines()
        at = max((i for i, l in enumerate(lines) if l.endswith(": Skipped")), default=-1)
        message = [l.strip() for l in lines[at + 1:] if l.strip()]
        skips.append((m.group(1), message[0] if message else "no reason given"))
    return skips


def skip_reason(case, out):
    """The reason a ctest test skipped: GoogleTest's message, else the last line it printed
    (a SKIP_RETURN_CODE test), else ctest's own message."""
    inner = gtest_skips(out)
    if inner:
        return inner[0][1]
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    if lines:
        return lines[-1]
    return case.find("skipped").get("message") or "no reason given"


def kind(reason):
    if NO_GPU.search(reason):
        return "no GPU"
    if GPU_THERE.search(reason):
        return "a GPU is here"
    return None


def main(paths):
    passed, failed = 0, []
    gpu_skips = 0
    inner = {"no GPU": 0, "a GPU is here": 0}
    others = []  # (test, reason)
    for path in paths:
        for case in ET.parse(path).getroot().iter("testcase"):
            name = case.get("name")
            out = case.findtext("system-out") or ""
            if case.find("failure") is not None or case.get("status") not in ("run", "notrun"):
                failed.append(name)
            elif case.find("skipped") is not None:
                reason = skip_reason(case, out)
                if kind(reason) is not None:
                    gpu_skips += 1
                else:
                    others.append((name, reason))
            elif case.get("status") == "notrun":
                failed.append(name)
            else:
                passed += 1
                for test, reason in gtest_skips(out) + CHECK_SKIP.findall(out):
                    k = kind(reason)
                    if k is not None:
                        inner[k] += 1
                    else:
                        others.append((f"{name}: {test}", reason))
    for test, reason in others:
        print(f"skipped: {test}: {reason}")
    if others and os.environ.get("CI") == "true":
        print("under CI (CI=true) only the tests that need a GPU may skip: the run fails")
    if inner["no GPU"] or inner["a GPU is here"]:
        parts = [f"{n} skipped: {k}" for k, n in inner.items() if n]
        print("inside passing ctest tests (the window tests run as one): " + ", ".join(parts))
    by_reason = {}
    for _, reason in others:
        by_reason[reason] = by_reason.get(reason, 0) + 1
    line = f"{passed} passed, {gpu_skips} skipped: no GPU"
    for reason, n in by_reason.items():
        line += f", {n} skipped: {reason[:160]}"
    if failed:
        line += f", {len(failed)} failed ({', '.join(failed[:5])}{', ...' if len(failed) > 5 else ''})"
    print(line)
    if failed:
        return 1
    if others and os.environ.get("CI") == "true":
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
