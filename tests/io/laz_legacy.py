"""A small LAZ writer for the variants no maintained library writes any more: the version-1 items
of LASzip 1.x (POINT10, GPSTIME11, RGB12 and BYTE version 1, point formats 0-3 with extra
bytes) in one unchunked stream (compressor 1) or in fixed chunks with a chunk table
(compressor 2). compare_laz.py checks every file it writes against laspy's LASzip backend (which
reads them) and against the records it was given, so a fault here fails the test rather than
hiding one in the decoder.

The entropy coder is the one of LAZ: a 32-bit range coder whose adaptive models are rebuilt
periodically from their counts (the decoder's counterpart is engine/io/laz/src/laz_codec.h), and the
integer corrector that codes a value as a prediction plus a difference whose bit length is a
modelled symbol. Pure Python: about 20,000 points a second.
"""
import struct

M32 = 0xFFFFFFFF
MIN_LENGTH = 1 << 24


class BitModel:
    def __init__(self):
        self.bit0_count, self.bit_count, self.bit0_prob = 1, 2, 1 << 12
        self.until_update = self.update_cycle = 4

    def update(self):
        self.bit_count += self.update_cycle
        if self.bit_count > 1 << 13:
            self.bit_count = (self.bit_count + 1) >> 1
            self.bit0_count = (self.bit0_count + 1) >> 1
            if self.bit0_count == self.bit_count:
                self.bit_count += 1
        scale = 0x80000000 // self.bit_count
        self.bit0_prob = (self.bit0_count * scale) >> 18
        self.update_cycle = min((5 * self.update_cycle) >> 2, 64)
        self.until_update = self.update_cycle


class SymbolModel:
    """Probabilities in 1/2^15 of `symbols` symbols, rebuilt every update_cycle symbols (the
    cycle grows by 5/4 up to 8 * (symbols + 6)); counts halve when their total passes 2^15."""

    def __init__(self, symbols):
        self.symbols = symbols
        self.count = [1] * symbols
        self.dist = [0] * symbols
        self.total = 0
        self.update_cycle = symbols
        self.update()
        self.update_cycle = self.until_update = (symbols + 6) >> 1

    def update(self):
        self.total += self.update_cycle
        if self.total > 1 << 15:
            self.count = [(c + 1) >> 1 for c in self.count]
            self.total = sum(self.count)
        scale = 0x80000000 // self.total
        s = 0
        for k in range(self.symbols):
            self.dist[k] = ((scale * s) & M32) >> 16
            s += self.count[k]
        self.update_cycle = min((5 * self.update_cycle) >> 2, (self.symbols + 6) << 3)
        self.until_update = self.update_cycle


class Encoder:
    """Interval [base, base + length) of 32 bits; a carry out of base adds one to the bytes
    already written (ripple through 0xFF bytes)."""

    def __init__(self):
        self.base, self.length, self.out = 0, M32, bytearray()

    def _carry(self):
        i = len(self.out) - 1
        while self.out[i] == 0xFF:
            self.out[i] = 0
            i -= 1
        self.out[i] += 1

    def _renorm(self):
        while True:
            self.out.append(self.base >> 24)
            self.base = (self.base << 8) & M32
            self.length = (self.length << 8) & M32
            if self.length >= MIN_LENGTH:
                return

    def _add(self, x):
        self.base += x
        if self.base > M32:
            self.base &= M32
            self._carry()

    def bit(self, m, b):
        x = m.bit0_prob * (self.length >> 13)
        if b == 0:
            self.length = x
            m.bit0_count += 1
        else:
            self._add(x)
            self.length -= x
        if self.length < MIN_LENGTH:
            self._renorm()
        m.until_update -= 1
        if m.until_update == 0:
            m.update()

    def symbol(self, m, s):
        if s == m.symbols - 1:
            x = m.dist[s] * (self.length >> 15)
            self._add(x)
            self.length -= x
        else:
            self.length >>= 15
            x = m.dist[s] * self.length
            self._add(x)
            self.length = m.dist[s + 1] * self.length - x
        if self.length < MIN_LENGTH:
            self._renorm()
        m.count[s] += 1
        m.until_update -= 1
        if m.until_update == 0:
            m.update()

    def bits(self, n, v):
        if n > 19:
            self.bits(16, v & 0xFFFF)
            v >>= 16
            n -= 16
        self.length >>= n
        self._add(v * self.length)
        if self.length < MIN_LENGTH:
            self._renorm()

    def u64(self, v):
        for k in range(4):
            self.bits(16, (v >> (16 * k)) & 0xFFFF)

    def done(self):
        """Ends the stream: one or two more bytes pin a value inside the interval, and zero
        bytes follow so that the decoder's four-byte look-ahead stays inside the stream."""
        base0 = self.base
        if self.length > 2 * MIN_LENGTH:
            self.base = (self.base + MIN_LENGTH) & M32
            self.length = MIN_LENGTH >> 1
            pad = 3
        else:
            self.base = (self.base + (MIN_LENGTH >> 1)) & M32
            self.length = MIN_LENGTH >> 9
            pad = 2
        if base0 > self.base:
            self._carry()
        self._renorm()
        self.out += bytes(pad)
        return bytes(self.out)


