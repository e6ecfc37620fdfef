// write_elim=none and write_elim=te. Transaction elimination (Arm; models/README.md "Sources: bandwidth savers":
// counter FRAG_TRANS_ELIM counts 16x16 tiles killed by the CRC check): a CRC-32 per 16x16 block,
// eligible images: 1 sample, 1 mip level, color_attachment usage, not transient.
#include <memory>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "models/registry.h"
#include "models/write_elim/write_elim.h"

namespace tbdr::models {
namespace {

class NoWriteElim final : public WriteElimModel {
 public:
  Eligibility eligibility(const ImageTraits&) const override { return {false, "write_elim=none"}; }
  uint32_t signature(const uint8_t*, size_t) const override { return 0; }
};

// CRC-32 (IEEE 802.3 polynomial, reflected 0xEDB88320), the usual framebuffer-signature CRC,
// computed 16 bytes per step ("slicing-by-16": table k maps a byte to its CRC followed by k zero
// bytes, so 16 independent lookups replace 16 dependent ones); the values are those of the
// byte-at-a-time CRC.
struct CrcTables {
  uint32_t t[16][256];
  CrcTables() {
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; ++n)
      for (int k = 1; k < 16; ++k) t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xFF];
  }
};

uint32_t load_le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// The CRC register `c` (before the final inversion) advanced over `size` bytes.
uint32_t crc_update(uint32_t c, const uint8_t* bytes, size_t size) {
  static const CrcTables tables;
  const auto& t = tables.t;
  size_t i = 0;
  for (; i + 16 <= size; i += 16) {
    const uint32_t w0 = load_le32(bytes + i) ^ c, w1 = load_le32(bytes + i + 4), w2 = load_le32(bytes + i + 8),
                   w3 = load_le32(bytes + i + 12);
    if (((w1 | w2 | w3) & 0xFFFFFF00u) == 0) {
      // Only the low byte of the last three words is set (an 8-bit format's channel codes): a
      // zero byte's entry is 0 in every table, so its lookup can be left out.
      c = t[15][w0 & 0xFF] ^ t[14][(w0 >> 8) & 0xFF] ^ t[13][(w0 >> 16) & 0xFF] ^ t[12][w0 >> 24] ^
          t[11][w1 & 0xFF] ^ t[7][w2 & 0xFF] ^ t[3][w3 & 0xFF];
      continue;
    }
    c = t[15][w0 & 0xFF] ^ t[14][(w0 >> 8) & 0xFF] ^ t[13][(w0 >> 16) & 0xFF] ^ t[12][w0 >> 24] ^
        t[11][w1 & 0xFF] ^ t[10][(w1 >> 8) & 0xFF] ^ t[9][(w1 >> 16) & 0xFF] ^ t[8][w1 >> 24] ^
        t[7][w2 & 0xFF] ^ t[6][(w2 >> 8) & 0xFF] ^ t[5][(w2 >> 16) & 0xFF] ^ t[4][w2 >> 24] ^
        t[3][w3 & 0xFF] ^ t[2][(w3 >> 8) & 0xFF] ^ t[1][(w3 >> 16) & 0xFF] ^ t[0][w3 >> 24];
  }
  for (; i < size; ++i) c = t[0][(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
  return c;
}

#if defined(__x86_64__)
// CRC-32 by carry-less multiplication (Intel, "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction", 2009; the Linux kernel's crc32-pclmul uses the same constants): 16 bytes
// A followed by B leave the CRC register as A x^128 + B does, and A x^128 mod P is A's two 64-bit
// halves times x^(128 + 32) and x^(128 - 32) mod P (bit-reflected, one bit up: the product of two
// reflected operands lands one bit low), a 128-bit value again. Four 16-byte lanes fold 64 bytes a
// step (x^(4 * 128 +- 32)), then into one lane, whose 16 bytes and the tail the tables finish: the
// same CRC-32 as crc_update's, bit for bit (SaversTe.SignatureIsCrc32 checks both), about 8x
// faster on the stored tiles (perf of the million-triangle frame: 1.8 % of a run in signature()).
constexpr uint64_t kPolynomial = 0x104C11DB7;  // x^32 + ... + 1, unreflected
constexpr uint64_t fold_constant(int exponent) {
  uint64_t r = 1;  // x^exponent mod P
  for (int k = 0; k < exponent; ++k) {
    r <<= 1;
    if (r >> 32 & 1) r ^= kPolynomial;
  }
  uint64_t reflected = 0;
  for (int bit = 0; bit < 32; ++bit) reflected |= (r >> bit & 1) << (31 - bit);
  return reflected << 1;
}

// Named constants: a fold_constant call outside a constant expression may run its loop at -O0.
constexpr uint64_t kFoldFour[2] = {fold_constant(4 * 128 + 32), fold_constant(4 * 128 - 32)};
constexpr uint64_t kFoldOne[2] = {fold_constant(128 + 32), fold_constant(128 - 32)};

// The CRC-32 of `size` >= 64 bytes, folded as above; the CPU must have PCLMULQDQ.
__attribute__((target("pclmul"))) uint32_t crc32_folded(const uint8_t* bytes, size_t size) {
  auto load = [&](size_t at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + at)); };
  // Lane `a` moved `k`'s distance on and `next` added: its low half (the earlier bytes) times k's low constant.
  auto fold = [](__m128i a, __m128i k, __m128i next) __attribute__((target("pclmul"))) {
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11)), next);
  };
  const __m128i by_four = _mm_set_epi64x(int64_t(kFoldFour[1]), int64_t(kFoldFour[0]));
  const __m128i by_one = _mm_set_epi64x(int64_t(kFoldOne[1]), int64_t(kFoldOne[0]));
  // The initial register (all ones) enters as the first four bytes inverted.
  __m128i a0 = _mm_xor_si128(load(0), _mm_cvtsi32_si128(-1)), a1 = load(16), a2 = load(32), a3 = load(48);
  size_t i = 64;
  for (; i + 64 <= size; i += 64) {
    a0 = fold(a0, by_four, load(i));
    a1 = fold(a1, by_four, load(i + 16));
    a2 = fold(a2, by_four, load(i + 32));
    a3 = fold(a3, by_four, load(i + 48));
  }
  __m128i a = fold(fold(fold(a0, by_one, a1), by_one, a2), by_one, a3);
  for (; i + 16 <= size; i += 16) a = fold(a, by_one, load(i));
  alignas(16) uint8_t lane[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(lane), a);
  return ~crc_update(crc_update(0, lane, 16), bytes + i, size - i);
}
#endif

