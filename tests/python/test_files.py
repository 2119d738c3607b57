"""read(), info() and convert() of the Python module against laspy, plyfile, pypcd4, pye57 and
the pointraster program."""
import json
import subprocess

import numpy as np
import pytest

laspy = pytest.importorskip("laspy", reason="the independent reader these tests compare with")

import pointraster
from conftest import pointraster_bin

LAS_FILES = ["las/1.2-with-color.las", "las/autzen_trim.las", "las/simple.las",
             "laz/simple.laz", "laz/autzen_trim.laz", "laz/1.2-with-color.copc.laz",
             "laz/simple.copc.laz", "laz/lone-star.copc.laz"]


def las_xyz(las):
    return np.stack([np.asarray(las.x), np.asarray(las.y), np.asarray(las.z)], axis=1)


def sort_rows(xyz, *more):
    """The points in one order (x, then y, then z) with their attributes: a COPC file's octree
    order is not the order in which its points were read whole."""
    order = np.lexsort((xyz[:, 2], xyz[:, 1], xyz[:, 0]))
    return [xyz[order]] + [m[order] for m in more]


@pytest.mark.parametrize("name", LAS_FILES)
def test_read_matches_laspy(data, name):
    path = data / name
    las = laspy.read(path)
    got = pointraster.read(path)
    scale = np.asarray(las.header.scales)
    ref_xyz = las_xyz(las)
    assert got["xyz"].dtype == np.float64 and got["xyz"].shape == ref_xyz.shape
    ref_cls = np.asarray(las.classification, dtype=np.uint8)
    ref_int = np.asarray(las.intensity, dtype=np.float64)
    ref_gps = np.asarray(las.gps_time) if "gps_time" in las.point_format.dimension_names else None
    a = sort_rows(got["xyz"], got["classification"], got["intensity"].astype(np.float64),
                  got["gps_time"] if ref_gps is not None else np.zeros(len(ref_xyz)))
    b = sort_rows(ref_xyz, ref_cls, ref_int,
                  ref_gps if ref_gps is not None else np.zeros(len(ref_xyz)))
    # Positions are floats about the cloud's origin: within half the file's scale.
    np.testing.assert_allclose(a[0], b[0], rtol=0, atol=0.5 * scale.max())
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])
    if ref_gps is not None:
        np.testing.assert_array_equal(a[3], b[3])
    if "red" in las.point_format.dimension_names:
        c = np.stack([np.asarray(las.red), np.asarray(las.green), np.asarray(las.blue)], axis=1)
        ref_rgb = (c if c.max() <= 255 else c >> 8).astype(np.uint8)
        _, x, y = sort_rows(got["xyz"], got["rgb"], got["rgb"])
        _, r, _ = sort_rows(ref_xyz, ref_rgb, ref_rgb)
        np.testing.assert_array_equal(x, r)
    assert got["info"]["points"] == len(ref_xyz)


def test_read_extra_bytes_by_name(data):
    path = data / "las/extrabytes.las"
    las = laspy.read(path)
    got = pointraster.read(path)
    # The engine keeps the scalar extra bytes (Intensity, Time here), not the arrays (Colors).
    scalar = [n for n in las.point_format.extra_dimension_names if np.asarray(las[n]).ndim == 1]
    assert scalar and sorted(got["fields"]) == sorted(scalar)
    for n in scalar:
        np.testing.assert_allclose(got["fields"][n], np.asarray(las[n], dtype=np.float64),
                                   rtol=1e-6)


def test_read_ply_matches_plyfile(data):
    from plyfile import PlyData
    path = data / "ply/simple_binary.ply"
    v = PlyData.read(str(path))["vertex"]
    ref = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float64)
    got = pointraster.read(path)
    np.testing.assert_allclose(got["xyz"], ref, rtol=1e-6, atol=1e-6)


def test_read_pcd_matches_pypcd4(data):
    from pypcd4 import PointCloud
    path = data / "pcd/pcl_logo.pcd"
    pc = PointCloud.from_path(path)
    ref = np.stack([pc.pc_data["x"], pc.pc_data["y"], pc.pc_data["z"]], axis=1).astype(np.float64)
    ref = ref[np.isfinite(ref).all(axis=1)]
    got = pointraster.read(path)
    np.testing.assert_allclose(got["xyz"], ref, rtol=1e-6, atol=1e-6)


def test_read_e57_matches_pye57(data):
    import pye57
    path = data / "e57/A4.e57"
    e = pye57.E57(str(path))
    refs = []
    for k in range(e.scan_count):
        s = e.read_scan(k, ignore_missing_fields=True, transform=True)
        refs.append(np.stack([s["cartesianX"], s["cartesianY"], s["cartesianZ"]], axis=1))
    ref = np.concatenate(refs)
    got = pointraster.read(path)
    assert got["xyz"].shape == ref.shape
    a, = sort_rows(got["xyz"])
    b, = sort_rows(ref)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-3)


