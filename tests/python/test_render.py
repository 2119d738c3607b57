"""pointraster.render() and Renderer against the command line: the same points and options give
the same image, pixel for pixel; every dtype and layout of the points gives the same image."""
import subprocess

import numpy as np
import pytest

import pointraster
from conftest import needs_gpu, read_png

W, H = 160, 120
CAMERA = (0.5, -9.0, 3.0, 4.0, -15.0)


def cloud(n=20000, seed=7):
    """Points in a 10 x 10 x 3 box (coordinates within +-1024: origin 0) with colors."""
    rng = np.random.default_rng(seed)
    xyz = (rng.random((n, 3)) * [10, 10, 3] - [5, 5, 0]).astype(np.float32)
    rgb = rng.integers(0, 256, size=(n, 3), dtype=np.uint8)
    return xyz, rgb


def write_ply(path, xyz, rgb=None, double=False):
    """A binary little-endian PLY of the points (and colors)."""
    t = "f8" if double else "f4"
    fields = [("x", "<" + t), ("y", "<" + t), ("z", "<" + t)]
    if rgb is not None:
        fields += [("red", "u1"), ("green", "u1"), ("blue", "u1")]
    rec = np.zeros(len(xyz), dtype=fields)
    rec["x"], rec["y"], rec["z"] = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    props = "".join(f"property {'double' if double else 'float'} {c}\n" for c in "xyz")
    if rgb is not None:
        rec["red"], rec["green"], rec["blue"] = rgb[:, 0], rgb[:, 1], rgb[:, 2]
        props += "property uchar red\nproperty uchar green\nproperty uchar blue\n"
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(xyz)}\n{props}"
              "end_header\n")
    with open(path, "wb") as f:
        f.write(header.encode())
        f.write(rec.tobytes())


