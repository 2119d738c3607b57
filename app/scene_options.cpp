// The scene options of the command line (scene_options.h).
#include "scene_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "engine/io/ept.h"
#include "option_fields.h"
#include "options.h"

namespace pr {

namespace {

using cli::bad;
using cli::split;

/// `n` finite numbers separated by commas, the whole of `v`.
bool numbers(const std::string& v, size_t n, double* out) {
  const std::vector<std::string> f = split(v, ',');
  if (f.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (!cli::number(f[i], &out[i])) return false;
  return true;
}

}  // namespace

bool is_scene_file(const std::string& path) {
  if (path.size() < 5) return false;
  // An EPT dataset's description (ept.json, engine/io/ept.h) is a point cloud, not a scene.
  if (!ept_json_of(path).empty()) return false;
  std::string tail = path.substr(path.size() - 5);
  for (char& c : tail) c = char(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".json";
}

bool parse_annotation(const std::string& v, Annotation* out, std::string* error) {
  const std::vector<std::string> f = split(v, ';');
  const std::string shape = "expected TITLE;TEXT;X,Y,Z[;X,Y,Z,YAW,PITCH], got '" + v + "'";
  if (f.size() != 3 && f.size() != 4) {
    *error = "option --annotation: " + shape;
    return false;
  }
  if (f[0].empty()) {
    *error = "option --annotation: the title is empty in '" + v + "'";
    return false;
  }
  Annotation a;
  a.title = f[0];
  a.text = f[1];
  double p[3], c[5];
  if (!numbers(f[2], 3, p)) {
    *error = "option --annotation: '" + f[2] + "' is not X,Y,Z (three finite numbers)";
    return false;
  }
  a.position = glm::dvec3(p[0], p[1], p[2]);
  if (f.size() == 4) {
    if (!numbers(f[3], 5, c)) {
      *error = "option --annotation: '" + f[3] + "' is not X,Y,Z,YAW,PITCH (five finite numbers)";
      return false;
    }
    a.camera = CameraPose{glm::dvec3(c[0], c[1], c[2]), c[3], c[4]};
  }
  *out = std::move(a);
  return true;
}

void add_scene_options(CLI::App& app, Options& o) {
  app.add_option(
         "--annotation",
         [&o](const CLI::results_t& values) {
           for (const std::string& v : values) {
             Annotation a;
             std::string why;
             if (!parse_annotation(v, &a, &why)) bad(why);
             o.annotations.push_back(std::move(a));
           }
           return true;
         },
         "a title and text at a world point, drawn over the view and listed\n"
         "in the panel (repeatable); clicking it flies to its camera, else\n"
         "to a view of the point")
      ->type_name("TITLE;TEXT;X,Y,Z[;X,Y,Z,YAW,PITCH]")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option(
         "--save-view",
         [&o](const CLI::results_t& values) {
           for (const std::string& v : values) {
             if (!is_scene_file(v)) bad("option --save-view: '" + v + "' does not end in .json");
             o.save_view = v;
           }
           return true;
         },
         "write the scene of these inputs and options (camera, renderer,\n"
         "colors, clip, annotations; docs/SCENE.md) to OUT.json, then exit\n"
         "(with --headless: then render)")
      ->type_name("OUT.json")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void finish_scene_options(Options& o) {
  std::vector<std::string> rest;
  for (const std::string& f : o.files) {
    if (!is_scene_file(f)) {
      rest.push_back(f);
      continue;
    }
    if (!o.scene_file.empty() && o.scene_file != f)
      bad("give one scene file (.json), not '" + o.scene_file + "' and '" + f + "'");
    o.scene_file = f;
  }
  o.files = std::move(rest);
  if (!o.scene_file.empty() && o.info)
    bad("--info describes point-cloud files, not the scene file '" + o.scene_file + "'");
  if (o.save_view.empty()) return;
  if (o.info || !o.convert.empty() || (!o.measures.empty() && !o.measure_show) ||
      !o.profile_line.empty())
    bad(std::string("give either --save-view or ") +
        (o.info               ? "--info"
         : !o.convert.empty() ? "--convert"
         : o.measures.empty() ? "--profile"
                              : "--measure") +
        ", not both");
  if (o.measure_show)
    bad("--save-view writes the scene and exits: --measure-show opens the viewer");
}

}  // namespace pr
