"""What the tests of the Python module share: the module, the command line's binary, a PNG reader,
and the skip lines tests/ctest_summary.py reads ("skip  TEST: REASON"; a GPU test's reason says
"no CUDA device"); the test data folder; a local nginx."""
import os
import shutil
import socket
import subprocess
import time
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import pointraster

ROOT = Path(__file__).resolve().parents[2]


def pytest_terminal_summary(terminalreporter):
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        terminalreporter.write_line(f"skip  {report.nodeid}: {reason}")


def no_gpu_reason():
    """None where mode='gpu' draws, else the skip reason of a GPU test."""
    if pointraster.gpu_available():
        return None
    return "no CUDA device: " + pointraster.gpu_status()


needs_gpu = pytest.mark.skipif(no_gpu_reason() is not None, reason=str(no_gpu_reason()))


@pytest.fixture(scope="session")
def cli():
    """The command line's binary: PR_POINTRASTER (ctest sets it), else the build tree's."""
    path = Path(os.environ.get("PR_POINTRASTER", ROOT / "build" / "bin" / "pointraster"))
    assert path.is_file(), f"{path}: the pointraster binary is not built"
    return str(path)


def read_png(path):
    """An 8-bit RGB or RGBA PNG without interlacing (what the project and the viewer write) as an
    (H, W, 3 or 4) uint8 array."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"{path}: not 8-bit RGB or RGBA"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    ch = 4 if color == 6 else 3
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + ch * width)
    rows = np.zeros((height, ch * width), np.int32)
    for y in range(height):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        up = rows[y - 1] if y > 0 else np.zeros_like(line)
        if f == 0:
            rows[y] = line
        elif f == 2:
            rows[y] = (line + up) & 255
        else:
            # Sub, average and Paeth depend on the pixel to the left: byte by byte.
            out = np.zeros_like(line)
            for x in range(line.size):
                a = out[x - ch] if x >= ch else 0
                b = up[x]
                c = up[x - ch] if x >= ch else 0
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else b if pb <= pc else c
                out[x] = (line[x] + p) & 255
            rows[y] = out
    return rows.astype(np.uint8).reshape(height, width, ch)


REPO = ROOT


def data_dir():
    return Path(os.environ.get("PR_TESTDATA_DIR", REPO / "tests" / "data"))


def pointraster_bin():
    """The program of the build whose module is tested (PR_BIN_DIR, set by the CTest entry)."""
    return Path(os.environ.get("PR_BIN_DIR", REPO / "build" / "bin")) / "pointraster"


@pytest.fixture
def data():
    return data_dir()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def nginx(tmp_path):
    """nginx on 127.0.0.1 serving the test data (with ranges); yields the base URL, stopped by
    its pid."""
    port = _free_port()
    conf = tmp_path / "nginx.conf"
    temps = "".join(f"  {t}_temp_path {tmp_path}/{t};\n"
                    for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf.write_text(
        "daemon off;\nmaster_process off;\nworker_processes 1;\n"
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log warn;\n"
        "events { worker_connections 64; }\n"
        "http {\n  access_log off;\n  default_type application/octet-stream;\n" + temps +
        f"  server {{\n    listen 127.0.0.1:{port};\n    root \"{data_dir()}\";\n  }}\n}}\n")
    proc = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(conf), "-p", str(tmp_path), "-e",
                             str(tmp_path / "error.log")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {(tmp_path / 'error.log').read_text()}")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait()