def cli_image(cli, tmp_path, file, *options):
    out = tmp_path / "cli.png"
    cmd = [cli, "--headless", "--frames", "1", "--width", str(W), "--height", str(H),
           *options, "--screenshot", str(out), str(file)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, f"{' '.join(cmd)}: {run.stderr}"
    return read_png(out)


def differing(a, b):
    return int(np.count_nonzero(np.any(a != b, axis=-1)))


def drawn(img, background=(16, 18, 24, 255)):
    """Pixels not the background's."""
    return int(np.count_nonzero(np.any(img != np.array(background, np.uint8), axis=-1)))


CLI_CASES = [
    ({}, []),
    ({"compact": True, "camera": CAMERA}, ["--compact", "--camera", "0.5,-9,3,4,-15"]),
    ({"camera": CAMERA}, ["--camera", "0.5,-9,3,4,-15"]),
    ({"camera": CAMERA, "point_size": 2, "edl": True}, ["--camera", "0.5,-9,3,4,-15",
                                                        "--point-size", "2", "--edl"]),
    ({"camera": CAMERA, "hq": True, "focus": 2.5}, ["--camera", "0.5,-9,3,4,-15", "--hq",
                                                    "--focus", "2.5"]),
    ({"color": "elevation", "colormap": "turbo", "edl": 0.5},
     ["--color", "elevation", "--colormap", "turbo", "--edl", "0.5"]),
    ({"up": "y", "camera": (0, 2, -12, 0, 0)}, ["--up", "y", "--camera", "0,2,-12,0,0"]),
    ({"projection": "ortho"}, ["--projection", "ortho"]),
]


MODES = ["cpu", pytest.param("gpu", marks=needs_gpu)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kw,options", CLI_CASES)
def test_image_equals_the_command_line(cli, tmp_path, kw, options, mode):
    xyz, rgb = cloud()
    write_ply(tmp_path / "c.ply", xyz, rgb)
    want = cli_image(cli, tmp_path, tmp_path / "c.ply", "--mode", mode, *options)
    got = pointraster.render(xyz, rgb, width=W, height=H, mode=mode, **kw)
    assert got.shape == (H, W, 4) and got.dtype == np.uint8
    assert differing(got, want) == 0
    assert np.count_nonzero(got[..., :3] != want[0, 0, :3]) > 100  # points were drawn


def test_a_file_without_colors_is_colored_as_the_command_line_colors_it(cli, tmp_path):
    xyz, _ = cloud()
    write_ply(tmp_path / "c.ply", xyz)
    want = cli_image(cli, tmp_path, tmp_path / "c.ply", "--camera", "0.5,-9,3,4,-15")
    got = pointraster.render(xyz, width=W, height=H, mode="cpu", camera=CAMERA)
    assert differing(got, want) == 0


def test_utm_coordinates_in_float64_equal_the_command_line(cli, tmp_path):
    xyz, rgb = cloud()
    utm = xyz.astype(np.float64) + [512000.0, 4321000.0, 120.0]
    write_ply(tmp_path / "c.ply", utm, rgb, double=True)
    want = cli_image(cli, tmp_path, tmp_path / "c.ply", "--camera", "512000.5,4320991,123,4,-15")
    r = pointraster.Renderer(utm, rgb, width=W, height=H, mode="cpu",
                             camera=(512000.5, 4320991, 123, 4, -15))
    # The readers' origin: the bounds' centre rounded to whole units.
    assert all(float(v).is_integer() for v in r.origin)
    assert abs(r.origin[0] - 512000) <= 1 and abs(r.origin[1] - 4321000) <= 1
    assert differing(r.render(), want) == 0


def test_a_dict_of_attributes_is_colored_as_the_file(cli, tmp_path):
    laspy = pytest.importorskip("laspy")
    xyz, _ = cloud(5000)
    rng = np.random.default_rng(3)
    cls = rng.choice([1, 2, 5, 6], size=len(xyz)).astype(np.uint8)
    header = laspy.LasHeader(point_format=1, version="1.2")
    header.scales = [0.001] * 3
    header.offsets = [0.0] * 3
    las = laspy.LasData(header)
    las.x, las.y, las.z = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    las.classification = cls
    las.intensity = rng.integers(0, 4000, len(xyz)).astype(np.uint16)
    las.write(tmp_path / "c.las")
    back = laspy.read(tmp_path / "c.las")
    points = {"xyz": np.column_stack([back.x, back.y, back.z]),
              "classification": np.asarray(back.classification),
              "intensity": np.asarray(back.intensity)}
    for color in ("classification", "intensity"):
        want = cli_image(cli, tmp_path, tmp_path / "c.las", "--color", color, "--camera",
                         "0.5,-9,3,4,-15")
        got = pointraster.render(points, width=W, height=H, mode="cpu", color=color,
                                 camera=CAMERA)
        assert differing(got, want) == 0, color


def layouts(xyz):
    """The same points in every dtype and memory layout the module takes."""
    big = np.zeros((2 * len(xyz), 5), np.float32)
    big[::2, 1:4] = xyz
    wide64 = np.zeros((len(xyz), 6), np.float64)
    wide64[:, ::2] = xyz
    return {
        "float32 C": np.ascontiguousarray(xyz),
        "float32 F": np.asfortranarray(xyz),
        "float64 C": xyz.astype(np.float64),
        "float64 F": np.asfortranarray(xyz.astype(np.float64)),
        "strided rows and columns": big[::2, 1:4],
        "float64 every other column": wide64[:, ::2],
        "transposed (3, N) view": np.ascontiguousarray(xyz.T).T,
    }


@pytest.mark.parametrize("name", list(layouts(cloud(10)[0])))
def test_every_dtype_and_layout_gives_the_same_image(name):
    xyz, rgb = cloud()
    want = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA)
    got = pointraster.render(layouts(xyz)[name], rgb, width=W, height=H, mode="cpu",
                             camera=CAMERA)
    assert differing(got, want) == 0


def test_reversed_rows_and_every_color_layout_give_the_same_image():
    xyz, rgb = cloud()
    want = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA)
    # Stored in another order: the depth test's tie rule does not depend on it.
    assert differing(pointraster.render(xyz[::-1], rgb[::-1], width=W, height=H, mode="cpu",
                                        camera=CAMERA), want) == 0
    rgba = np.concatenate([rgb, np.full((len(rgb), 1), 7, np.uint8)], axis=1)
    for colors in (rgba, np.asfortranarray(rgb), rgb.astype(np.float32) / 255,
                   rgb.astype(np.float64) / 255, rgb.astype(np.uint16) * 257):
        got = pointraster.render(xyz, colors, width=W, height=H, mode="cpu", camera=CAMERA)
        assert differing(got, want) == 0, colors.dtype


