"""pointraster.project() against the seed's own NumPy function (bench/peers/seed_numpy.py)."""
import importlib.util
import os

import numpy as np
import pytest

import pointraster
from conftest import ROOT, needs_gpu


@pytest.fixture(scope="module")
def seed():
    """The seed's function, from its script (run on a tiny array: N=8, LOOPS=1)."""
    old = {k: os.environ.get(k) for k in ("N", "LOOPS")}
    os.environ.update(N="8", LOOPS="1")
    try:
        spec = importlib.util.spec_from_file_location("seed_numpy",
                                                      ROOT / "bench/peers/seed_numpy.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v
    return module.render_all_verts_cupy


def random_rotation(rng, dtype):
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_project_equals_the_seed(seed, dtype):
    rng = np.random.default_rng(11)
    for n in (1, 7, 1000, 100_000):
        v = ((rng.random((n, 3)) - 0.5) * 100).astype(dtype)
        shift = rng.normal(size=3).astype(dtype) * 10
        focus = dtype(rng.random() * 10 + 0.5)
        # The identity rotation (the seed's own test): exactly the seed's floats.
        eye = np.eye(3, dtype=dtype)
        got = pointraster.project(v, eye, shift, focus)
        want = seed(v, eye, shift, focus)
        assert got.dtype == want.dtype == dtype and got.shape == want.shape == (n, 3)
        assert np.array_equal(got, want)
        # Any rotation: NumPy's dot may sum in another order (BLAS), so to a few ulps of the
        # rotated point (x and y compared before the division by |z|, which magnifies them).
        u = random_rotation(rng, dtype)
        got = pointraster.project(v, u, shift, focus)
        want = seed(v, u, shift, focus)
        tol = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(got[:, 2], want[:, 2], **tol)
        np.testing.assert_allclose(got[:, :2] * np.abs(got[:, 2:]) / focus,
                                   want[:, :2] * np.abs(want[:, 2:]) / focus, **tol)


def test_project_takes_any_layout(seed):
    rng = np.random.default_rng(5)
    v = ((rng.random((500, 3)) - 0.5) * 100).astype(np.float32)
    eye = np.eye(3, dtype=np.float32)
    shift = np.array([0, 0, 10], np.float32)
    want = seed(v, eye, shift, np.single(5))
    big = np.zeros((1000, 4), np.float32)
    big[::2, :3] = v
    for arr in (np.asfortranarray(v), big[::2, :3]):
        assert np.array_equal(pointraster.project(arr, eye, shift, np.single(5)), want)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_vertices_are_projected_on_the_gpu_as_on_the_host(dtype):
    """PyTorch and CuPy vertices (strided too) give an array of their own framework on the GPU
    holding the host's values bit for bit; unit_vec and shift may lie on the device too."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    v = ((rng.random((50_000, 3)) - 0.5) * 100).astype(dtype)
    u = random_rotation(rng, dtype)
    shift = (rng.normal(size=3) * 10).astype(dtype)
    want = pointraster.project(v, u, shift, 5.5)
    got = pointraster.project(torch.from_numpy(v).cuda(), u, shift, 5.5)
    assert isinstance(got, torch.Tensor) and got.is_cuda and tuple(got.shape) == (len(v), 3)
    assert np.array_equal(got.cpu().numpy(), want)
    wide = torch.zeros((len(v), 7), dtype=got.dtype, device="cuda")
    wide[:, 2:5] = torch.from_numpy(v).cuda()
    got = pointraster.project(wide[:, 2:5], torch.from_numpy(u).cuda(),
                              torch.from_numpy(shift).cuda(), 5.5)
    assert np.array_equal(got.cpu().numpy(), want)
    cupy = pytest.importorskip("cupy")
    got = pointraster.project(cupy.asarray(v), cupy.asarray(u), cupy.asarray(shift), 5.5)
    assert isinstance(got, cupy.ndarray) and np.array_equal(got.get(), want)
