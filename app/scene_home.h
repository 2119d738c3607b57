// Where a procedural scene is made: on the host (make_scene(), every renderer), or on the GPU
// (GpuRenderer::generate_scene(): clouds the host cannot hold, terrain and cube only), or nowhere,
// with one line saying why, before any memory is taken.
#pragma once

#include <cstdint>
#include <string>

namespace pr {

/// Bytes of host memory a host scene of `n` points takes: float xyz and RGBA (16 a point).
constexpr uint64_t kSceneHostBytesPerPoint = 16;

/// The host's available memory (MemAvailable of /proc/meminfo), or 0 when unknown.
uint64_t host_memory_available();

enum class SceneHome : uint8_t { kHost, kDevice, kNone };

/// Where `n` points of scene `name` are made for `mode` ("cpu" or "gpu") with `available` bytes
/// of host memory (0: unknown, taken as enough): the host while the cloud fits its memory and a
/// 32-bit point index (fewer than 2^32 - 1 points); else the GPU for the scenes it makes
/// ("terrain", "cube") in GPU mode; else nowhere, with the reason in `why` (the bytes needed and
/// available, and what would work).
SceneHome scene_home(const std::string& name, uint64_t n, const std::string& mode,
                     uint64_t available, std::string* why);

/// Points of the even subset (make_scene_subset()) the viewer keeps on the host of a scene made on
/// the GPU: what the CPU renderer draws, and picks, measurements and profiles read.
constexpr uint64_t kDeviceSceneHostPoints = 10'000'000;

/// "1.6 GB", "160 GB": bytes in decimal units for messages.
std::string gigabytes(uint64_t bytes);

}  // namespace pr
