// Measurements in the viewer (measure_panel.cpp): a tool (distance, height, angle, area, circle,
// volume) takes the points the pick finds (pick_panel.h) as its vertices; the tools of a fixed
// number of points finish by themselves, a polyline or polygon on Enter, a double click or the
// Finish button; Esc cancels. Each measurement is drawn over the image and listed in the panel's
// Measurements section, where it can be copied, hidden, deleted and exported with the others.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/measure.h"
#include "viewer/panel_marks.h"
#include "viewer/pick_panel.h"
#include "viewer/status_line.h"

namespace pr {

/// A measurement that reads the cloud (point, box, volume) on a thread of its own, so that the
/// frames go on while a large cloud is measured; the cloud's positions must not change in place
/// while it runs (reads()).
class MeasureJob {
 public:
  MeasureJob() = default;
  ~MeasureJob() {
    if (thread_.joinable()) thread_.join();
  }
  MeasureJob(const MeasureJob&) = delete;
  MeasureJob& operator=(const MeasureJob&) = delete;
  /// Starts measuring; refused (false) while one runs.
  bool start(MeasureKind kind, std::vector<glm::dvec3> points,
             std::shared_ptr<const PointCloud> cloud, const MeasureParams& params);
  bool busy() const { return thread_.joinable(); }
  bool reads(const PointCloud* cloud) const { return busy() && cloud_ == cloud; }
  /// When it has finished: joins and hands over its measurement (ok) or its message (once).
  bool take(bool* ok, Measurement* m, std::string* error);

 private:
  std::thread thread_;
  std::atomic<bool> done_{false};
  const PointCloud* cloud_ = nullptr;
  bool ok_ = false;
  Measurement result_;
  std::string error_;
};

struct MeasureState {
  bool active = false;  ///< a tool is chosen (else clicks only pick A and B)
  MeasureKind tool = MeasureKind::kDistance;
  std::vector<glm::dvec3> pending;  ///< the vertices of the measurement under way
  bool finish_after_pick = false;   ///< a double click: finish once its pick lands
  uint64_t seen_picks = 0;          ///< PickState::picked when last looked at
  /// Volume: the base (auto: the mean height of the polygon's vertices), the cell size (0:
  /// the polygon box's side / 200) and how a cell takes its height.
  bool auto_base = true;
  double base = 0.0, cell = 0.0;
  CellHeight height = CellHeight::kMean;
  struct Item {
    Measurement m;
    bool visible = true;
  };
  std::vector<Item> items;
  char export_path[512] = "measurements.geojson";
  MeasureJob job;  ///< a point, box or volume being measured

  /// Chooses the tool (`on` false: none); the measurement under way is dropped.
  void choose(bool on, MeasureKind kind);
  /// Each frame: a measurement the job finished is listed; a pick that landed since is the next
  /// vertex of the tool's measurement; a tool of a fixed number of points finishes when it has
  /// them.
  void update(const PickState& picks, const PickFrame& frame, StatusLine& status);
  /// A left click on the image (`double_click`: its second press finishes a polyline or polygon
  /// once its pick lands).
  void clicked(bool double_click);
  /// Measures the vertices under way (Enter, the Finish button; a volume on the job's thread);
  /// false with the reason in the status line.
  bool finish(const PickFrame& frame, StatusLine& status);
  /// Esc: drops the measurement under way; false when there was none.
  bool cancel();
  /// Writes every measurement to `path` (.geojson or .csv); false with the reason in `status`.
  bool export_all(const std::string& path, StatusLine& status) const;
  /// The measurements drawn over the image (ImGui's background draw list, clipped to the image).
  void draw_marks(const PickFrame& frame, float ui_scale);
  /// The panel's Measurements section.
  void draw_section(const PickFrame& frame, PanelMarks& marks, StatusLine& status);
};

}  // namespace pr
