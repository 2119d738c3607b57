"""read(), info(), convert() and view(): the Python side of the module's files and viewer parts.

Keyword options of convert() and view() are the command line's options (docs in README.md):
``max_depth=3`` is ``--max-depth 3`` (underscores become dashes), ``True`` a bare flag,
a tuple one comma-separated value (``camera=(x, y, z, yaw, pitch)``), a list the option repeated.
"""
import os

import numpy as np

from . import _pointraster


def _option_args(options):
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, list):
            args += [f"{flag}={_option_value(v)}" for v in value]
        else:
            args.append(f"{flag}={_option_value(value)}")
    return args


def _option_value(value):
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def read(path_or_url, max_points=None, bounds=None, resolution=None):
    """Reads a point-cloud file, URL or survey into a dict of NumPy arrays.

    "xyz" (N, 3) float64 world coordinates; where the file has them "rgb" (N, 3) uint8,
    "intensity" float32, "classification" uint8, "return_number" and "number_of_returns" uint8,
    "point_source_id" uint16, "gps_time" float64; "fields" a dict of the named scalar fields
    (float32); "info" the facts ``pointraster --info --json`` prints.

    max_points: at most this many points. bounds (xmin, ymin, zmin, xmax, ymax, zmax) and
    resolution (a point spacing): the points inside the box, from the octree levels down to the
    first whose spacing is at most the resolution (COPC files, EPT datasets, .vpc surveys and
    URLs; bounds alone also filters any other file read whole).
    """
    if bounds is not None:
        bounds = [float(b) for b in bounds]
    return _pointraster._read(os.fspath(path_or_url), int(max_points or 0), bounds,
                              None if resolution is None else float(resolution))


def info(path_or_url):
    """What ``pointraster --info --json`` prints about a file, as a dict."""
    return _pointraster._info(os.fspath(path_or_url))


def convert(out, inputs, *, progress=None, **options):
    """Converts inputs (a path or a list; none with scene=... and points=...) into out
    (.copc.laz, .laz or .las), as ``pointraster --convert`` does. progress(fraction) is called
    with 0 before it starts, then as the conversion goes; returning False or raising cancels it (no output is left). Returns
    what was written: points, point_format, scale, offset, nodes, levels, bytes, messages."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    args = ["--convert", os.fspath(out)] + _option_args(options)
    args += [os.fspath(p) for p in inputs or []]
    return _pointraster._convert(args, progress)


def _point_arrays(points, colors):
    """The points as the viewer takes them (as render() does): positions of any dtype and
    strides, colors or None, and the attributes of read()'s dict."""
    from . import _array, _host, _points

    xyz, attrs = _points(points)
    # The viewer draws from host memory: device arrays (PyTorch, CuPy, JAX) are copied there.
    on_device = lambda a: a is not None and not hasattr(a, "__array_interface__")
    if on_device(xyz):
        xyz = _host(xyz)
    if on_device(colors):
        colors = _host(colors)
    attrs = {k: _host(v) if on_device(v) else v for k, v in attrs.items()}
    return xyz, _array(colors), attrs


def _paths(inputs):
    """A path or a list of paths as strings; None for anything else (points)."""
    if isinstance(inputs, (str, os.PathLike)):
        return [os.fspath(inputs)]
    if isinstance(inputs, (list, tuple)) and inputs and all(
            isinstance(p, (str, os.PathLike)) for p in inputs):
        return [os.fspath(p) for p in inputs]
    return None


class ViewHandle:
    """A viewer window running on a thread of its own (view(..., block=False)). The window
    closes when the handle is closed or no longer referenced; ``with view(...) as h:`` closes it
    at the block's end. Points given as arrays are handed to the viewer in memory."""

    def __init__(self, inputs, colors, options):
        self._xyz = None  # the points shown, when they came as an array
        args = _option_args(options)
        paths = _paths(inputs)
        if paths is not None:
            self._handle = _pointraster._ViewHandle(args + paths)
        else:
            xyz, rgb, attrs = _point_arrays(inputs, colors)
            self._handle = _pointraster._ViewHandle(args, xyz, rgb, attrs)
            self._xyz = xyz

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def update(self, points, colors=None, keep_view=False):
        """Shows these points (an (N, 3) array, with colors as view() takes them) or files (a
        path or a list) in place of the cloud on screen. The new cloud is framed, unless
        keep_view=True keeps the camera where it is (points only)."""
        paths = _paths(points)
        if paths is not None:
            self._handle.open(paths)
            self._xyz = None
            return
        xyz, rgb, attrs = _point_arrays(points, colors)
        self._handle.set_points(xyz, rgb, attrs, bool(keep_view))
        self._xyz = xyz

    def click(self, x, y):
        """A left click at window pixel (x, y), as a user makes one: a pick on the image (a
        second one measures to it), or a vertex of the measurement tool chosen."""
        self._handle.click(int(x), int(y))

    def screenshot(self, path):
        """Saves the view on screen (without the panel) as a PNG file."""
        self._handle.screenshot(os.fspath(path))

    def picks(self):
        """The picked points (a click picks, a second one measures): xyz, pixel, index (in the
        viewer's own order of the cloud), intensity and classification where the cloud has them,
        and for points given as an array "point", the row of that array nearest to xyz."""
        picks = self._handle.picks()
        if self._xyz is not None and len(self._xyz):
            for p in picks:
                d = ((self._xyz - np.asarray(p["xyz"])) ** 2).sum(axis=1)
                p["point"] = int(d.argmin())
        return picks

    def measurements(self):
        """The measurements in the panel's list: kind, points, values, summary."""
        return self._handle.measurements()

    def points(self):
        """Points of the cloud on screen (0 until the first is ready)."""
        return self._handle.points()

    @property
    def running(self):
        return self._handle.running()

    def wait(self):
        """Waits until the window closes; returns the viewer's exit code."""
        return self._handle.wait()

    def close(self):
        """Closes the window and waits for it."""
        self._handle.close()
        return self.wait()


def view(points_or_path, colors=None, *, block=True, **options):
    """Opens the viewer on a file, a list of files, an (N, 3) array of points (colors: (N, 3)
    uint8 or floats in 0..1; device arrays are copied to the host) or read()'s dict. Options are the command line's: frames=N and screenshot="x.png"
    close it after N frames with the last one saved, width=, height=, color="elevation", ...
    block=True waits for the window to close and returns the exit code; block=False returns a
    ViewHandle at once."""
    if colors is not None:
        # The colors given are drawn, even where they are all one (the viewer's first choice for
        # a cloud of one color is its elevation).
        options.setdefault("color", "rgb")
    handle = ViewHandle(points_or_path, colors, options)
    if not block:
        return handle
    try:
        return handle.wait()
    except BaseException:
        handle.close()
        raise