class IntCoder:
    """Codes `real` as `pred` plus a corrector c: its bit length k (a symbol of the context's
    model), then c within [2^(k-1) + 1, 2^k] or [-(2^k - 1), -2^(k-1)] (k <= 8: one symbol;
    larger k: the high 8 bits as a symbol and the rest raw); k = 0 codes c in {0, 1} as a bit.
    Below 32 bits the corrector wraps into [-2^(bits-1), 2^(bits-1))."""

    def __init__(self, bits, contexts):
        self.bits = bits
        self.k_models = [None] * contexts
        self.corr = {}
        self.bit0 = BitModel()
        self.k = 0

    def code(self, enc, pred, real, ctx=0):
        c = real - pred
        if self.bits < 32:
            half = 1 << (self.bits - 1)
            if c < -half:
                c += 1 << self.bits
            elif c >= half:
                c -= 1 << self.bits
        else:
            c = ((c + (1 << 31)) & M32) - (1 << 31)
        c1 = -c if c <= 0 else c - 1
        k = c1.bit_length()
        self.k = k
        if self.k_models[ctx] is None:
            self.k_models[ctx] = SymbolModel(self.bits + 1)
        enc.symbol(self.k_models[ctx], k)
        if k == 32:  # c = -2^31: the bit length says it all
            return
        if k == 0:
            enc.bit(self.bit0, c)
            return
        u = c + (1 << k) - 1 if c < 0 else c - 1
        if k not in self.corr:
            self.corr[k] = SymbolModel(1 << min(k, 8))
        if k <= 8:
            enc.symbol(self.corr[k], u)
        else:
            enc.symbol(self.corr[k], u >> (k - 8))
            enc.bits(k - 8, u & ((1 << (k - 8)) - 1))


def s32(v):
    return ((v + (1 << 31)) & M32) - (1 << 31)


def median3(a, b, c):
    return max(min(a, b), min(max(a, b), c))


class Point10:
    def __init__(self, raw):
        self.last = bytearray(raw)
        self.dx, self.dy, self.at = [0, 0, 0], [0, 0, 0], 0
        self.changed = SymbolModel(64)
        self.bit_m, self.cls_m, self.user_m = {}, {}, {}
        self.ic_dx, self.ic_dy, self.ic_z = IntCoder(32, 1), IntCoder(32, 20), IntCoder(32, 20)
        self.ic_int, self.ic_angle, self.ic_psid = IntCoder(16, 1), IntCoder(8, 2), IntCoder(16, 1)

    def write(self, enc, r):
        lx, ly, lz, li = struct.unpack_from("<iiiH", self.last)
        x, y, z, i = struct.unpack_from("<iiiH", r)
        xd, yd = s32(x - lx), s32(y - ly)
        self.ic_dx.code(enc, median3(*self.dx), xd)
        k = self.ic_dx.k
        self.ic_dy.code(enc, median3(*self.dy), yd, min(k, 19))
        k = (k + self.ic_dy.k) // 2
        self.ic_z.code(enc, lz, z, min(k, 19))
        l = self.last
        ch = ((li != i) << 5 | (l[14] != r[14]) << 4 | (l[15] != r[15]) << 3 |
              (l[16] != r[16]) << 2 | (l[17] != r[17]) << 1 | (l[18:20] != r[18:20]))
        enc.symbol(self.changed, ch)
        if ch & 32:
            self.ic_int.code(enc, li, i)
        for bit, at, models in ((16, 14, self.bit_m), (8, 15, self.cls_m)):
            if ch & bit:
                enc.symbol(models.setdefault(l[at], SymbolModel(256)), r[at])
        if ch & 4:
            self.ic_angle.code(enc, l[16], r[16], int(k < 3))
        if ch & 2:
            enc.symbol(self.user_m.setdefault(l[17], SymbolModel(256)), r[17])
        if ch & 1:
            self.ic_psid.code(enc, struct.unpack_from("<H", l, 18)[0],
                              struct.unpack_from("<H", r, 18)[0])
        self.dx[self.at], self.dy[self.at] = xd, yd
        self.at = (self.at + 1) % 3
        self.last[:] = r


