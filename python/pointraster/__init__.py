"""pointraster: a point-cloud software rasterizer for Python.

Draws point clouds with the project's CUDA rasterizer (``mode="gpu"``) or its multi-threaded CPU
rasterizer (``mode="cpu"``), which draw the same images, pixel for pixel, as the command line
``pointraster --headless`` does for the same points and options.

    import numpy as np, pointraster
    xyz = np.random.default_rng(1).normal(size=(100_000, 3))
    image = pointraster.render(xyz, camera=(0, -8, 2, 0, -10), width=640, height=480)
    pointraster.save_png("out.png", image)       # image: (480, 640, 4) uint8

Points are (N, 3) float32 or float64 arrays of any strides: NumPy arrays on the host, or CuPy,
PyTorch or JAX arrays in CUDA memory (DLPack, ``__cuda_array_interface__``), which the GPU
renderer reads where they lie. float64 positions are kept as float offsets from an origin chosen
as the file readers choose it (0 within +-1024, else the bounds' centre rounded). ``points`` may
also be the dict ``read()`` returns ("xyz" and the attributes: "rgb", "intensity",
"classification", "return_number", "number_of_returns", "point_source", "gps_time", other (N,)
fields), coloured as the command line colours that file. Host points without colors are coloured
as a file without colors is (by elevation, or intensity where given), and so are points whose
colors are all one; device points are drawn with their own colors, or by elevation without them
or when their colors are all one (computed on the GPU: the colors the host gives the same
points); the other color modes need attributes that device points lack.

``cuda_compiled`` says whether the module was built with CUDA, ``gpu_available()`` whether
``mode="gpu"`` can draw here (``gpu_status()`` says why not); without a GPU the default mode is
the CPU.
"""

import math as _math

from . import _pointraster
from ._pointraster import *  # noqa: F401,F403
from ._pointraster import cuda_compiled, gpu_available, gpu_status, save_png

from ._files import ViewHandle, convert, info, read, view  # noqa: E402

__all__ = [n for n in dir(_pointraster) if not n.startswith("_")] + [
    "render", "Renderer", "read", "info", "convert", "view", "ViewHandle"]


def _array(a):
    """`a` as an object nanobind reads as an array: objects with DLPack or the buffer protocol as
    they are; a CUDA object with only ``__cuda_array_interface__`` through CuPy (no copy); lists
    through NumPy."""
    if a is None or hasattr(a, "__dlpack__") or hasattr(a, "__array_interface__"):
        return a
    if hasattr(a, "__cuda_array_interface__"):
        import cupy

        return cupy.asarray(a)
    import numpy

    return numpy.asarray(a)


def _framework(a):
    """The framework of a device array, as the C++ side names it ("torch", "cupy", "jax"), or ""
    for any other array."""
    lib = type(a).__module__.split(".")[0]
    return {"torch": "torch", "cupy": "cupy", "jax": "jax", "jaxlib": "jax"}.get(lib, "")


def _uniform(colors):
    """Whether every row of device colors has the first row's red, green and blue (compared in
    the framework, on the device): the host colors such a cloud by elevation
    (default_color_mode()), so the GPU does the same. Float colors compare as given, before they
    are rounded to bytes."""
    rgb = colors[:, :3]
    return len(rgb) > 0 and bool((rgb == rgb[:1]).all())


def _points(points):
    """(positions, attributes) of an array or of read()'s dict."""
    if isinstance(points, dict):
        if "xyz" not in points:
            raise ValueError("points: a dict of points needs the key 'xyz'")
        attrs = {k: _array(v) for k, v in points.items()
                 if k not in ("xyz", "origin", "name") and v is not None}
        return _array(points["xyz"]), attrs
    return _array(points), {}