// CRC-32 (initial and final value all ones): folded where the CPU can, else by the tables.
uint32_t crc32(const uint8_t* bytes, size_t size) {
#if defined(__x86_64__)
  static const bool clmul = __builtin_cpu_supports("pclmul");
  if (clmul && size >= 64) return crc32_folded(bytes, size);
#endif
  return ~crc_update(0xFFFFFFFFu, bytes, size);
}

class TransactionElimination final : public WriteElimModel {
 public:
  Eligibility eligibility(const ImageTraits& image) const override {
    if (image.samples != 1) return {false, "multisampled (" + std::to_string(image.samples) + " samples)"};
    if (image.mip_levels != 1) return {false, "more than one mip level"};
    if (!image.color_attachment) return {false, "no color_attachment usage"};
    if (image.transient) return {false, "transient"};
    return {true, ""};
  }

  uint32_t signature(const uint8_t* bytes, size_t size) const override { return crc32(bytes, size); }
};

const Registrar<WriteElimModel> none_registrar("write_elim", "none", "every store is written",
                                               [](Params&) { return std::make_unique<NoWriteElim>(); });
const Registrar<WriteElimModel> te_registrar(
    "write_elim", "te", "Arm transaction elimination: a CRC per 16x16 block, unchanged blocks are not written",
    [](Params&) { return std::make_unique<TransactionElimination>(); });

}  // namespace
}  // namespace tbdr::models
