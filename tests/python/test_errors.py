"""Bad input to the module raises a Python exception with a one-line message, never a crash."""
import numpy as np
import pytest

import pointraster
from conftest import needs_gpu

XYZ = np.random.default_rng(2).random((100, 3)).astype(np.float32)


def raises(exc, match, fn, *args, **kw):
    with pytest.raises(exc, match=match) as e:
        fn(*args, **kw)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("points,match", [
    (np.zeros((0, 3), np.float32), "empty"),
    (np.zeros((10, 2), np.float32), r"shape \(N, 3\), got \(10, 2\)"),
    (np.zeros((10,), np.float32), r"shape \(N, 3\), got \(10,\)"),
    (np.zeros((10, 3), np.int32), "float32 or float64, got int32"),
    (np.zeros((10, 3), np.float16), "float32 or float64, got float16"),
])
def test_bad_points(points, match):
    raises(ValueError, match, pointraster.render, points, mode="cpu")


def test_bad_colors():
    raises(ValueError, r"colors: expected shape \(100, 3\) or \(100, 4\)", pointraster.render,
           XYZ, np.zeros((99, 3), np.uint8), mode="cpu")
    raises(ValueError, "colors: expected uint8, uint16 or float colors, got int32",
           pointraster.render, XYZ, np.zeros((100, 3), np.int32), mode="cpu")


def test_bad_options():
    raises(ValueError, "option --focus: must be > 0", pointraster.render, XYZ, focus=-1,
           mode="cpu")
    raises(ValueError, "camera: expected", pointraster.render, XYZ, camera=(1, 2, 3), mode="cpu")
    raises(ValueError, "mode: 'tpu' is not cpu or gpu", pointraster.render, XYZ, mode="tpu")
    raises(ValueError, "focus and fov", pointraster.render, XYZ, focus=2, fov=60, mode="cpu")
    raises(ValueError, "option --up", pointraster.render, XYZ, up="x", mode="cpu")
    raises(ValueError, "option --color", pointraster.render, XYZ, color="intensity", mode="cpu")
    raises(ValueError, "option --width", pointraster.render, XYZ, width=0, mode="cpu")
    raises(ValueError, "option --projection", pointraster.render, XYZ, projection="fisheye",
           mode="cpu")


def test_bad_dict():
    raises(ValueError, "needs the key 'xyz'", pointraster.render, {"rgb": None}, mode="cpu")
    raises(ValueError, r"points\['intensity'\]: expected shape \(100,\)", pointraster.render,
           {"xyz": XYZ, "intensity": np.zeros(3)}, mode="cpu")


def test_gpu_mode_without_a_gpu():
    if pointraster.gpu_available():
        pytest.skip("a GPU is available: mode='gpu' draws here")
    raises(RuntimeError, "mode='gpu' is not available: ", pointraster.render, XYZ, mode="gpu")


def test_a_frame_on_the_device_needs_the_gpu():
    r = pointraster.Renderer(XYZ, mode="cpu", width=32, height=24)
    raises(ValueError, "render_on_device: needs mode='gpu'", r.render_on_device)


def test_bad_project_arguments():
    eye = np.eye(3, dtype=np.float32)
    shift = np.zeros(3, np.float32)
    raises(ValueError, "unit_vec: expected shape", pointraster.project, XYZ, np.eye(2), shift, 5)
    raises(ValueError, "shift: expected 3 values", pointraster.project, XYZ, eye, [1, 2], 5)
    raises(ValueError, "vertices: expected float32 or float64", pointraster.project,
           np.zeros((4, 3), np.int64), eye, shift, 5)
    raises(ValueError, "vertices: the array is empty", pointraster.project,
           np.zeros((0, 3), np.float32), eye, shift, 5)


@needs_gpu
def test_a_color_mode_device_points_lack_is_refused():
    torch = pytest.importorskip("torch")
    pts = torch.from_numpy(XYZ).cuda()
    raises(ValueError, "color: 'intensity' needs attributes that device points do not have",
           pointraster.render, pts, mode="gpu", color="intensity")
    raises(ValueError, "device array needs mode='gpu'", pointraster.render, pts, mode="cpu")