def test_non_finite_points_are_skipped():
    xyz, rgb = cloud()
    want = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA)
    bad = np.concatenate([xyz, [[np.nan, 0, 0], [0, np.inf, 1]]]).astype(np.float32)
    colors = np.concatenate([rgb, [[255, 0, 0], [0, 255, 0]]]).astype(np.uint8)
    got = pointraster.render(bad, colors, width=W, height=H, mode="cpu", camera=CAMERA)
    assert differing(got, want) == 0


def test_renderer_is_reused_across_cameras():
    xyz, rgb = cloud()
    r = pointraster.Renderer(xyz, rgb, width=W, height=H, mode="cpu")
    cams = [CAMERA, (0, 0, 20, 0, -89), (3, -4, 1, 30, 0)]
    first = [r.render(c) for c in cams]
    for c, img in zip(cams, first):
        assert differing(img, pointraster.render(xyz, rgb, width=W, height=H, mode="cpu",
                                                 camera=c)) == 0
        assert differing(r.render(c), img) == 0
    assert differing(first[0], first[1]) > 100
    # No camera: the starting view (the whole cloud framed), as render() without one.
    assert differing(r.render(), pointraster.render(xyz, rgb, width=W, height=H, mode="cpu")) == 0
    assert r.mode == "cpu" and r.points == len(xyz) and r.render_ms > 0


def test_depth_on_request():
    xyz, rgb = cloud()
    img, depth = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA,
                                    depth=True)
    assert depth.shape == (H, W) and depth.dtype == np.float32
    empty = np.isinf(depth)
    assert empty.any() and (~empty).any()
    assert np.all(depth[~empty] > 0)
    assert differing(img, pointraster.render(xyz, rgb, width=W, height=H, mode="cpu",
                                             camera=CAMERA)) == 0


def test_fov_is_the_focus_of_that_vertical_field_of_view():
    xyz, rgb = cloud()
    a = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA, fov=90)
    b = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA, focus=1.0)
    assert differing(a, b) == 0


def test_save_png_writes_what_read_png_reads(tmp_path):
    xyz, rgb = cloud()
    img = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA)
    pointraster.save_png(str(tmp_path / "o.png"), img)
    assert np.array_equal(read_png(tmp_path / "o.png"), img)


@needs_gpu
@pytest.mark.parametrize("kw", [{}, {"edl": True, "point_size": 2}, {"hq": True}])
def test_gpu_equals_cpu(kw):
    xyz, rgb = cloud()
    cpu = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA, **kw)
    gpu = pointraster.render(xyz, rgb, width=W, height=H, mode="gpu", camera=CAMERA, **kw)
    assert differing(gpu, cpu) == 0


@needs_gpu
def test_gpu_renderer_reused_equals_render():
    xyz, rgb = cloud()
    r = pointraster.Renderer(xyz, rgb, width=W, height=H, mode="gpu")
    for c in (CAMERA, (0, 0, 20, 0, -89)):
        want = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=c)
        assert differing(r.render(c), want) == 0
    assert r.render_ms > 0


def device_case(lib):
    """Points and colors as device arrays of `lib` ("torch" or "cupy"), and the NumPy image."""
    xyz, rgb = cloud()
    want = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA)
    return xyz, rgb, want


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_device_arrays_give_the_numpy_image(dtype):
    torch = pytest.importorskip("torch")
    xyz, rgb, want = device_case("torch")
    pts = torch.from_numpy(xyz.astype(dtype)).cuda()
    cols = torch.from_numpy(rgb).cuda()
    got = pointraster.render(pts, cols, width=W, height=H, mode="gpu", camera=CAMERA)
    assert differing(got, want) == 0
    # A strided view (every other row of a wider tensor) is read where it lies too.
    wide = torch.zeros((2 * len(xyz), 5), dtype=pts.dtype, device="cuda")
    wide[::2, 1:4] = pts
    got = pointraster.render(wide[::2, 1:4], cols.float() / 255, width=W, height=H, mode="gpu",
                             camera=CAMERA)
    assert differing(got, want) == 0