def test_max_points(data):
    for name in ("las/autzen_trim.las", "laz/autzen_trim.laz", "laz/lone-star.copc.laz"):
        got = pointraster.read(data / name, max_points=1000)
        assert 0 < len(got["xyz"]) <= 1000


def copc_box(data):
    path = data / "laz/lone-star.copc.laz"
    las = laspy.read(path)
    xyz = las_xyz(las)
    scale, offset = np.asarray(las.header.scales), np.asarray(las.header.offsets)
    # Edges halfway between two steps of the file's grid: no point sits on one.
    def edge(v):
        return offset + (np.round((v - offset) / scale) + 0.5) * scale
    lo, hi = edge(xyz.min(axis=0) - scale), edge(xyz.max(axis=0))
    mid = edge((lo + hi) / 2)
    box = [lo[0], lo[1], lo[2], mid[0], mid[1], hi[2]]
    return path, xyz, box, scale.max()


def test_bounds_and_resolution_on_copc(data):
    path, xyz, box, scale = copc_box(data)
    inside = ((xyz >= np.asarray(box[:3])) & (xyz <= np.asarray(box[3:]))).all(axis=1)
    fine = pointraster.read(path, bounds=box, resolution=1e-6)
    coarse = pointraster.read(path, bounds=box, resolution=1e6)
    for got in (fine, coarse):
        p = got["xyz"]
        assert ((p >= np.asarray(box[:3])) & (p <= np.asarray(box[3:]))).all()
    assert 0 < len(coarse["xyz"]) < len(fine["xyz"])
    a, = sort_rows(fine["xyz"])
    b, = sort_rows(xyz[inside])
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=0, atol=0.5 * scale)


def test_url_read_matches_file(data, nginx):
    name = "laz/lone-star.copc.laz"
    whole = pointraster.read(data / name)
    got = pointraster.read(f"{nginx}/{name}")
    a, = sort_rows(got["xyz"])
    b, = sort_rows(whole["xyz"])
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)
    _, xyz, box, _ = copc_box(data)
    part = pointraster.read(f"{nginx}/{name}", bounds=box, resolution=1e6)
    assert 0 < len(part["xyz"]) < len(xyz)
    assert pointraster.info(f"{nginx}/{name}")["points"] == len(xyz)
    assert 0 < len(pointraster.read(f"{nginx}/{name}", max_points=1000)["xyz"]) <= 1000
    with pytest.raises(OSError, match="404|not found|Not Found"):
        pointraster.read(f"{nginx}/laz/no-such-file.copc.laz")


@pytest.mark.parametrize("name", ["las/autzen_trim.las", "laz/lone-star.copc.laz",
                                  "ply/simple_binary.ply", "e57/A4.e57"])
def test_info_equals_command_line(data, name):
    path = data / name
    out = subprocess.run([str(pointraster_bin()), "--info", "--json", str(path)], check=True,
                         capture_output=True, text=True).stdout
    ref = json.loads(out.splitlines()[0])
    got = pointraster.info(path)
    ref.pop("seconds")
    got.pop("seconds")
    assert got == ref


def test_convert_to_copc(data, tmp_path):
    src = data / "las/autzen_trim.las"
    out = tmp_path / "out.copc.laz"
    seen = []
    result = pointraster.convert(out, src, progress=lambda f: seen.append(f))
    ref = laspy.read(src)
    back = laspy.read(out)
    assert result["points"] == len(ref.x) == len(back.x)
    a, = sort_rows(las_xyz(back))
    b, = sort_rows(las_xyz(ref))
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
    assert seen and seen[-1] == 1.0 and all(x <= y for x, y in zip(seen, seen[1:]))
    assert pointraster.info(out)["copc"]["levels"]
    # copclib walks the octree the converter wrote: its nodes hold every point, inside their cubes.
    import copclib
    reader = copclib.FileReader(str(out))
    assert sum(n.point_count for n in reader.GetAllNodes()) == len(ref.x)
    assert reader.ValidateSpatialBounds()
    with laspy.CopcReader.open(out) as copc:
        assert len(copc.query()) == len(ref.x)


def test_convert_scene(tmp_path):
    out = tmp_path / "scene.las"
    result = pointraster.convert(out, [], scene="terrain", points=5000)
    assert result["points"] == len(laspy.read(out).x) > 0


def test_convert_cancelled_by_progress(data, tmp_path):
    out = tmp_path / "cancel.copc.laz"
    with pytest.raises(OSError, match="cancelled"):
        pointraster.convert(out, data / "las/autzen_trim.las", progress=lambda f: False)
    assert not out.exists()

    def boom(f):
        raise KeyError("stop")
    with pytest.raises(KeyError):
        pointraster.convert(out, data / "las/autzen_trim.las", progress=boom)
    assert not out.exists()


