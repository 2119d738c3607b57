// The entropy coder of LAZ (LASzip): a 32-bit arithmetic decoder with adaptive symbol and bit
// models (Amir Said's "fast arithmetic coding": 32-bit interval, periodic model updates, table
// look-up for large alphabets) and the integer decoder that codes a value as a prediction plus a
// corrector whose bit length k is itself an adaptive symbol. Every model starts in a fixed state,
// so a decoder built for a chunk reproduces the encoder's models exactly.
//
// Reading never leaves [data, data + size): past the end the decoder reads zeros and remembers
// that it did (`overrun()`), which the chunk readers report as a truncated or corrupt chunk.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pr::io::laz {

constexpr uint32_t kMinLength = 0x01000000u;  // renormalise below this interval length
constexpr uint32_t kSymbolShift = 15;         // symbol models: probabilities in 1/2^15
constexpr uint32_t kSymbolMaxCount = 1u << kSymbolShift;
constexpr uint32_t kBitShift = 13;  // bit models: probability of 0 in 1/2^13
constexpr uint32_t kBitMaxCount = 1u << kBitShift;

/// Adaptive model of one binary decision.
struct BitModel {
  uint32_t bit0_count = 1, bit_count = 2, bit0_prob = 1u << (kBitShift - 1);
  uint32_t until_update = 4, update_cycle = 4;

  void update() {
    bit_count += update_cycle;
    if (bit_count > kBitMaxCount) {
      bit_count = (bit_count + 1) >> 1;
      bit0_count = (bit0_count + 1) >> 1;
      if (bit0_count == bit_count) ++bit_count;
    }
    const uint32_t scale = 0x80000000u / bit_count;
    bit0_prob = (bit0_count * scale) >> (31 - kBitShift);
    update_cycle = (5 * update_cycle) >> 2;
    if (update_cycle > 64) update_cycle = 64;
    until_update = update_cycle;
  }
};

/// Adaptive model of an alphabet of 2..2048 symbols. The cumulative distribution is rebuilt from
/// the counts every `update_cycle` symbols (the cycle grows by 5/4 up to 8 * (symbols + 6));
/// alphabets above 16 symbols get a table mapping the top bits of value/length to a first guess.
/// A model is created empty and initialised on first use (`ready()`), which decodes the same as
/// initialising it up front because an unused model never changes.
class SymbolModel {
 public:
  bool ready() const { return symbols_ != 0; }

  /// `decoding`: alphabets above 16 symbols get the decoder's look-up table (an encoder, which
  /// finds a symbol's interval by index, needs none, and its updates cost less without it).
  void init(uint32_t symbols, bool decoding = true) {
    symbols_ = symbols;
    last_symbol_ = symbols - 1;
    table_size_ = 0;
    table_shift_ = 0;
    if (symbols > 16 && decoding) {
      uint32_t bits = 3;
      while (symbols > (1u << (bits + 2))) ++bits;
      table_size_ = 1u << bits;
      table_shift_ = kSymbolShift - bits;
    }
    // 16 entries of padding: Decoder::symbol_flat() reads 16 entries past any symbol.
    store_.assign(size_t(symbols) * 2 + (table_size_ ? table_size_ + 2 : 0) + 16, 0);
    dist_ = store_.data();
    count_ = dist_ + symbols;
    table_ = table_size_ ? count_ + symbols : nullptr;
    for (uint32_t k = 0; k < symbols; ++k) count_[k] = 1;
    total_ = 0;
    update_cycle_ = symbols;
    update();
    update_cycle_ = until_update_ = (symbols + 6) >> 1;
  }

  void update() {
    total_ += update_cycle_;
    if (total_ > kSymbolMaxCount) {
      total_ = 0;
      for (uint32_t k = 0; k < symbols_; ++k) {
        count_[k] = (count_[k] + 1) >> 1;
        total_ += count_[k];
      }
    }
    const uint32_t scale = 0x80000000u / total_;
    uint32_t sum = 0;
    if (!table_) {
      for (uint32_t k = 0; k < symbols_; ++k) {
        dist_[k] = (scale * sum) >> (31 - kSymbolShift);
        sum += count_[k];
      }
    } else {
      uint32_t s = 0;
      for (uint32_t k = 0; k < symbols_; ++k) {
        dist_[k] = (scale * sum) >> (31 - kSymbolShift);
        sum += count_[k];
        const uint32_t w = dist_[k] >> table_shift_;
        while (s < w) table_[++s] = k - 1;
      }
      table_[0] = 0;
      while (s <= table_size_) table_[++s] = symbols_ - 1;
    }
    update_cycle_ = (5 * update_cycle_) >> 2;
    const uint32_t max_cycle = (symbols_ + 6) << 3;
    if (update_cycle_ > max_cycle) update_cycle_ = max_cycle;
    until_update_ = update_cycle_;
  }

