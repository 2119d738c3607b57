#pragma once
#include "options.h"
namespace pr {
/// `pointraster --headless ...`: returns the process exit code.
int run_headless(const Options& o);
}  // namespace pr
