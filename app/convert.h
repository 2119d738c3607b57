// --convert: the FILEs, merged, written to OUT as COPC, LAZ or LAS (engine/io/convert.h) on a
// worker thread while the main thread draws the progress bar on stderr; Ctrl-C (SIGINT) or
// SIGTERM cancels, and the conversion leaves no output and no temporary files behind.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/io/convert.h"
#include "options.h"

namespace pr {

/// What --convert prints on stdout after writing `output`: the path, then indented fields
/// (format, points, scale and offset, octree, size, time and rate, and the converter's notes).
std::string convert_report(const std::string& output, const ConvertResult& result, double seconds);

/// The conversion of --convert on the calling thread: the options' FILEs (none: the procedural
/// scene --scene, --points, written z up) into o.convert, with --temp, --memory, --threads and the
/// clip (--clip-box, --clip-polygon). False with a one-line `error` naming the output.
bool convert_from_options(const Options& o, ConvertProgress* progress, ConvertResult* result,
                          std::string* error);

/// What --timings prints after the report: each stage (ConvertProgress::Stage) with the seconds
/// from its start, as the polling saw it, to the next one's, the last to `seconds`.
std::string stage_report(const std::vector<std::pair<int, double>>& stages, double seconds);

/// `pointraster --convert OUT FILE...`: 0 when OUT was written; otherwise one line on stderr and
/// 1, or 128 + the signal's number when SIGINT or SIGTERM cancelled it.
int run_convert(const Options& o);

}  // namespace pr