 private:
  friend class Decoder;
  friend class Encoder;
  std::vector<uint32_t> store_;
  uint32_t* dist_ = nullptr;
  uint32_t* count_ = nullptr;
  uint32_t* table_ = nullptr;
  uint32_t symbols_ = 0, last_symbol_ = 0, total_ = 0, update_cycle_ = 0, until_update_ = 0;
  uint32_t table_size_ = 0, table_shift_ = 0;
};

/// A symbol model whose alphabet size is part of its type: the item states (laz_state.h) declare
/// each model with its size once, and the coder sides (Decoding here, Encoding in laz_encoder.h)
/// create and reset it from there.
template <uint32_t kSymbols>
struct Model : SymbolModel {};

/// The arithmetic decoder over one byte range.
class Decoder {
 public:
  /// Starts decoding [p, p + n): the first four bytes are the initial value (big-endian).
  void init(const uint8_t* p, size_t n) {
    p_ = p;
    end_ = p + n;
    overrun_ = false;
    length_ = 0xFFFFFFFFu;
    value_ = 0;
    for (int i = 0; i < 4; ++i) value_ = (value_ << 8) | next_byte();
  }

  bool overrun() const { return overrun_; }
  const uint8_t* position() const { return p_; }

  uint32_t bit(BitModel& m) {
    const uint32_t x = m.bit0_prob * (length_ >> kBitShift);
    uint32_t sym;
    if (value_ < x) {
      length_ = x;
      ++m.bit0_count;
      sym = 0;
    } else {
      value_ -= x;
      length_ -= x;
      sym = 1;
    }
    if (length_ < kMinLength) renorm();
    if (--m.until_update == 0) m.update();
    return sym;
  }

  /// The symbol whose interval holds the value: a binary search of the distribution, by
  /// multiplication for small alphabets and, for large ones (table), by comparing with
  /// value / length within the span the table gives.
  uint32_t symbol(SymbolModel& m) {
    const uint32_t y0 = length_;
    length_ >>= kSymbolShift;
    if (m.table_) {
      const uint32_t dv = value_ / length_;
      uint32_t lo, hi;
      table_span(m, dv, lo, hi);
      return take(m, search(m, dv, lo, hi), y0);
    }
    uint32_t sym = 0, x = 0, y = y0;
    uint32_t n = m.symbols_, k = n >> 1;
    do {
      const uint32_t z = length_ * m.dist_[k];
      if (z > value_) {
        n = k;
        y = z;
      } else {
        sym = k;
        x = z;
      }
    } while ((k = (sym + n) >> 1) != sym);
    return take(m, sym, x, y);
  }

  /// symbol() for models whose symbols are close to equally likely (the integer decoder's
  /// correctors), where a binary search's branches are guesses: the largest s with
  /// dist[s] <= value / length (the distribution rises strictly, so this is what symbol()'s
  /// search finds), within the table's span or the whole alphabet, found without branches as the
  /// first entry above the quotient when the span holds at most 17 symbols.
  uint32_t symbol_flat(SymbolModel& m) {
    const uint32_t y0 = length_;
    length_ >>= kSymbolShift;
    const uint32_t dv = value_ / length_;
    uint32_t lo = 0, hi = m.last_symbol_;
    if (m.table_) table_span(m, dv, lo, hi);
    if (hi - lo > 16) [[unlikely]]
      return take(m, search(m, dv, lo, hi), y0);
    // Entries lo+1 .. lo+16 (the model pads its store so that all are readable).
    const uint32_t above = above_mask(m.dist_ + lo + 1, dv) | (1u << (hi - lo));
    return take(m, lo + uint32_t(__builtin_ctz(above)), y0);
  }

  /// `bits` raw bits (1..32), not modelled.
  uint32_t bits(uint32_t bits) {
    if (bits > 19) {
      const uint32_t lo = short16();
      return (this->bits(bits - 16) << 16) | lo;
    }
    length_ >>= bits;
    const uint32_t sym = value_ / length_;
    value_ -= length_ * sym;
    if (length_ < kMinLength) renorm();
    return sym & ((bits == 32 ? 0u : (1u << bits)) - 1u);
  }

  uint32_t u32() {
    const uint32_t lo = short16();
    const uint32_t hi = short16();
    return (hi << 16) | lo;
  }

  uint64_t u64() {
    const uint64_t lo = u32();
    const uint64_t hi = u32();
    return (hi << 32) | lo;
  }

