// write_elim=none and write_elim=te. Transaction elimination (Arm; domain.md sections 6 and 10:
// counter FRAG_TRANS_ELIM counts 16x16 tiles killed by the CRC check): a CRC-32 per 16x16 block,
// eligible images: 1 sample, 1 mip level, color_attachment usage, not transient.
#include <array>
#include <memory>
#include <string>

#include "models/registry.h"
#include "models/write_elim/write_elim.h"

namespace tbdr::models {
namespace {

class NoWriteElim final : public WriteElimModel {
 public:
  std::string ineligible_reason(const ImageTraits&) const override { return "write_elim=none"; }
  uint32_t signature(const uint8_t*, size_t) const override { return 0; }
};

// CRC-32 (IEEE 802.3 polynomial, reflected 0xEDB88320), the usual framebuffer-signature CRC.
std::array<uint32_t, 256> crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

class TransactionElimination final : public WriteElimModel {
 public:
  std::string ineligible_reason(const ImageTraits& image) const override {
    if (image.samples != 1) return "multisampled (" + std::to_string(image.samples) + " samples)";
    if (image.mip_levels != 1) return "more than one mip level";
    if (!image.color_attachment) return "no color_attachment usage";
    if (image.transient) return "transient";
    return "";
  }

  uint32_t signature(const uint8_t* bytes, size_t size) const override {
    static const std::array<uint32_t, 256> table = crc_table();
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; ++i) c = table[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
  }
};

const Registrar<WriteElimModel> none_registrar("write_elim", "none", "every store is written",
                                               [](Params&) { return std::make_unique<NoWriteElim>(); });
const Registrar<WriteElimModel> te_registrar(
    "write_elim", "te", "Arm transaction elimination: a CRC per 16x16 block, unchanged blocks are not written",
    [](Params&) { return std::make_unique<TransactionElimination>(); });

}  // namespace
}  // namespace tbdr::models
