// The measurements' export and lines (app/measure_export.h): GeoJSON parsed back with
// nlohmann-json, CSV fields quoted where they must be, the --measure line, and the suffixes.
#include "measure_export.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

pr::Measurement distance() {
  pr::Measurement m;
  std::string err;
  EXPECT_TRUE(pr::evaluate_measurement(
      pr::MeasureKind::kDistance, {{636594.25, 5412310.5, 210.0}, {636597.25, 5412314.5, 210.0}},
      nullptr, pr::MeasureParams{}, &m, &err));
  return m;
}

pr::Measurement circle() {
  pr::Measurement m;
  std::string err;
  EXPECT_TRUE(pr::evaluate_measurement(pr::MeasureKind::kCircle, {{1, 0, 5}, {0, 1, 5}, {-1, 0, 5}},
                                       nullptr, pr::MeasureParams{}, &m, &err));
  return m;
}

TEST(MeasureExport, GeoJsonHoldsTheGeometryAndTheValues) {
  const nlohmann::json doc =
      nlohmann::json::parse(pr::measurements_geojson({distance(), circle()}));
  EXPECT_EQ(doc["type"], "FeatureCollection");
  ASSERT_EQ(doc["features"].size(), 2u);
  const auto& d = doc["features"][0];
  EXPECT_EQ(d["geometry"]["type"], "LineString");
  EXPECT_EQ(d["geometry"]["coordinates"][1][0].get<double>(), 636597.25);  // doubles kept whole
  EXPECT_EQ(d["geometry"]["coordinates"][1][1].get<double>(), 5412314.5);
  EXPECT_EQ(d["properties"]["kind"], "distance");
  EXPECT_EQ(d["properties"]["id"], 1);
  EXPECT_DOUBLE_EQ(d["properties"]["3d"].get<double>(), 5.0);
  EXPECT_EQ(d["properties"]["segments_3d"].size(), 1u);
  const auto& c = doc["features"][1];
  EXPECT_EQ(c["geometry"]["type"], "Point");  // at the centre
  EXPECT_NEAR(c["geometry"]["coordinates"][2].get<double>(), 5.0, 1e-12);
  EXPECT_EQ(c["properties"]["points"].size(), 3u);
  EXPECT_EQ(c["properties"]["center"].size(), 3u);
}

TEST(MeasureExport, CsvRowsAndQuoting) {
  pr::Measurement p;
  p.kind = pr::MeasureKind::kPoint;
  p.points = {{1, 2, 3}};
  p.values.push_back({"index", {7}, false});
  p.attributes = {{"class", "2 ground"}, {"note", "a, \"b\""}};
  const std::string csv = pr::measurements_csv({distance(), p});
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "id,kind,quantity,value,x,y,z");
  std::getline(in, line);
  EXPECT_EQ(line, "1,distance,3d,5,,,");
  EXPECT_NE(csv.find("1,distance,segments_3d,5,,,\n"), std::string::npos);  // a list of one
  EXPECT_NE(csv.find("1,distance,vertex[2],,636597.25,5412314.5,210\n"), std::string::npos);
  EXPECT_NE(csv.find("2,point,index,7,,,\n"), std::string::npos);
  EXPECT_NE(csv.find("2,point,class,2 ground,,,\n"), std::string::npos);
  EXPECT_NE(csv.find("2,point,note,\"a, \"\"b\"\"\",,,\n"), std::string::npos) << csv;
}

TEST(MeasureExport, LineAndFormats) {
  EXPECT_EQ(pr::measurement_line(distance()),
            "measure distance 3d=5 horizontal=5 height=0 segments_3d=5 segments_horizontal=5");
  pr::Measurement p;
  p.kind = pr::MeasureKind::kPoint;
  p.values.push_back({"position", {1.5, -2, 0.1}, true});
  p.attributes = {{"point source", "7"}, {"class", "2 ground"}};
  EXPECT_EQ(pr::measurement_line(p),
            "measure point position=1.5,-2,0.1 point_source=7 class=\"2 ground\"");
  EXPECT_EQ(pr::measure_export_format("a.GeoJSON"), pr::MeasureFormat::kGeoJson);
  EXPECT_EQ(pr::measure_export_format("a.json"), pr::MeasureFormat::kGeoJson);
  EXPECT_EQ(pr::measure_export_format("a.csv"), pr::MeasureFormat::kCsv);
  EXPECT_EQ(pr::measure_export_format("a.txt"), pr::MeasureFormat::kNone);
  std::string err;
  EXPECT_FALSE(pr::write_measurements("/nonexistent-dir/m.csv", {distance()}, &err));
  EXPECT_EQ(err, "/nonexistent-dir/m.csv: cannot be written");
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("pr_measure_" + std::to_string(getpid()) + ".csv");
  ASSERT_TRUE(pr::write_measurements(out.string(), {distance()}, &err)) << err;
  std::ifstream f(out);
  std::string head;
  std::getline(f, head);
  EXPECT_EQ(head, "id,kind,quantity,value,x,y,z");
  std::filesystem::remove(out);
}

}  // namespace
