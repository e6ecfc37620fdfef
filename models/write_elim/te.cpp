// write_elim=none and write_elim=te. Transaction elimination (Arm; models/README.md "Sources: bandwidth savers":
// counter FRAG_TRANS_ELIM counts 16x16 tiles killed by the CRC check): a CRC-32 per 16x16 block,
// eligible images: 1 sample, 1 mip level, color_attachment usage, not transient.
#include <memory>
#include <string>

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

uint32_t crc32(const uint8_t* bytes, size_t size) {
  static const CrcTables tables;
  const auto& t = tables.t;
  uint32_t c = 0xFFFFFFFFu;
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
  return c ^ 0xFFFFFFFFu;
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
