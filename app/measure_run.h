// `pointraster --measure KIND X,Y,Z;... [FILE...]`: the measurements on the points loaded (the
// FILEs or the procedural scene), one line each on stdout, optionally written to --measure-out.
#pragma once

#include "options.h"

namespace pr {

/// The measurement parameters of the options: the up axis, --measure-base, --measure-cell and
/// --measure-height.
MeasureParams measure_params(const Options& o, bool from_files);

/// Returns 0, 1 when a FILE cannot be read or --measure-out not written, 2 for a measurement
/// whose input is bad (the one-line message on stderr).
int run_measure(const Options& o);

}  // namespace pr
