// The front header of io: reading point-cloud files whole (engine/io/load.h), what a file holds
// (engine/io/file_info.h), LAZ records decompressed (engine/io/laz.h) and the writers of the
// tests and benchmarks (engine/io/write.h). Streaming (engine/io/stream.h), COPC node by node
// (engine/io/copc.h) and conversion (engine/io/convert.h) have headers of their own.
#pragma once

#include "engine/io/file_info.h"
#include "engine/io/laz.h"
#include "engine/io/load.h"
#include "engine/io/write.h"
