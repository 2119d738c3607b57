#!/usr/bin/env python3
"""The test suite's last line, from the JUnit files of its ctest runs (ctest --output-junit):

    N passed, M skipped: no GPU

A ctest entry that runs one gtest counts once; an entry that runs many (the window tests, one
ctest entry under one Xvfb) counts each of its gtests, from their [ OK ] and [ SKIPPED ] lines.
A skip whose reason names the missing GPU (no CUDA device, no GPU mode, a build without CUDA) is
expected on a machine without one; any other skip is named after the counts, and under CI
(CI=true) fails the run (exit 1), since everything else a test needs is installed by run_all.sh.

  ctest_summary.py JUNIT.xml [JUNIT.xml ...]
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

GPU_REASON = re.compile(
    r"no CUDA device|no usable CUDA device|no GPU|without CUDA|a GPU is available", re.I)
RUN = re.compile(r"^\[ RUN      \] (\S+)", re.M)
OK = re.compile(r"^\[       OK \] (\S+) \(", re.M)
SKIPPED = re.compile(r"^\[  SKIPPED \] (\S+) \(", re.M)


def skip_reason(output, name):
    """The message gtest printed for the skipped test `name` (the lines after its "Skipped"), or
    the whole output's last line for a test that is not a gtest."""
    block = output
    start = output.find(f"[ RUN      ] {name}")
    if start >= 0:
        end = output.find(f"[  SKIPPED ] {name}", start)
        block = output[start:end if end >= 0 else None]
    lines = [l.strip() for l in block.splitlines() if l.strip()]
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") and i + 1 < len(lines):
            return lines[i + 1]
    return lines[-1] if lines else "no reason given"


def results(path):
    """(name, "passed" | "skipped" | "failed", reason) for every test of one JUnit file."""
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name")
        out_node = case.find("system-out")
        output = out_node.text or "" if out_node is not None else ""
        status = case.get("status")
        inner = RUN.findall(output)
        if status == "run" and len(inner) > 1:
            # Many gtests in one entry that passed: each counts, skipped ones with their reason.
            for t in OK.findall(output):
                yield t, "passed", ""
            for t in SKIPPED.findall(output):
                yield t, "skipped", skip_reason(output, t)
        elif status == "run":
            yield name, "passed", ""
        elif status == "notrun" and case.find("skipped") is not None:
            yield name, "skipped", skip_reason(output, inner[0] if inner else name)
        else:
            yield name, "failed", ""


def main(paths):
    passed, gpu, other, failed = 0, 0, [], 0
    for path in paths:
        if not os.path.exists(path):
            print(f"ctest_summary.py: {path} is missing", file=sys.stderr)
            return 1
        for name, status, reason in results(path):
            if status == "passed":
                passed += 1
            elif status == "failed":
                failed += 1
            elif GPU_REASON.search(reason):
                gpu += 1
            else:
                other.append(f"{name} ({reason})")
    line = f"{passed} passed, {gpu} skipped: no GPU"
    if other:
        line += f"; {len(other)} skipped for other reasons: " + "; ".join(other)
    if failed:
        line += f"; {failed} failed"
    print(line)
    return 1 if failed or (other and os.environ.get("CI") == "true") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