class GpsTime:
    MULTI_MAX = 512

    def __init__(self, raw):
        self.last = struct.unpack("<q", raw)[0]
        self.last_diff, self.extreme = 0, 0
        self.multi, self.zero = SymbolModel(self.MULTI_MAX), SymbolModel(3)
        self.ic = IntCoder(32, 6)

    def write(self, enc, r):
        t = struct.unpack("<q", r)[0]
        d64 = t - self.last
        fits = -(1 << 31) <= d64 < (1 << 31)
        if self.last_diff == 0:
            if d64 == 0:
                enc.symbol(self.zero, 0)
            elif fits:
                enc.symbol(self.zero, 1)
                self.ic.code(enc, 0, d64, 0)
                self.last_diff = d64
            else:
                enc.symbol(self.zero, 2)
                enc.u64(t & ((1 << 64) - 1))
        elif d64 == 0:
            enc.symbol(self.multi, self.MULTI_MAX - 1)
        elif not fits:
            enc.symbol(self.multi, self.MULTI_MAX - 2)
            enc.u64(t & ((1 << 64) - 1))
        else:
            m = int(min(max(d64 / self.last_diff + 0.5, 0), self.MULTI_MAX - 3))
            enc.symbol(self.multi, m)
            ld = self.last_diff
            if m == 1:
                self.ic.code(enc, ld, d64, 1)
                self.last_diff, self.extreme = d64, 0
            elif m == 0:
                self.ic.code(enc, int(ld / 4), d64, 2)  # C's division, toward zero
                self.extreme += 1
                if self.extreme > 3:
                    self.last_diff, self.extreme = d64, 0
            else:
                self.ic.code(enc, s32(m * ld), d64, 3 if m < 10 else (4 if m < 50 else 5))
                if m == self.MULTI_MAX - 3:
                    self.extreme += 1
                    if self.extreme > 3:
                        self.last_diff, self.extreme = d64, 0
        self.last = t


class Rgb:
    def __init__(self, raw):
        self.last = bytearray(raw)
        self.used = SymbolModel(64)
        self.ic = IntCoder(8, 6)

    def write(self, enc, r):
        sym = sum((self.last[j] != r[j]) << j for j in range(6))
        enc.symbol(self.used, sym)
        for j in range(6):
            if sym >> j & 1:
                self.ic.code(enc, self.last[j], r[j], j)
        self.last[:] = r


class Bytes:
    def __init__(self, raw):
        self.last = bytearray(raw)
        self.ic = IntCoder(8, len(raw))

    def write(self, enc, r):
        for j in range(len(r)):
            self.ic.code(enc, self.last[j], r[j], j)
        self.last[:] = r


def items(fmt, extra):
    """(type, size, writer class) of each item of a point format 0-3 record."""
    it = [(6, 20, Point10)]
    if fmt in (1, 3):
        it.append((7, 8, GpsTime))
    if fmt in (2, 3):
        it.append((8, 6, Rgb))
    if extra:
        it.append((0, extra, Bytes))
    return it


def compress_chunk(records, size, its):
    """One stream: the first record raw, then the others coded item by item."""
    enc = Encoder()
    writers, at = [], 0
    for _, n, cls in its:
        writers.append((cls(records[0:size][at:at + n]), at, n))
        at += n
    for p in range(1, len(records) // size):
        r = records[p * size:(p + 1) * size]
        for w, at, n in writers:
            w.write(enc, r[at:at + n])
    return records[0:size] + enc.done()


def laszip_vlr(compressor, chunk_size, its):
    body = struct.pack("<HHBBHIIqqH", compressor, 0, 1, 2, 0, 0, chunk_size, -1, -1, len(its))
    body += b"".join(struct.pack("<HHH", t, n, 1) for t, n, _ in its)
    return struct.pack("<H16sHH32s", 0, b"laszip encoded", 22204, len(body), b"laz_legacy") + body


def chunk_table(sizes):
    """Version 0, the count, then each chunk's byte size coded against the last one."""
    enc, ic, last = Encoder(), IntCoder(32, 2), 0
    for s in sizes:
        ic.code(enc, last, s, 1)
        last = s
    return struct.pack("<II", 0, len(sizes)) + enc.done()


def write_laz(las_bytes, path, fmt, extra, chunk_size=None):
    """Turns the LAS file `las_bytes` (point format 0-3, `extra` extra bytes) into a LAZ file of
    version-1 items: unchunked (compressor 1) when chunk_size is None, else fixed chunks of
    chunk_size points with a chunk table (compressor 2)."""
    data = bytearray(las_bytes)
    offset, nvlr = struct.unpack_from("<II", data, 96)
    size = struct.unpack_from("<H", data, 105)[0]
    count = struct.unpack_from("<I", data, 107)[0]
    its = items(fmt, extra)
    assert sum(n for _, n, _ in its) == size
    vlr = laszip_vlr(1 if chunk_size is None else 2, chunk_size or 0, its)
    head = bytearray(data[:offset])
    head[104] |= 0x80
    struct.pack_into("<II", head, 96, offset + len(vlr), nvlr + 1)
    points = bytes(data[offset:offset + count * size])
    if chunk_size is None:
        body = compress_chunk(points, size, its)
    else:
        chunks = [compress_chunk(points[a * size:(a + chunk_size) * size], size, its)
                  for a in range(0, count, chunk_size)]
        start = len(head) + len(vlr)
        table_at = start + 8 + sum(len(c) for c in chunks)
        body = struct.pack("<q", table_at) + b"".join(chunks) + chunk_table([len(c) for c in chunks])
    with open(path, "wb") as f:
        f.write(head + vlr + body)