 private:
  /// The symbols [lo, hi] that the table gives for the quotient dv.
  static void table_span(const SymbolModel& m, uint32_t dv, uint32_t& lo, uint32_t& hi) {
    uint32_t t = dv >> m.table_shift_;
    if (t > m.table_size_) t = m.table_size_;  // only on corrupt input
    lo = m.table_[t];
    hi = m.table_[t + 1];
  }

  /// The largest s in [lo, hi] with dist[s] <= dv, by binary search.
  static uint32_t search(const SymbolModel& m, uint32_t dv, uint32_t lo, uint32_t hi) {
    uint32_t sym = lo, n = hi + 1;
    while (n > sym + 1) {
      const uint32_t k = (sym + n) >> 1;
      if (m.dist_[k] > dv)
        n = k;
      else
        sym = k;
    }
    return sym;
  }

  /// Narrows the interval to symbol `sym` (length_ already divided by 2^15; y0 the length
  /// before, the top of the last symbol's interval), counts it and returns it.
  uint32_t take(SymbolModel& m, uint32_t sym, uint32_t y0) {
    const uint32_t x = m.dist_[sym] * length_;
    const uint32_t y = sym != m.last_symbol_ ? m.dist_[sym + 1] * length_ : y0;
    return take(m, sym, x, y);
  }

  /// Narrows the interval to [x, y), counts symbol `sym` and returns it.
  uint32_t take(SymbolModel& m, uint32_t sym, uint32_t x, uint32_t y) {
    value_ -= x;
    length_ = y - x;
    if (length_ < kMinLength) renorm();
    ++m.count_[sym];
    if (--m.until_update_ == 0) m.update();
    return sym;
  }

  /// Bit j set where d[j] > v, for j in 0..15 (v and the entries below 2^31).
  static uint32_t above_mask(const uint32_t* d, uint32_t v) {
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi32(int32_t(v));
    uint32_t mask = 0;
    for (int i = 0; i < 4; ++i) {
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + 4 * i));
      mask |= uint32_t(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(e, q)))) << (4 * i);
    }
    return mask;
#else
    uint32_t mask = 0;
    for (uint32_t j = 0; j < 16; ++j) mask |= uint32_t(d[j] > v) << j;
    return mask;
#endif
  }

  uint32_t short16() {
    length_ >>= 16;
    const uint32_t sym = value_ / length_;
    value_ -= length_ * sym;
    if (length_ < kMinLength) renorm();
    return sym & 0xFFFFu;
  }

  uint32_t next_byte() {
    if (p_ < end_) return *p_++;
    overrun_ = true;
    return 0;
  }

  void renorm() {
    // A valid stream needs at most three byte shifts; four bound the loop on corrupt input
    // (a zero length, which only corrupt input produces, then stays flagged as overrun).
    for (int i = 0; i < 4 && length_ < kMinLength; ++i) {
      value_ = (value_ << 8) | next_byte();
      length_ <<= 8;
    }
    if (length_ == 0) {
      length_ = kMinLength;
      overrun_ = true;
    }
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint32_t value_ = 0, length_ = 0;
  bool overrun_ = false;
};

/// The state of LASzip's IntegerCompressor, which IntDecoder and IntEncoder share: integers are
/// coded as prediction + corrector; the corrector's bit length k is a symbol of one of
/// `contexts` models; k = 0 is a single modelled bit, small k a modelled symbol, larger k a
/// modelled high part (kBitsHigh = 8 bits) and raw low bits. Values wrap into their range (2^bits).
class IntModels {
 public:
  void init(uint32_t bits, uint32_t contexts) {
    if (bits && bits < 32) {
      corr_bits_ = bits;
      corr_range_ = 1u << bits;
      corr_min_ = -int32_t(corr_range_ / 2);
      corr_max_ = corr_min_ + int32_t(corr_range_ - 1);
    } else {
      corr_bits_ = 32;
      corr_range_ = 0;
      corr_min_ = INT32_MIN;
      corr_max_ = INT32_MAX;
    }
    k_models_.assign(contexts, SymbolModel());
    correctors_.assign(corr_bits_, SymbolModel());
    corrector0_ = BitModel();
    k_ = 0;
  }

  /// The corrector's bit length of the last value coded (what the items take contexts from).
  uint32_t k() const { return k_; }

 protected:
  static constexpr uint32_t kBitsHigh = 8;

