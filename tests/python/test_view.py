"""view(): the viewer window from Python, under a display (xvfb-run in the CTest entry)."""
import os
import time

import numpy as np
import pytest

import pointraster
from conftest import read_png

pytestmark = pytest.mark.skipif(not os.environ.get("DISPLAY"),
                                reason="no display: the CTest entry runs these under xvfb-run")


@pytest.fixture(autouse=True)
def settings_home(tmp_path, monkeypatch):
    """The viewer's settings (recent files, panel) in a folder of the test's own."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def cube(n, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, size=(n, 3)) + np.array([1000.0, 2000.0, 30.0])


def test_view_blocking_screenshot(tmp_path):
    shot = tmp_path / "shot.png"
    pts = cube(20000, 1)
    # Red points west of the middle, blue ones east: both on screen, and no color of the
    # viewer's own (elevation's ramp) in their place.
    colors = np.zeros((len(pts), 3), dtype=np.uint8)
    east = pts[:, 0] > 1000.0
    colors[~east, 0] = 255
    colors[east, 2] = 255
    rc = pointraster.view(pts, colors, frames=3, screenshot=shot, width=640, height=400,
                          ui_scale=0.5)
    assert rc == 0
    img = read_png(shot)
    red = (img[..., 0] > 150) & (img[..., 1] < 60) & (img[..., 2] < 60)
    blue = (img[..., 2] > 150) & (img[..., 0] < 60) & (img[..., 1] < 60)
    assert red.sum() > 100 and blue.sum() > 100
    # East is right of west in the image: the mean column of the blue pixels is the larger.
    cols = np.arange(img.shape[1])[None, :]
    assert (cols * blue).sum() / blue.sum() > (cols * red).sum() / red.sum()


def wait_for(ready, seconds=30.0):
    end = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < end, "the viewer did not get there in time"
        time.sleep(0.02)


def colored(img, channel):
    """Pixels where `channel` (0 red, 1 green, 2 blue) is bright and the others dark."""
    others = [c for c in range(3) if c != channel]
    return (img[..., channel] > 150) & (img[..., others[0]] < 60) & (img[..., others[1]] < 60)


def test_view_handle_update_and_close(tmp_path):
    pts = cube(5000, 2)
    red = np.tile(np.array([1.0, 0.0, 0.0]), (len(pts), 1))
    h = pointraster.view(pts, red, block=False, width=320, height=200, ui_scale=0.5)
    assert h.running
    wait_for(lambda: h.points() == 5000)
    h.screenshot(tmp_path / "red.png")
    img = read_png(tmp_path / "red.png")
    assert colored(img, 0).sum() > 50 and colored(img, 2).sum() == 0
    h.update(cube(8000, 3), np.tile(np.array([0, 0, 255], dtype=np.uint8), (8000, 1)))
    wait_for(lambda: h.points() == 8000)
    h.screenshot(tmp_path / "blue.png")
    img = read_png(tmp_path / "blue.png")
    assert colored(img, 2).sum() > 50 and colored(img, 0).sum() == 0
    assert h.picks() == []
    assert h.measurements() == []
    assert h.running
    assert h.close() == 0
    assert not h.running
    assert h.points() == 8000  # what the window showed last
    with pytest.raises(OSError, match="closed"):
        h.screenshot(tmp_path / "late.png")
    with pytest.raises(OSError, match="closed"):
        h.update(cube(10, 4))


def mean_column(mask):
    cols = np.arange(mask.shape[1])[None, :]
    return (cols * mask).sum() / mask.sum()


def test_view_update_keeps_the_view(tmp_path):
    pts = cube(5000, 11)
    green = np.tile(np.array([0, 255, 0], dtype=np.uint8), (len(pts), 1))
    with pointraster.view(pts, green, block=False, width=480, height=300, ui_scale=0.5) as h:
        wait_for(lambda: h.points() == len(pts))
        h.screenshot(tmp_path / "a.png")
        # Most of the cube moved 1.5 east in place of it (the count tells when it is on
        # screen), the camera kept: its image moves right.
        moved = pts[:4900] + np.array([1.5, 0.0, 0.0])
        h.update(moved, np.tile(np.array([255, 0, 0], dtype=np.uint8), (4900, 1)),
                 keep_view=True)
        wait_for(lambda: h.points() == 4900)
        h.screenshot(tmp_path / "b.png")
        # Framed again (the default), the moved cube sits where the first one did.
        h.update(moved[:4800], np.tile(np.array([0, 0, 255], dtype=np.uint8), (4800, 1)))
        wait_for(lambda: h.points() == 4800)
        h.screenshot(tmp_path / "c.png")
    a, b, c = (read_png(tmp_path / f"{n}.png") for n in "abc")
    first = colored(a, 1)
    assert first.sum() > 100
    kept = colored(b, 0)
    framed = colored(c, 2)
    assert kept.sum() > 50 and framed.sum() > 100
    assert mean_column(kept) > mean_column(first) + 10
    assert abs(mean_column(framed) - mean_column(first)) < 5


def test_view_update_with_a_file_reads_it(data):
    pts = cube(1000, 12)
    with pointraster.view(pts, block=False, width=200, height=150) as h:
        wait_for(lambda: h.points() == 1000)
        h.update(data / "ply/simple_binary.ply")
        wait_for(lambda: h.points() == 3)
        h.update(pts[:900])
        wait_for(lambda: h.points() == 900)


def test_view_bad_inputs_raise(tmp_path):
    with pytest.raises(ValueError, match="points"):
        pointraster.view(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="colors"):
        pointraster.view(np.zeros((4, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError):
        pointraster.view(np.zeros((4, 3)), no_such_option=2)


def test_view_clicks_pick_points():
    pts = cube(50000, 8)
    with pointraster.view(pts, block=False, width=640, height=400, ui_scale=0.5) as h:
        wait_for(lambda: h.points() == len(pts))
        # The cloud fills the middle of the image, right of the panel.
        h.click(420, 200)
        wait_for(lambda: len(h.picks()) == 1)
        h.click(450, 220)
        wait_for(lambda: len(h.picks()) == 2)
        picks = h.picks()
    for p in picks:
        # The point drawn there: a row of the array (the viewer holds floats about its origin).
        assert 0 <= p["index"] < len(pts)
        np.testing.assert_allclose(pts[p["point"]], p["xyz"], rtol=0, atol=1e-4)
    assert picks[0]["pixel"] != picks[1]["pixel"]


def test_view_measurements_read_back():
    pts = cube(5000, 4)
    line = "distance 1000,2000,30;1003,2004,30"
    h = pointraster.view(pts, block=False, width=200, height=150, measure=line, measure_show=True)
    try:
        wait_for(lambda: len(h.measurements()) == 1)
        m = h.measurements()[0]
        assert m["kind"] == "distance"
        assert m["points"] == [(1000.0, 2000.0, 30.0), (1003.0, 2004.0, 30.0)]
        assert abs(m["values"]["3d"][0] - 5.0) < 1e-9
        assert m["summary"].startswith("distance 5")
    finally:
        assert h.close() == 0


def test_one_window_at_a_time():
    with pointraster.view(cube(100, 5), block=False, width=200, height=150) as h:
        with pytest.raises(RuntimeError, match="already"):
            pointraster.view(cube(100, 6), block=False)
    assert not h.running
    assert pointraster.view(cube(100, 7), frames=1, width=200, height=150) == 0


def test_ctrl_c_closes_a_blocking_view():
    import signal
    import threading
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            pointraster.view(cube(1000, 9), width=200, height=150)
    finally:
        timer.cancel()
    # The window went with it: another opens.
    assert pointraster.view(cube(100, 10), frames=1, width=200, height=150) == 0


def test_view_takes_any_layout_and_read_dicts(tmp_path):
    """Points of any dtype and strides show the same image (no copy to float64 first); read()'s
    dict brings its attributes, so the classes can be drawn."""
    local = (cube(20000, 3) - [1000.0, 2000.0, 30.0]).astype(np.float32)  # origin 0 in any dtype
    wide = np.zeros((len(local), 5))
    wide[:, 1:4] = local
    colors = np.zeros((len(local), 3), dtype=np.uint8)
    colors[local[:, 0] > 0, 0] = 255
    colors[local[:, 0] <= 0, 1] = 255
    shots = []
    for k, arr in enumerate((local, local.astype(np.float64), wide[:, 1:4],
                             np.asfortranarray(local), local.tolist())):
        # Each in a window of its own, shot once the whole cloud is on screen.
        shot = tmp_path / f"layout{k}.png"
        with pointraster.view(arr, colors, block=False, width=320, height=200,
                              ui_scale=0.5) as h:
            wait_for(lambda: h.points() == len(local))
            h.screenshot(shot)
        shots.append(read_png(shot))
    for img in shots[1:]:
        assert np.array_equal(img, shots[0])
    classes = np.where(local[:, 0] > 0, 2, 6).astype(np.uint8)
    cloud = {"xyz": local, "classification": classes}
    drawn = pointraster.render(cloud, color="classification", mode="cpu", width=64, height=48)
    palette = [tuple(c) for c in np.unique(drawn.reshape(-1, 4)[:, :3], axis=0)]
    shot = tmp_path / "classes.png"
    with pointraster.view(cloud, color="classification", block=False, width=320, height=200,
                          ui_scale=0.5) as h:
        wait_for(lambda: h.points() == len(local))
        h.screenshot(shot)
    img = read_png(shot)[..., :3].astype(int)
    near = [int((np.abs(img - np.array(c)).max(axis=-1) < 40).sum()) for c in palette]
    assert sorted(near)[-3] > 100 and sorted(near)[-2] > 100  # both classes (and the background)
