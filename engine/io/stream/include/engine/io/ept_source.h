// EPT datasets (engine/io/ept.h) on disk or on a web server: their files read whole through
// open_byte_source() (a local file, or HTTP range requests).
#pragma once

#include <memory>
#include <string>

#include "engine/io/ept.h"
#include "engine/io/open_byte_source.h"

namespace pr {

/// A fetch that reads a path or an http(s) URL whole through open_byte_source() with `http`
/// (copied; null: the defaults).
EptFetch byte_source_fetch(const HttpOptions* http = nullptr);

/// Opens the EPT dataset of `input` (an ept.json path or URL, or a folder holding ept.json). Null
/// with a one-line message: not an EPT dataset, or ept.json does not open (EptDataset::open).
std::unique_ptr<EptDataset> open_ept(const std::string& input, const HttpOptions* http,
                                     std::string* error);

}  // namespace pr
