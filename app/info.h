#pragma once
#include "options.h"
namespace pr {
/// `pointraster --info [--json] FILE...`: returns 0, or 1 when any file failed.
int run_info(const Options& o);
}  // namespace pr