def test_bad_inputs_raise(data, tmp_path):
    with pytest.raises(OSError, match="nothing-here.las"):
        pointraster.read(tmp_path / "nothing-here.las")
    with pytest.raises(OSError):
        pointraster.info(tmp_path / "nothing-here.laz")
    with pytest.raises(ValueError, match="bounds"):
        pointraster.read(data / "laz/lone-star.copc.laz", bounds=(1, 2, 3))
    with pytest.raises(ValueError, match="bounds"):
        pointraster.read(data / "laz/lone-star.copc.laz", bounds=(1, 2, 3, 0, 0, 0))
    with pytest.raises(ValueError, match="resolution"):
        pointraster.read(data / "laz/lone-star.copc.laz", resolution=-1)
    with pytest.raises(OSError, match="resolution"):
        pointraster.read(data / "las/simple.las", resolution=1.0)
    with pytest.raises(OSError):
        pointraster.read("http://127.0.0.1:1/none.copc.laz")
    with pytest.raises(ValueError):
        pointraster.convert(tmp_path / "x.copc.laz", data / "las/simple.las", no_such_option=1)
    with pytest.raises(OSError):
        pointraster.convert(tmp_path / "x.copc.laz", tmp_path / "missing.las")


def test_vpc_survey_whole_and_by_box(data, tmp_path):
    tiles = [data / "laz/lone-star.copc.laz", data / "laz/simple.copc.laz"]
    items = ",".join(
        '{"type": "Feature", "stac_version": "1.0.0", "id": "t%d", "properties": {}, '
        '"assets": {"data": {"href": "%s", "roles": ["data"]}}}' % (k, t)
        for k, t in enumerate(tiles))
    vpc = tmp_path / "survey.vpc"
    vpc.write_text('{"type": "FeatureCollection", "features": [%s]}' % items)
    whole = pointraster.read(vpc)
    assert len(whole["xyz"]) == sum(len(laspy.read(t).x) for t in tiles)
    assert "intensity" in whole and "classification" in whole
    _, _, box, _ = copc_box(data)
    part = pointraster.read(vpc, bounds=box)
    alone = pointraster.read(tiles[0], bounds=box, resolution=1e-6)
    a, = sort_rows(part["xyz"])
    b, = sort_rows(alone["xyz"])
    np.testing.assert_array_equal(a, b)


def test_folder_of_copc_files_reads_as_a_survey(data, tmp_path):
    tiles = [data / "laz/lone-star.copc.laz", data / "laz/simple.copc.laz"]
    for t in tiles:
        (tmp_path / t.name).symlink_to(t)
    got = pointraster.read(tmp_path)
    assert len(got["xyz"]) == sum(len(laspy.read(t).x) for t in tiles)
    assert got["info"]["points"] == len(got["xyz"])
    coarse = pointraster.read(tmp_path, resolution=1e6)
    assert 0 < len(coarse["xyz"]) < len(got["xyz"])


def test_read_ept_matches_its_las(data):
    got = pointraster.read(data / "ept/1.2-with-color/ept.json")
    las = laspy.read(data / "las/1.2-with-color.las")
    a, = sort_rows(got["xyz"])
    b, = sort_rows(las_xyz(las))
    np.testing.assert_allclose(a, b, rtol=0, atol=0.5 * np.asarray(las.header.scales).max())


def test_read_ept_over_http_and_by_box(data, nginx):
    """An EPT dataset reads alike from its folder, its ept.json and its URL; a box reads the
    points inside it (at full detail), a resolution fewer."""
    name = "ept/lone-star-laszip"
    whole = pointraster.read(data / name)
    a, = sort_rows(whole["xyz"])
    for src in (data / name / "ept.json", f"{nginx}/{name}/ept.json", f"{nginx}/{name}/"):
        got = pointraster.read(src)
        b, = sort_rows(got["xyz"])
        np.testing.assert_array_equal(a, b)
        assert got["info"]["points"] == len(a)
    lo, hi = a.min(axis=0), a.max(axis=0)
    box = tuple(lo) + tuple(lo + 0.5 * (hi - lo))
    inside = np.all((a >= lo) & (a <= np.asarray(box[3:])), axis=1)
    for src in (data / name, f"{nginx}/{name}/ept.json"):
        part = pointraster.read(src, bounds=box)
        c, = sort_rows(part["xyz"])
        np.testing.assert_array_equal(c, a[inside])
        coarse = pointraster.read(src, resolution=1e6)
        assert 0 < len(coarse["xyz"]) < len(a)


def test_read_text_formats_match_numpy(data):
    ref = np.loadtxt(data / "text/data.xyz")
    got = pointraster.read(data / "text/data.xyz")
    np.testing.assert_allclose(got["xyz"], ref[:, :3], rtol=0, atol=1e-3)
    # PTS: a count line, then x y z intensity r g b.
    pts = np.loadtxt(data / "pts/test.pts", skiprows=1)
    got = pointraster.read(data / "pts/test.pts")
    np.testing.assert_allclose(got["xyz"], pts[:, :3], rtol=0, atol=1e-5)
    np.testing.assert_array_equal(got["rgb"], pts[:, 4:7].astype(np.uint8))
