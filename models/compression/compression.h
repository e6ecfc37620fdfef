// The `compression` kind: framebuffer compression of stored images (Arm AFBC; models/README.md
// "Sources: bandwidth savers"): which images are eligible and how many bytes a 16x16 superblock takes, from its pixels.
#pragma once

#include "models/model.h"
#include "models/units.h"
#include "models/work.h"

namespace tbdr::models {

// Contract:
// - eligibility: whether the image is stored compressed, else why not (reported per attachment).
// - superblock_bytes: the DRAM bytes of one superblock (header and payload) from its pixels;
//   never more than the header plus the uncompressed pixels present. Called once per stored
//   superblock (the model needs the pixels themselves, README.md "Design rules").
// Deterministic; no state.
class CompressionModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "compression";
  static constexpr const char* k_description = "framebuffer compression of stored images (AFBC)";

  virtual Eligibility eligibility(const ImageTraits& image) const = 0;
  virtual Bytes superblock_bytes(const SuperblockPixels& block) const = 0;
};

}  // namespace tbdr::models