@needs_gpu
def test_cupy_device_arrays_give_the_numpy_image():
    cupy = pytest.importorskip("cupy")
    xyz, rgb, want = device_case("cupy")
    r = pointraster.Renderer(cupy.asarray(xyz), cupy.asarray(rgb), width=W, height=H,
                             mode="gpu")
    assert differing(r.render(CAMERA), want) == 0


@needs_gpu
@pytest.mark.parametrize("kw,with_colors", [
    ({}, False),
    ({}, "uniform"),
    ({"color": "elevation", "colormap": "turbo", "up": "y"}, True),
])
def test_device_arrays_by_elevation_give_the_numpy_image(kw, with_colors):
    """Without colors, with one color for every point, or with color="elevation", the GPU colors
    device points by elevation, as the host colors the same NumPy points: float32 about the
    origin 0 and UTM float64."""
    torch = pytest.importorskip("torch")
    xyz, rgb = cloud()
    if with_colors == "uniform":
        rgb = np.full_like(rgb, 200)
    utm = xyz.astype(np.float64) + [512000.0, 4321000.0, 120.0]
    cams = ((0.5, -9.0, 3.0), (512000.5, 4320991, 123))  # z up: from -y, above
    if kw.get("up") == "y":  # y up: from -z, level with the box's middle
        cams = ((0.5, 3.0, -9.0), (512000.5, 4321003, 111))
    for pts, xyz_cam in zip((xyz, utm), cams):
        cam = (*xyz_cam, 4.0, -15.0)
        cols = rgb if with_colors else None
        want = pointraster.render(pts, cols, width=W, height=H, mode="cpu", camera=cam, **kw)
        got = pointraster.render(torch.from_numpy(pts).cuda(),
                                 None if cols is None else torch.from_numpy(cols).cuda(),
                                 width=W, height=H, mode="gpu", camera=cam, **kw)
        assert differing(got, want) == 0
        assert drawn(want) > 3000
        assert len(np.unique(got.reshape(-1, 4), axis=0)) > 20  # a ramp, not one color


@needs_gpu
@pytest.mark.parametrize("kw", [{"compact": True}, {"compact": True, "hq": True}])
def test_compact_device_arrays_give_the_numpy_image(kw):
    """Device points sorted and encoded on the GPU draw the host's compact image."""
    torch = pytest.importorskip("torch")
    xyz, rgb = cloud(200000)
    want = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA, **kw)
    got = pointraster.render(torch.from_numpy(xyz).cuda(), torch.from_numpy(rgb).cuda(),
                             width=W, height=H, mode="gpu", camera=CAMERA, **kw)
    assert differing(got, want) == 0
    plain = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA)
    assert differing(plain, want) > 0  # the quantized positions draw another image


@needs_gpu
def test_utm_float64_device_arrays_give_the_numpy_image():
    torch = pytest.importorskip("torch")
    xyz, rgb = cloud()
    utm = xyz.astype(np.float64) + [512000.0, 4321000.0, 120.0]
    cam = (512000.5, 4320991, 123, 4, -15)
    want = pointraster.Renderer(utm, rgb, width=W, height=H, mode="cpu", camera=cam)
    got = pointraster.Renderer(torch.from_numpy(utm).cuda(), torch.from_numpy(rgb).cuda(),
                               width=W, height=H, mode="gpu", camera=cam)
    assert got.origin == want.origin
    assert differing(got.render(), want.render()) == 0


@needs_gpu
def test_a_frame_left_on_the_device_is_the_numpy_image():
    torch = pytest.importorskip("torch")
    xyz, rgb = cloud()
    want = pointraster.render(xyz, rgb, width=W, height=H, mode="cpu", camera=CAMERA)
    r = pointraster.Renderer(torch.from_numpy(xyz).cuda(), torch.from_numpy(rgb).cuda(),
                             width=W, height=H, mode="gpu", depth=True)
    img, depth = r.render_on_device(CAMERA)
    assert isinstance(img, torch.Tensor) and img.is_cuda and tuple(img.shape) == (H, W, 4)
    assert differing(img.cpu().numpy(), want) == 0
    host_img, host_depth = r.render(CAMERA)
    assert np.array_equal(depth.cpu().numpy(), host_depth)
