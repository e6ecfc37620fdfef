// The `write_elim` kind: transaction elimination (Arm TE; models/README.md "Sources: bandwidth
// savers"): a signature per 16x16 block of an image; a store whose block signature matches the stored one is skipped.
#pragma once

#include <cstddef>
#include <cstdint>

#include "models/model.h"
#include "models/work.h"

namespace tbdr::models {

// Contract:
// - eligibility: whether stores of the image are checked against signatures, else why not.
// - signature: the block's signature from its stored bytes (called once per stored block).
// Deterministic; no state (sim/ keeps the signatures per image across frames).
class WriteElimModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "write_elim";
  static constexpr const char* k_description = "transaction elimination: skip block writes whose signature is unchanged";

  virtual Eligibility eligibility(const ImageTraits& image) const = 0;
  virtual uint32_t signature(const uint8_t* bytes, size_t size) const = 0;
};

}  // namespace tbdr::models
