// Reading images back, which only the tests do (the program writes images, it never reads them).
#pragma once

#include <string>

#include "engine/image.h"

namespace pr {

/// Reads a PNG (or any format stb_image knows) into RGBA8.
bool read_png(const std::string& path, Image& img, std::string* error);

}  // namespace pr