  /// The model of k in `context`, created on first use (`decoding`: with the decoder's table).
  SymbolModel& k_model(uint32_t context, bool decoding) {
    SymbolModel& m = k_models_[context];
    if (!m.ready()) [[unlikely]]
      create(m, corr_bits_ + 1, decoding);
    return m;
  }
  /// The model of the correctors of bit length k (1..31): their top kBitsHigh bits at most.
  SymbolModel& corrector(uint32_t k, bool decoding) {
    SymbolModel& m = correctors_[k - 1];
    if (!m.ready()) [[unlikely]]
      create(m, 1u << (k <= kBitsHigh ? k : kBitsHigh), decoding);
    return m;
  }
  /// A model's first use, out of the coders' per-value path (which it would only lengthen).
  [[gnu::noinline]] static void create(SymbolModel& m, uint32_t symbols, bool decoding) {
    m.init(symbols, decoding);
  }

  std::vector<SymbolModel> k_models_, correctors_;
  BitModel corrector0_;
  uint32_t corr_bits_ = 32, corr_range_ = 0, k_ = 0;
  int32_t corr_min_ = INT32_MIN, corr_max_ = INT32_MAX;
};

/// Decodes integers as prediction + corrector (IntModels): the mirror of IntEncoder.
class IntDecoder : public IntModels {
 public:
  int32_t decode(Decoder& dec, int32_t pred, uint32_t context = 0) {
    k_ = dec.symbol(k_model(context, true));
    int32_t c;
    if (k_ == 0) {
      c = int32_t(dec.bit(corrector0_));
    } else if (k_ < 32) {
      SymbolModel& cm = corrector(k_, true);
      uint32_t u;
      if (k_ <= kBitsHigh) {
        u = dec.symbol_flat(cm);
      } else {
        const uint32_t k1 = k_ - kBitsHigh;
        u = (dec.symbol_flat(cm) << k1) | dec.bits(k1);
      }
      // u in [0, 2^k): the upper half are the positive correctors 2^(k-1)..2^k-1, the lower
      // half the negative ones -(2^k-1)..-2^(k-1).
      if (u >= (1u << (k_ - 1)))
        c = int32_t(u + 1);
      else
        c = int32_t(u - ((1u << k_) - 1));
    } else {
      c = corr_min_;
    }
    int32_t real = int32_t(uint32_t(pred) + uint32_t(c));
    if (corr_range_) {
      if (real < 0)
        real += int32_t(corr_range_);
      else if (real >= int32_t(corr_range_))
        real -= int32_t(corr_range_);
    }
    return real;
  }
};

/// Running median of the last five values (LASzip's StreamingMedian5), the predictor of the
/// x and y differences.
struct Median5 {
  int32_t v[5] = {0, 0, 0, 0, 0};
  bool high = true;

  int32_t get() const { return v[2]; }

  void add(int32_t x) {
    if (high) {
      if (x < v[2]) {
        v[4] = v[3];
        v[3] = v[2];
        if (x < v[0]) {
          v[2] = v[1];
          v[1] = v[0];
          v[0] = x;
        } else if (x < v[1]) {
          v[2] = v[1];
          v[1] = x;
        } else {
          v[2] = x;
        }
      } else {
        if (x < v[3]) {
          v[4] = v[3];
          v[3] = x;
        } else {
          v[4] = x;
        }
        high = false;
      }
    } else {
      if (v[2] < x) {
        v[0] = v[1];
        v[1] = v[2];
        if (v[4] < x) {
          v[2] = v[3];
          v[3] = v[4];
          v[4] = x;
        } else if (v[3] < x) {
          v[2] = v[3];
          v[3] = x;
        } else {
          v[2] = x;
        }
      } else {
        if (v[1] < x) {
          v[0] = v[1];
          v[1] = x;
        } else {
          v[0] = x;
        }
        high = true;
      }
    }
  }
};

/// A side of the coder as the item states (laz_state.h) see it: its integer coder (IntDecoder or
/// IntEncoder), and its symbol models, created on first use (the decoder's with its look-up
/// table; an encoder finds a symbol's interval by index, and its updates cost less without one).
/// A reset puts a model back in its initial state: a model used before keeps its storage and is
/// refilled (init()), one never used stays empty until its first use (an unused model codes
/// nothing, so creating it then is the same as creating it at once).
template <class IntCoder, bool kDecoding>
struct CoderSide {
  using Int = IntCoder;
  template <uint32_t kSymbols>
  static SymbolModel& use(Model<kSymbols>& m) {
    return use(m, kSymbols);
  }
  static SymbolModel& use(SymbolModel& m, uint32_t symbols) {
    if (!m.ready()) m.init(symbols, kDecoding);
    return m;
  }
  template <uint32_t kSymbols>
  static void reset(Model<kSymbols>& m) {
    reset(m, kSymbols);
  }
  static void reset(SymbolModel& m, uint32_t symbols) {
    if (m.ready()) m.init(symbols, kDecoding);
  }
};

/// The decoding side.
using Decoding = CoderSide<IntDecoder, true>;

}  // namespace pr::io::laz
