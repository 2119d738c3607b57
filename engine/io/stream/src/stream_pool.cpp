#include "stream_pool.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/parallel.h"

namespace pr {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Copies src[from, from + count) to dst[at...] when the node has the array, else `missing`.
template <class V>
void copy_array(V& dst, const V& src, size_t from, size_t count, size_t at,
                typename V::value_type missing = {}) {
  if (dst.empty()) return;
  if (src.size() >= from + count)
    std::memcpy(dst.data() + at, src.data() + from, count * sizeof(typename V::value_type));
  else
    std::fill(dst.begin() + long(at), dst.begin() + long(at + count), missing);
}

}  // namespace

float field_no_data(const FieldInfo& field) {
  return field.has_no_data ? float(field.no_data) : kNaN;
}

void StreamPool::allocate(uint64_t point_budget, uint32_t slot_align, const glm::dvec3& origin,
                          bool attributes, const std::vector<FieldInfo>& fields,
                          const std::string& name) {
  align_ = std::max<uint32_t>(slot_align, 1);
  per_slot_ = align_ % 8 == 0 ? 8 : 1;
  granule_ = align_ / per_slot_;
  const uint64_t base = (point_budget + align_ - 1) / align_;
  slot_count_ = base + base / 8 + 16;
  extent_ = 0;
  cloud_ = PointCloud();
  cloud_.name = name;
  cloud_.origin = origin;
  // Room for the capacity, untouched: pages are written only as the extent grows.
  const size_t cap = size_t(slot_count_ * align_);
  cloud_.positions.reserve(cap);
  cloud_.colors.reserve(cap);
  if (attributes) {
    cloud_.intensity.reserve(cap);
    cloud_.classification.reserve(cap);
    cloud_.returns.reserve(cap);
    cloud_.point_source.reserve(cap);
    cloud_.gps_time.reserve(cap);
  }
  attributes_ = attributes;
  no_data_.clear();
  for (const FieldInfo& f : fields) {
    cloud_.fields.push_back(ScalarField{f.name, {}});
    cloud_.fields.back().values.reserve(cap);
    no_data_.push_back(field_no_data(f));
  }
  free_mask_.assign(size_t(slot_count_), uint8_t((1u << per_slot_) - 1));
  whole_.clear();
  partial_.clear();
  for (uint32_t i = 0; i < slot_count_; ++i) whole_.insert(whole_.end(), i);
  free_granules_ = slot_count_ * per_slot_;
  changed_.clear();
  // One slot to begin with: a cloud that is never empty can have its colors set aside
  // (engine/colorize.h's set_display_colors(): an empty `file_colors` means none are).
  fresh_.clear();
  extend(1);
  flush();
  changed_.clear();
}

bool StreamPool::add_field(const FieldInfo& field) {
  if (cloud_.field(field.name)) return false;
  const size_t cap = size_t(slot_count_ * align_);
  cloud_.fields.push_back(ScalarField{field.name, {}});
  no_data_.push_back(field_no_data(field));
  // The points so far are those of tiles without it (a tile's nodes are read once it is open).
  PodVector<float>& v = cloud_.fields.back().values;
  v.reserve(cap);
  v.resize(size_t(extent_ * align_));
  std::fill(v.begin(), v.end(), no_data_.back());
  return true;
}

bool StreamPool::add_attributes() {
  if (attributes_) return false;
  attributes_ = true;
  const size_t cap = size_t(slot_count_ * align_), n = size_t(extent_ * align_);
  const auto zeros = [&](auto& v) {
    v.reserve(cap);
    v.resize(n);
    std::fill(v.begin(), v.end(), typename std::decay_t<decltype(v)>::value_type{});
  };
  zeros(cloud_.intensity);
  zeros(cloud_.classification);
  zeros(cloud_.returns);
  zeros(cloud_.point_source);
  zeros(cloud_.gps_time);
  return true;
}

void StreamPool::extend(uint64_t slots) {
  if (slots <= extent_) return;
  const size_t to = size_t(slots * align_);
  const size_t cap = size_t(slot_count_ * align_);
  // The arrays grow without a write (PodVector's elements are default-initialized): the new
  // granules are written once, by flush(), on every core; a first write to fresh pages costs
  // several times one to pages already there.
  const auto grow = [&](auto& v) {
    if (v.capacity() < cap) v.reserve(cap);
    v.resize(to);
  };
  grow(cloud_.positions);
  grow(cloud_.colors);
  if (!cloud_.file_colors.empty()) grow(cloud_.file_colors);
  if (attributes_) {
    grow(cloud_.intensity);
    grow(cloud_.classification);
    grow(cloud_.returns);
    grow(cloud_.point_source);
    grow(cloud_.gps_time);
  }
  for (ScalarField& f : cloud_.fields) grow(f.values);
  for (uint64_t g = extent_ * per_slot_; g < slots * per_slot_; ++g) {
    changed_.push_back(uint32_t(g));
    fresh_.push_back(uint32_t(g));
  }
  extent_ = slots;
}

