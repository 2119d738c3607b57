// `pointraster --profile X,Y,Z;... --profile-width W [FILE...]`: the profile of the points
// loaded (the FILEs or the procedural scene, engine/profile.h), one line on stdout; its points
// written to --profile-out, its view drawn to --profile-image by the --mode renderer.
#pragma once

#include "options.h"

namespace pr {

/// Returns 0, 1 when a FILE cannot be read, a file not written or the renderer fails, 2 for bad
/// input (the one-line message on stderr).
int run_profile(const Options& o);

}  // namespace pr
