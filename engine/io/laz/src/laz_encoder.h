// The encoding side of laz_codec.h: the 32-bit arithmetic encoder and the integer encoder that
// LASzip's decoders (and ours) read. Every call mirrors one Decoder / IntDecoder call with the same
// model, so the models of both sides pass through the same states: an encoder that predicts as
// the decoder does writes a stream the decoder reads back value for value.
//
// The encoder keeps the interval [base, base + length) of 32 bits; narrowing it can carry into
// bytes already written (base overflows), which propagate_carry() adds back into the output.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "laz_codec.h"

namespace pr::io::laz {

class Encoder {
 public:
  /// Starts a stream into `out`, which holds the stream's bytes once done() ends it (until then
  /// the encoder writes into it as a buffer of its own size, grown when full).
  void init(std::vector<uint8_t>& out) {
    out_ = &out;
    // A small start (zero-filled by resize; the capacity of earlier streams stays): chunks of
    // a few points cost little, longer streams double it.
    out_->resize(1024);
    p_ = out_->data();
    end_ = p_ + out_->size();
    base_ = 0;
    length_ = 0xFFFFFFFFu;
  }

  [[gnu::always_inline]] void bit(BitModel& m, uint32_t sym) {
    const uint32_t x = m.bit0_prob * (length_ >> kBitShift);
    if (sym == 0) {
      length_ = x;
      ++m.bit0_count;
    } else {
      const uint32_t init_base = base_;
      base_ += x;
      length_ -= x;
      if (init_base > base_) propagate_carry();
    }
    if (length_ < kMinLength) renorm();
    if (--m.until_update == 0) m.update();
  }

  [[gnu::always_inline]] void symbol(SymbolModel& m, uint32_t sym) {
    const uint32_t init_base = base_;
    // The decoder's interval of `sym` is [dist[sym], dist[sym + 1]) of length / 2^15, the last
    // symbol's reaching to the undivided length.
    if (sym == m.last_symbol_) {
      const uint32_t x = m.dist_[sym] * (length_ >> kSymbolShift);
      base_ += x;
      length_ -= x;
    } else {
      length_ >>= kSymbolShift;
      const uint32_t x = m.dist_[sym] * length_;
      base_ += x;
      length_ = m.dist_[sym + 1] * length_ - x;
    }
    if (init_base > base_) propagate_carry();
    if (length_ < kMinLength) renorm();
    ++m.count_[sym];
    if (--m.until_update_ == 0) m.update();
  }

  /// `bits` raw bits of `v` (1..32), not modelled.
  void bits(uint32_t bits, uint32_t v) {
    if (bits > 19) {
      short16(v & 0xFFFFu);
      v >>= 16;
      bits -= 16;
    }
    const uint32_t init_base = base_;
    length_ >>= bits;
    base_ += v * length_;
    if (init_base > base_) propagate_carry();
    if (length_ < kMinLength) renorm();
  }

  void u32(uint32_t v) {
    short16(v & 0xFFFFu);
    short16(v >> 16);
  }

  void u64(uint64_t v) {
    u32(uint32_t(v));
    u32(uint32_t(v >> 32));
  }

  /// Ends the stream: writes the bytes that pin a value inside the final interval, then the zero
  /// bytes the decoder's look-ahead reads (two or three), so that a decoder reading exactly this
  /// stream never reads past it.
  void done() {
    const uint32_t init_base = base_;
    bool another_byte = true;
    if (length_ > 2 * kMinLength) {
      base_ += kMinLength;
      length_ = kMinLength >> 1;
    } else {
      base_ += kMinLength >> 1;
      length_ = kMinLength >> 9;
      another_byte = false;
    }
    if (init_base > base_) propagate_carry();
    renorm();
    put(0);
    put(0);
    if (another_byte) put(0);
    out_->resize(size_t(p_ - out_->data()));
  }