void StreamPool::clear_granule(uint32_t granule, size_t from, bool copied) {
  const size_t at = size_t(granule) * granule_, end = at + granule_;
  const auto fill = [&](auto& v, size_t first, auto value) {
    if (!v.empty()) std::fill(v.begin() + long(at + first), v.begin() + long(end), value);
  };
  // A copy wrote the positions whole and the file's colors where the pool keeps them; the
  // displayed colors beside `file_colors` are the caller's to set, zeros until then.
  if (!copied) fill(cloud_.positions, from, Float3{kNaN, kNaN, kNaN});
  fill(cloud_.colors, cloud_.file_colors.empty() ? from : 0, 0u);
  fill(cloud_.file_colors, from, 0u);
  fill(cloud_.intensity, from, 0.0f);
  fill(cloud_.classification, from, uint8_t{0});
  fill(cloud_.returns, from, uint8_t{0});
  fill(cloud_.point_source, from, uint16_t{0});
  fill(cloud_.gps_time, from, 0.0);
  for (size_t k = 0; k < cloud_.fields.size(); ++k)
    fill(cloud_.fields[k].values, from, no_data_[k]);
}

void StreamPool::copy_granule(const PointCloud& node, size_t from, size_t count, uint32_t granule) {
  const size_t at = size_t(granule) * granule_;
  std::memcpy(cloud_.positions.data() + at, node.positions.data() + from, count * sizeof(Float3));
  std::fill(cloud_.positions.begin() + long(at + count),
            cloud_.positions.begin() + long(at + granule_), Float3{kNaN, kNaN, kNaN});
  // The file's colors go where the pool keeps them: `file_colors` while the caller shows
  // another color mode (it colors the changed ranges of `colors` itself).
  const PodVector<uint32_t>& colors = node.source_colors();
  PodVector<uint32_t>& dst = cloud_.file_colors.empty() ? cloud_.colors : cloud_.file_colors;
  if (colors.size() >= from + count)
    std::memcpy(dst.data() + at, colors.data() + from, count * sizeof(uint32_t));
  else
    std::fill(dst.begin() + long(at), dst.begin() + long(at + count), rgba(255, 255, 255));
  copy_array(cloud_.intensity, node.intensity, from, count, at);
  copy_array(cloud_.classification, node.classification, from, count, at);
  copy_array(cloud_.returns, node.returns, from, count, at);
  copy_array(cloud_.point_source, node.point_source, from, count, at);
  copy_array(cloud_.gps_time, node.gps_time, from, count, at);
  for (size_t k = 0; k < cloud_.fields.size(); ++k) {
    ScalarField& f = cloud_.fields[k];
    const ScalarField* own = node.field(f.name);
    copy_array(f.values, own ? own->values : PodVector<float>(), from, count, at, no_data_[k]);
  }
}

bool StreamPool::take_slot(std::vector<uint32_t>& out) {
  if (whole_.empty()) return false;
  const uint32_t slot = *whole_.begin();
  whole_.erase(whole_.begin());
  free_mask_[slot] = 0;
  free_granules_ -= per_slot_;
  for (uint32_t k = 0; k < per_slot_; ++k) out.push_back(slot * per_slot_ + k);
  return true;
}

void StreamPool::take_granules(size_t count, std::vector<uint32_t>& out) {
  const uint8_t full = uint8_t((1u << per_slot_) - 1);
  while (count > 0) {
    if (partial_.empty()) {
      // Split the lowest wholly free slot (the caller checked that enough granules are free).
      const uint32_t slot = *whole_.begin();
      whole_.erase(whole_.begin());
      partial_.insert(slot);
    }
    const uint32_t slot = *partial_.begin();
    uint8_t& mask = free_mask_[slot];
    for (uint32_t k = 0; k < per_slot_ && count > 0; ++k)
      if (mask & (1u << k)) {
        mask = uint8_t(mask & ~(1u << k));
        out.push_back(slot * per_slot_ + k);
        --free_granules_;
        --count;
      }
    if (mask == 0 || mask == full) partial_.erase(slot);
  }
}

