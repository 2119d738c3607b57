// The clip's command-line options (clip_options.h).
#include "clip_options.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <vector>

#include "engine/clip_polygon.h"
#include "option_fields.h"
#include "options.h"

namespace pr {

namespace {

using cli::number;

/// The comma-separated fields of `v`.
std::vector<std::string> fields(const std::string& v) {
  return cli::split(v, ',');
}

bool numbers(const std::vector<std::string>& f, size_t n, const std::string& opt, double* out,
             std::string* error) {
  for (size_t i = 0; i < n; ++i)
    if (!number(f[i], &out[i])) {
      *error = "option " + opt + ": '" + f[i] + "' is not a finite number";
      return false;
    }
  return true;
}

}  // namespace

bool parse_clip_box(const std::string& v, ClipBox* out, bool* has_mode, std::string* error) {
  std::vector<std::string> f = fields(v);
  ClipBox b;
  *has_mode = false;
  if (!f.empty() && parse_clip_mode(f.back(), &b.mode)) {
    *has_mode = true;
    f.pop_back();
  }
  if (f.size() != 6 && f.size() != 9) {
    *error =
        "option --clip-box: expected CX,CY,CZ,SX,SY,SZ[,YAW,PITCH,ROLL][,MODE], got '" + v + "'";
    return false;
  }
  double d[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (!numbers(f, f.size(), "--clip-box", d, error)) return false;
  if (!(d[3] > 0.0 && d[4] > 0.0 && d[5] > 0.0)) {
    *error = "option --clip-box: every size must be above zero, got '" + v + "'";
    return false;
  }
  b.centre = glm::dvec3(d[0], d[1], d[2]);
  b.size = glm::dvec3(d[3], d[4], d[5]);
  b.yaw = d[6];
  b.pitch = d[7];
  b.roll = d[8];
  *out = b;
  return true;
}

bool parse_section(const std::string& v, ClipSection* out, std::string* error) {
  const std::vector<std::string> f = fields(v);
  const std::string form = "expected X,Y,Z,NX,NY,NZ,T or x=V,T (or y=, z=), got '" + v + "'";
  if (f.size() == 2 && f[0].size() > 2 && f[0][1] == '=') {
    const char axis = char(f[0][0] | 0x20);
    if (axis != 'x' && axis != 'y' && axis != 'z') {
      *error = "option --section: " + form;
      return false;
    }
    double d[2];
    const std::vector<std::string> nums = {f[0].substr(2), f[1]};
    if (!numbers(nums, 2, "--section", d, error)) return false;
    *out = section_along_axis(axis - 'x', d[0], d[1]);
  } else if (f.size() == 7) {
    double d[7];
    if (!numbers(f, 7, "--section", d, error)) return false;
    ClipSection s;
    s.enabled = true;
    s.point = glm::dvec3(d[0], d[1], d[2]);
    s.normal = glm::dvec3(d[3], d[4], d[5]);
    s.thickness = d[6];
    *out = s;
  } else {
    *error = "option --section: " + form;
    return false;
  }
  if (!(out->thickness > 0.0)) {
    *error = "option --section: the thickness must be above zero, got '" + v + "'";
    return false;
  }
  if (!(glm::dot(out->normal, out->normal) > 0.0)) {
    *error = "option --section: the normal is zero, got '" + v + "'";
    return false;
  }
  return true;
}

void add_clip_options(CLI::App& app, Options& o) {
  auto add = [&app](const std::string& name, const std::string& type, const std::string& help,
                    std::function<void(const std::string&)> set) {
    app.add_option(
           name,
           [set](const CLI::results_t& values) {
             for (const std::string& v : values) set(v);
             return true;
           },
           help)
        ->type_name(type)
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };
  add("--clip-box", "CX,CY,CZ,SX,SY,SZ[,YAW,PITCH,ROLL][,MODE]",
      "a clip box (repeatable): centre and size in world units, angles in\n"
      "degrees (yaw about z, pitch, roll), MODE inside|outside|highlight",
      [&o](const std::string& v) {
        ClipBox b;
        bool has_mode = false;
        std::string error;
        if (!parse_clip_box(v, &b, &has_mode, &error)) throw CLI::ValidationError(error);
        o.clip.boxes.push_back(b);
        o.clip_box_has_mode.push_back(has_mode);
      });
  add("--clip-mode", "inside|outside|highlight",
      "what the --clip-boxes without a MODE do: show their inside\n"
      "(default), show their outside, or tint their inside",
      [&o](const std::string& v) {
        ClipMode m;
        if (!parse_clip_mode(v, &m))
          throw CLI::ValidationError("option --clip-mode: '" + v +
                                     "' is not inside, outside or highlight");
        o.clip_mode = m;
      });
  add("--section", "X,Y,Z,NX,NY,NZ,T|x=V,T",
      "show only a slab of thickness T: through a point with a normal,\n"
      "or across an axis at V (x=, y=, z=)",
      [&o](const std::string& v) {
        std::string error;
        if (!parse_section(v, &o.clip.section, &error)) throw CLI::ValidationError(error);
      });
  add("--clip-polygon", "X,Y;X,Y;...",
      "--convert (and the viewer's Save): only the points inside this\n"
      "polygon in world x, y (a vertical prism), within the clip",
      [&o](const std::string& v) {
        ClipPolygon p;
        std::string error;
        if (!parse_clip_polygon(v, &p, &error))
          throw CLI::ValidationError("option --clip-polygon: " + error);
        o.clip_polygon = p;
      });
}

void finish_clip_options(Options& o) {
  for (size_t i = 0; i < o.clip.boxes.size(); ++i)
    if (i >= o.clip_box_has_mode.size() || !o.clip_box_has_mode[i])
      o.clip.boxes[i].mode = o.clip_mode;
  std::string error;
  if (!validate_clip(o.clip, &error)) throw CLI::ValidationError("option --clip-box: " + error);
}

}  // namespace pr