 private:
  void short16(uint32_t v) {
    const uint32_t init_base = base_;
    length_ >>= 16;
    base_ += v * length_;
    if (init_base > base_) propagate_carry();
    if (length_ < kMinLength) renorm();
  }

  /// base_ overflowed: add one to the bytes written, from the last one back (0xFF wraps to 0 and
  /// carries on).
  void propagate_carry() {
    for (uint8_t* b = p_; b-- != out_->data();) {
      if (*b == 0xFF) {
        *b = 0;
      } else {
        ++*b;
        return;
      }
    }
  }

  void put(uint8_t b) {
    if (p_ == end_) [[unlikely]]
      grow();
    *p_++ = b;
  }

  /// Doubles the buffer, keeping the bytes written. Rare, and kept out of the coding steps that
  /// would otherwise inline its allocation.
  [[gnu::noinline, gnu::cold]] void grow() {
    const size_t at = size_t(p_ - out_->data());
    out_->resize(out_->size() * 2);
    p_ = out_->data() + at;
    end_ = out_->data() + out_->size();
  }

  /// Shifts out the top bytes of base_ until length_ is at least 2^24 again, without a loop:
  /// a length in [2^(24-8n), 2^(32-8n)) needs n bytes (n = clz / 8, at most 3 since every coding
  /// step leaves a length of at least 2^5), so the four bytes of base_ are stored and n of them
  /// kept.
  void renorm() {
    if (end_ - p_ < 4) [[unlikely]]
      grow();
    const uint32_t n = uint32_t(__builtin_clz(length_)) >> 3;
    const uint32_t be = __builtin_bswap32(base_);
    std::memcpy(p_, &be, 4);
    p_ += n;
    base_ <<= 8 * n;
    length_ <<= 8 * n;
  }

  std::vector<uint8_t>* out_ = nullptr;
  uint8_t* p_ = nullptr;  // the next byte of *out_ to write
  uint8_t* end_ = nullptr;
  uint32_t base_ = 0, length_ = 0;
};

/// Encodes integers as prediction + corrector (IntModels): the mirror of IntDecoder (same models,
/// same contexts), so IntDecoder::decode(pred, context) returns the `real` given here.
class IntEncoder : public IntModels {
 public:
  void encode(Encoder& enc, int32_t pred, int32_t real, uint32_t context = 0) {
    // The corrector wraps into [corr_min, corr_max] (the value range is 2^bits).
    int32_t c = int32_t(uint32_t(real) - uint32_t(pred));
    if (corr_range_) {
      if (c < corr_min_)
        c += int32_t(corr_range_);
      else if (c > corr_max_)
        c -= int32_t(corr_range_);
    }
    // k: the bits of |c| (c - 1 for positive c: the correctors 1..2^k map to k bits).
    const uint32_t c1 = c <= 0 ? uint32_t(0) - uint32_t(c) : uint32_t(c) - 1u;
    k_ = c1 ? 32u - uint32_t(__builtin_clz(c1)) : 0u;
    enc.symbol(k_model(context, false), k_);
    if (k_ == 0) {
      enc.bit(corrector0_, uint32_t(c));
      return;
    }
    if (k_ >= 32) return;  // c == INT32_MIN: the symbol says it all
    // Positive correctors 1..2^k-1 ... map to the upper half of [0, 2^k), negative ones to the
    // lower half (IntDecoder's inverse).
    const uint32_t u = c < 0 ? uint32_t(c) + ((1u << k_) - 1u) : uint32_t(c) - 1u;
    SymbolModel& cm = corrector(k_, false);
    if (k_ <= kBitsHigh) {
      enc.symbol(cm, u);
    } else {
      const uint32_t k1 = k_ - kBitsHigh;
      enc.symbol(cm, u >> k1);
      enc.bits(k1, u & ((1u << k1) - 1u));
    }
  }
};

/// The encoding side of the item states (laz_state.h).
using Encoding = CoderSide<IntEncoder, false>;

}  // namespace pr::io::laz
