// The LAZ chunk layout and the chunk reader: the LASzip VLR's item list, which items and versions
// this decoder reads, and ChunkReader, which makes one decoder per item (the point-wise items of
// laz_items10.h, the layered ones of laz_items14.h) and drives them point by point over one chunk:
// a point-wise chunk's one arithmetic stream, or a layered chunk's header and layers. The stream
// of LASzip 1.x's unchunked compressor is read as one point-wise chunk holding every point.
#include "engine/io/laz/chunk.h"

#include <cstring>

#include "laz_items10.h"
#include "laz_items14.h"

namespace pr::io::laz {

std::string item_name(uint16_t type) {
  switch (type) {
    case kByte:
      return "BYTE";
    case kPoint10:
      return "POINT10";
    case kGpsTime11:
      return "GPSTIME11";
    case kRgb12:
      return "RGB12";
    case kWavePacket13:
      return "WAVEPACKET13";
    case kPoint14:
      return "POINT14";
    case kRgb14:
      return "RGB14";
    case kRgbNir14:
      return "RGBNIR14";
    case kWavePacket14:
      return "WAVEPACKET14";
    case kByte14:
      return "BYTE14";
    default:
      return "item type " + std::to_string(type);
  }
}

bool parse_layout(const uint8_t* p, size_t n, Layout& out, std::string* why) {
  if (n < 34) {
    *why = "the LASzip VLR is " + std::to_string(n) + " bytes, shorter than its 34-byte header";
    return false;
  }
  out = Layout{};
  out.compressor = get_le<uint16_t>(p);
  out.coder = get_le<uint16_t>(p + 2);
  out.version_major = p[4];
  out.version_minor = p[5];
  out.version_revision = get_le<uint16_t>(p + 6);
  out.options = get_le<uint32_t>(p + 8);
  out.chunk_size = get_le<uint32_t>(p + 12);
  const uint16_t count = get_le<uint16_t>(p + 32);
  if (34 + size_t(count) * 6 > n) {
    *why = "the LASzip VLR lists " + std::to_string(count) + " items but holds " +
           std::to_string((n - 34) / 6);
    return false;
  }
  for (uint16_t i = 0; i < count; ++i) {
    const uint8_t* q = p + 34 + 6 * size_t(i);
    Item it{get_le<uint16_t>(q), get_le<uint16_t>(q + 2), get_le<uint16_t>(q + 4)};
    out.items.push_back(it);
    out.record_length += it.size;
  }
  return true;
}

bool supported(const Layout& lo, std::string* why) {
  if (lo.coder != 0) {
    *why = "LAZ coder " + std::to_string(lo.coder) + " is not supported (only arithmetic, 0)";
    return false;
  }
  if (lo.compressor < 1 || lo.compressor > 3) {
    *why = "unknown LAZ compressor " + std::to_string(lo.compressor);
    return false;
  }
  if (lo.items.empty()) {
    *why = "the LASzip VLR lists no items";
    return false;
  }
  const bool layered = lo.compressor == 3;
  for (size_t i = 0; i < lo.items.size(); ++i) {
    const Item& it = lo.items[i];
    const std::string name = item_name(it.type) + " version " + std::to_string(it.version);
    bool ok = false;
    uint16_t want = 0;  // the fixed size, 0 for BYTE items
    if (!layered) {
      const bool v12 = it.version == 1 || it.version == 2;
      switch (it.type) {
        case kPoint10:
          ok = v12 && i == 0, want = 20;
          break;
        case kGpsTime11:
          ok = v12, want = 8;
          break;
        case kRgb12:
          ok = v12, want = 6;
          break;
        case kByte:
          ok = v12;
          break;
        case kWavePacket13:
          ok = it.version == 1 || it.version == 2, want = 29;
          break;
        default:
          break;
      }
    } else {
      const bool v34 = it.version == 3 || it.version == 4;
      switch (it.type) {
        case kPoint14:
          ok = v34 && i == 0, want = 30;
          break;
        case kRgb14:
          ok = v34, want = 6;
          break;
        case kRgbNir14:
          ok = v34, want = 8;
          break;
        case kWavePacket14:
          ok = v34, want = 29;
          break;
        case kByte14:
          ok = v34;
          break;
        default:
          break;
      }
    }
    if (!ok) {
      *why = name + (layered ? " in a layered" : " in a point-wise") +
             " LAZ file is not supported (this decoder reads POINT10, GPSTIME11, RGB12, BYTE "
             "versions 1 and 2, WAVEPACKET13 and POINT14, RGB14, RGBNIR14, WAVEPACKET14, BYTE14 "
             "versions 3 and 4)";
      return false;
    }
    if (want ? it.size != want : it.size == 0) {
      *why = name + " has size " + std::to_string(it.size) +
             (want ? ", not " + std::to_string(want) : "");
      return false;
    }
  }
  return true;
}

struct ChunkReader::Impl {
  Layout lo;
  bool layered = false;
  Decoder dec;  // point-wise: the one stream of the chunk
  std::vector<std::unique_ptr<PwItem>> pw;
  std::vector<std::unique_ptr<LyItem>> ly;
  std::vector<size_t> offsets;  // of each item in the record
  const uint8_t* first = nullptr;
  bool first_pending = false;
  bool bad = false;
  bool cut = false;  // the last start() ran out of bytes
  uint32_t context = 0;
  size_t layered_size = 0;  // a layered chunk's bytes: header and layers
  uint32_t skip = 0;        // SkipField bits
};

ChunkReader::ChunkReader(const Layout& lo, uint32_t skip) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.lo = lo;
  m.skip = skip;
  m.layered = lo.compressor == 3;
  size_t off = 0;
  for (const Item& it : lo.items) {
    m.offsets.push_back(off);
    off += it.size;
    const int v = it.version;
    if (!m.layered) {
      switch (it.type) {
        case kPoint10:
          if (v == 1)
            m.pw.push_back(std::make_unique<Point10v1>());
          else
            m.pw.push_back(std::make_unique<Point10v2>());
          break;
        case kGpsTime11:
          if (v == 1)
            m.pw.push_back(std::make_unique<Gps11v1>());
          else
            m.pw.push_back(std::make_unique<Gps11v2>());
          break;
        case kRgb12:
          if (v == 1)
            m.pw.push_back(std::make_unique<Rgb12v1>());
          else
            m.pw.push_back(std::make_unique<Rgb12v2>());
          break;
        case kWavePacket13:
          m.pw.push_back(std::make_unique<Wave13>());
          break;
        default:
          if (v == 1)
            m.pw.push_back(std::make_unique<Byte1>(it.size));
          else
            m.pw.push_back(std::make_unique<Byte2>(it.size));
          break;
      }
    } else {
      switch (it.type) {
        case kPoint14:
          m.ly.push_back(std::make_unique<Point14>(v));
          break;
        case kRgb14:
          m.ly.push_back(std::make_unique<Rgb14>(v, false));
          break;
        case kRgbNir14:
          m.ly.push_back(std::make_unique<Rgb14>(v, true));
          break;
        case kWavePacket14:
          m.ly.push_back(std::make_unique<Wave14>(v));
          break;
        default:
          m.ly.push_back(std::make_unique<Byte14>(v, it.size));
          break;
      }
    }
  }
}

