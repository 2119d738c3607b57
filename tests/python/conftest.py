"""What the Python tests share: the test data folder, the pointraster program, a local nginx."""
import os
import pathlib
import socket
import subprocess
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def data_dir():
    return pathlib.Path(os.environ.get("PR_TESTDATA_DIR", REPO / "tests" / "data"))


def pointraster_bin():
    """The program of the build whose module is tested (PR_BIN_DIR, set by the CTest entry)."""
    return pathlib.Path(os.environ.get("PR_BIN_DIR", REPO / "build" / "bin")) / "pointraster"


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
    proc = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(tmp_path), "-e",
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