def _number(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
        raise ValueError(f"{name}: expected a number, got {type(v).__name__}")
    return repr(float(v))


def _args(camera, up, width, height, focus, fov, point_size, mode, color, colormap, edl, hq,
          projection, compact=False):
    """The command line's options for these keywords (app/options.cpp parses and checks them)."""
    args = ["--width", str(int(width)), "--height", str(int(height)),
            "--point-size", str(int(point_size))]
    if camera is not None:
        if len(camera) != 5:
            raise ValueError("camera: expected (x, y, z, yaw, pitch), got "
                             f"{len(camera)} values")
        args += ["--camera", ",".join(_number("camera", v) for v in camera)]
    if up is not None:
        args += ["--up", str(up)]
    if focus is not None and fov is not None:
        raise ValueError("focus and fov: give one of them, not both")
    if fov is not None:
        f = float(fov)
        if not 0.0 < f < 180.0:
            raise ValueError("fov: must be between 0 and 180 degrees")
        focus = 1.0 / _math.tan(_math.radians(f) * 0.5)
    if focus is not None:
        args += ["--focus", _number("focus", focus)]
    if mode is not None:
        if mode not in ("cpu", "gpu"):
            raise ValueError(f"mode: '{mode}' is not cpu or gpu")
        args += ["--mode", mode]
    if color is not None:
        args += ["--color", str(color)]
    if colormap is not None:
        args += ["--colormap", str(colormap)]
    if edl is not None and edl is not False:
        args += ["--edl", "1" if edl is True else _number("edl", edl)]
    if hq:
        args.append("--hq")
    if projection is not None:
        args += ["--projection", str(projection)]
    if compact:
        args.append("--compact")
    return args


class Renderer(_pointraster._Renderer):
    """A cloud kept by a renderer (on the GPU: uploaded once, or read in place from device
    arrays) with its options; ``render(camera)`` draws one frame.

    Keywords, as the command line's options: ``camera=(x, y, z, yaw, pitch)`` in world units and
    degrees (``--camera``; None: the whole cloud framed from above), ``up="z"`` or ``"y"``
    (``--up``; z by default, as for files), ``width``, ``height``, ``focus`` (``--focus``) or
    ``fov`` (vertical, degrees), ``point_size``, ``mode="gpu"`` or ``"cpu"`` (None: the GPU when
    there is one), ``color`` (``--color``: rgb, intensity, elevation, classification, return,
    source or a field's name; None: as for a file), ``colormap``, ``edl`` (True or a strength),
    ``hq``, ``projection="perspective"`` or ``"ortho"``, ``compact`` (``--compact``: positions
    in 4 bytes a point, quantized per batch of 4096), ``depth`` (render() also returns the
    (H, W) float32 camera-space depth, +inf where empty). Points are stored sorted along a Morton
    curve (host and device arrays alike): the same image, drawn faster.

    ``render(camera=None)`` returns the (H, W, 4) uint8 RGBA image (and the depth) as NumPy
    arrays. ``render_on_device(camera=None)`` (mode="gpu") leaves the frame on the GPU and
    returns the renderer's own frame buffer as a device array (PyTorch, CuPy or JAX as the
    points were; else any DLPack consumer takes it), overwritten by the next frame. After a
    frame, ``render_ms`` is the renderer's own time (the device frame on the GPU), ``frame_ms``
    the whole C++ call, ``copy_ms`` its device-to-host copy.
    """

    def __init__(self, points, colors=None, *, camera=None, up=None, width=1280, height=720,
                 focus=None, fov=None, point_size=1, mode=None, color=None, colormap=None,
                 edl=False, hq=False, projection=None, compact=False, depth=False):
        xyz, attrs = _points(points)
        args = _args(camera, up, width, height, focus, fov, point_size, mode, color, colormap,
                     edl, hq, projection, compact)
        framework = _framework(xyz)
        if framework and colors is not None and color is None and _uniform(_array(colors)):
            colors = None  # colored by elevation, as the host colors one color everywhere
        super().__init__(xyz, _array(colors), attrs, args, bool(depth), framework)


def _host(a):
    """An array as NumPy, copied from the device if it lies there (CuPy, PyTorch, JAX): project()'s
    small arguments, view()'s points."""
    import numpy

    if hasattr(a, "get") and hasattr(a, "__cuda_array_interface__"):  # CuPy
        return a.get()
    if hasattr(a, "detach") and hasattr(a, "cpu"):  # PyTorch
        return a.detach().cpu().numpy()
    return numpy.asarray(a)


def project(vertices, unit_vec, shift, focus):
    """The perspective projection of the NumPy function the project grew from, with its arguments
    and its result: ``dot(unit_vec, (vertices - shift).T)``, then x and y times ``focus / |z|``,
    returned as (N, 3) in the vertices' dtype (float32 or float64; any strides). Device vertices
    (CuPy, PyTorch, JAX) are projected on the GPU into an array of their framework, with the
    same values."""
    import numpy

    v = _array(vertices)
    dtype = getattr(v, "dtype", None)
    framework = _framework(v)
    if framework:
        # Device vertices: the small arguments in float64 (rounded to the vertices' type there).
        return _pointraster.project(v, numpy.asarray(_host(unit_vec), dtype=numpy.float64),
                                    numpy.asarray(_host(shift), dtype=numpy.float64),
                                    float(_host(focus)), framework)
    dtype = dtype if dtype in (numpy.float32, numpy.float64) else None
    return _pointraster.project(v, numpy.asarray(_host(unit_vec), dtype=dtype),
                                numpy.asarray(_host(shift), dtype=dtype), float(_host(focus)))


def render(points, colors=None, **options):
    """One image of `points` (an (N, 3) array or read()'s dict) with `colors` ((N, 3) or (N, 4)
    uint8, or floats in [0, 1]): the (H, W, 4) uint8 RGBA image, and with ``depth=True`` the
    tuple (image, depth). The keywords are Renderer's."""
    return Renderer(points, colors, **options).render()