ChunkReader::~ChunkReader() = default;

bool ChunkReader::start(const uint8_t* data, size_t size, uint64_t count, std::string* why) {
  Impl& m = *impl_;
  const size_t rec = m.lo.record_length;
  m.bad = false;
  m.cut = true;  // until the chunk's header and layers are found whole
  if (size < rec) {
    *why = "the chunk is " + std::to_string(size) + " bytes, shorter than one point";
    return false;
  }
  m.first = data;
  m.first_pending = true;
  if (!m.layered) {
    for (size_t i = 0; i < m.pw.size(); ++i) m.pw[i]->init(data + m.offsets[i]);
    m.dec.init(data + rec, size - rec);
    m.cut = false;
    return true;
  }
  // Layered: the first point, the point count, every layer's size, then the layers.
  size_t p = rec;
  if (size - p < 4) {
    *why = "the chunk ends before its point count";
    return false;
  }
  const uint32_t stored = get_le<uint32_t>(data + p);
  p += 4;
  if (stored != count) {
    *why = "the chunk holds " + std::to_string(stored) + " points, not the " +
           std::to_string(count) + " its index (chunk table, COPC hierarchy) says";
    m.cut = false;
    return false;
  }
  size_t nl = 0;
  for (auto& it : m.ly) nl += it->layers();
  if ((size - p) / 4 < nl) {
    *why = "the chunk ends before its layer sizes";
    return false;
  }
  const uint8_t* sizes = data + p;
  p += 4 * nl;
  size_t li = 0;
  for (auto& it : m.ly) {
    for (size_t k = 0; k < it->layers(); ++k, ++li) {
      const uint32_t n = get_le<uint32_t>(sizes + 4 * li);
      if (li == 0 && n == 0 && count > 1) {
        *why = "the chunk's first layer (returns and X, Y of every point after the first) is empty";
        m.cut = false;
        return false;
      }
      if (n > size - p) {
        *why = "layer " + std::to_string(li) + " of the chunk (" + std::to_string(n) +
               " bytes) runs past the chunk's end";
        return false;
      }
      // A skipped field's layer reads as unchanged: its bytes stay untouched.
      it->layer(k)->set(data + p, (m.skip & it->field(k)) ? 0 : n);
      p += n;
    }
  }
  m.layered_size = p;
  m.cut = false;
  m.context = 0;
  for (size_t i = 0; i < m.ly.size(); ++i) m.ly[i]->init(data + m.offsets[i], m.context);
  return true;
}

void ChunkReader::next(uint8_t* record) {
  Impl& m = *impl_;
  if (m.first_pending) {
    std::memcpy(record, m.first, m.lo.record_length);
    m.first_pending = false;
    return;
  }
  if (!m.layered) {
    for (size_t i = 0; i < m.pw.size(); ++i) m.pw[i]->read(m.dec, record + m.offsets[i]);
  } else {
    m.context = 0;
    for (size_t i = 0; i < m.ly.size(); ++i) m.ly[i]->read(record + m.offsets[i], m.context);
  }
}

bool ChunkReader::cut() const {
  return impl_->cut;
}

bool ChunkReader::overrun() {
  Impl& m = *impl_;
  if (!m.layered) return m.dec.overrun();
  for (const auto& it : m.ly)
    for (size_t k = 0; k < it->layers(); ++k)
      if (it->layer(k)->overrun()) return true;
  return false;
}

size_t ChunkReader::consumed() const {
  const Impl& m = *impl_;
  return m.layered ? m.layered_size : size_t(m.dec.position() - m.first);
}

}  // namespace pr::io::laz