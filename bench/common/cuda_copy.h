// The device's own ceiling for streaming work: cudaMemcpy device-to-device bandwidth, measured in
// the same run as the renderers (the benchmark's "fraction of the measured copy bandwidth").
#pragma once

#include <string>

namespace pr {

/// Bytes moved (read + written) per second by a 2 GiB device-to-device cudaMemcpy, median of 10
/// after warm-up, timed with CUDA events. False with the failing call named.
bool measure_copy_bandwidth(double& bytes_per_second, std::string* error);

}  // namespace pr