bool StreamPool::fits_in_extent(uint64_t granules) const {
  // Slots past the extent are all wholly free; partly free slots all lie inside it. insert()
  // takes whole slots first (the lowest free), then granules of partly free slots.
  const uint64_t whole_inside = whole_.size() - (slot_count_ - extent_);
  const uint64_t partial_free = free_granules_ - whole_.size() * per_slot_;
  const uint64_t slots = per_slot_ > 1 ? granules / per_slot_ : 0;
  if (slots > whole_inside) return false;
  return granules - slots * per_slot_ <= partial_free + (whole_inside - slots) * per_slot_;
}

bool StreamPool::insert(const PointCloud& node, std::vector<uint32_t>& taken) {
  const size_t n = node.size();
  const size_t need = (n + granule_ - 1) / granule_;
  if (need > free_granules_) return false;
  if (need == 0) return true;
  std::vector<uint32_t> granules;
  granules.reserve(need);
  // Whole slots for whole slot_align runs of points, granules for the rest.
  size_t left = need;
  while (left >= per_slot_ && per_slot_ > 1 && take_slot(granules)) left -= per_slot_;
  take_granules(left, granules);
  // Slots are taken lowest first: the cloud grows to the highest one taken.
  const uint32_t top = *std::max_element(granules.begin(), granules.end());
  extend(uint64_t(top / per_slot_) + 1);
  for (size_t k = 0; k < granules.size(); ++k) {
    const size_t from = k * granule_;
    copies_.push_back({&node, from, std::min<size_t>(granule_, n - from), granules[k], false});
    changed_.push_back(granules[k]);
  }
  taken.insert(taken.end(), granules.begin(), granules.end());
  return true;
}

void StreamPool::flush() {
  // Granules of 512 points (32 bytes each with the attributes): a thread takes 64 at a time. A
  // fresh granule (one the pool grew by) that a copy fills gets the rest of its points cleared
  // after the copy; one that no copy fills is cleared whole.
  std::sort(fresh_.begin(), fresh_.end());
  std::vector<uint8_t> copied(fresh_.size(), 0);
  for (Copy& c : copies_) {
    const auto it = std::lower_bound(fresh_.begin(), fresh_.end(), c.granule);
    c.fresh = it != fresh_.end() && *it == c.granule;
    if (c.fresh) copied[size_t(it - fresh_.begin())] = 1;
  }
  std::vector<uint32_t> clear;
  for (size_t k = 0; k < fresh_.size(); ++k)
    if (!copied[k]) clear.push_back(fresh_[k]);
  const size_t jobs = copies_.size() + clear.size();
  const auto run = [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      if (i >= copies_.size()) {
        clear_granule(clear[i - copies_.size()], 0, false);
        continue;
      }
      const Copy& c = copies_[i];
      copy_granule(*c.node, c.from, c.count, c.granule);
      if (c.fresh) clear_granule(c.granule, c.count, /*copied=*/true);
    }
  };
  if (jobs >= 256)
    parallel_for(jobs, run, 0, 64);
  else
    run(0, jobs);
  copies_.clear();
  fresh_.clear();
}

void StreamPool::remove(const std::vector<uint32_t>& granules) {
  const uint8_t full = uint8_t((1u << per_slot_) - 1);
  for (uint32_t g : granules) {
    const size_t at = size_t(g) * granule_;
    std::fill(cloud_.positions.begin() + long(at), cloud_.positions.begin() + long(at + granule_),
              Float3{kNaN, kNaN, kNaN});
    const uint32_t slot = g / per_slot_;
    free_mask_[slot] = uint8_t(free_mask_[slot] | (1u << (g % per_slot_)));
    ++free_granules_;
    if (free_mask_[slot] == full) {
      partial_.erase(slot);
      whole_.insert(slot);
    } else {
      partial_.insert(slot);
    }
    changed_.push_back(g);
  }
}

std::vector<PoolRange> StreamPool::take_changes() {
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  // Ranges less than kMergeGap points apart are merged: the points between them are handed over
  // again unchanged, which costs less than another upload call (and a box pass) on the GPU; a
  // pool of scattered small changes (a flight evicting and taking many nodes) would otherwise
  // make thousands of ranges a frame.
  constexpr uint64_t kMergeGap = 1u << 16;
  std::vector<PoolRange> ranges;
  for (uint32_t g : changed_) {
    const uint64_t first = uint64_t(g) * granule_;
    if (!ranges.empty() && ranges.back().first + ranges.back().count + kMergeGap >= first)
      ranges.back().count = first + granule_ - ranges.back().first;
    else
      ranges.push_back({first, granule_});
  }
  changed_.clear();
  return ranges;
}

}  // namespace pr
