// The `direct` kind: render a pass tile by tile (GMEM / tile buffer) or directly to DRAM-backed
// attachments (sysmem / immediate mode, Adreno FlexRender;
// models/README.md "Sources: merging subpasses" and "Sources: preset numbers").
#pragma once

#include <cstdint>
#include <string>

#include "models/model.h"

namespace tbdr::models {

// What a per-pass choice may look at (turnip's autotune inputs, models/README.md "Sources: preset numbers").
struct DirectInput {
  uint64_t pixels = 0;              // render-area pixels
  uint32_t draws = 0;
  uint32_t samples = 1;             // the pass's largest sample count
  double sysmem_bytes_per_pixel = 0;  // bytes a pixel costs rendered directly (every attachment read and written once)
  double gmem_bytes_per_pixel = 0;    // bytes a pixel costs in tiles (the loads and stores its ops ask for)
  double draw_bytes = 0;              // geometry-side traffic of the pass (vertices), either way
};

struct DirectDecision {
  bool direct = false;
  std::string reason;
  double sysmem_bandwidth = 0, gmem_bandwidth = 0;  // the compared figures (0 when not compared)
  uint64_t fb_cache_bytes = 0;  // framebuffer cache of direct rendering
  uint32_t line_bytes = 64;     // its line size
};

// Contract: once per render pass, whether it renders directly, why, and the framebuffer cache
// direct rendering goes through. Deterministic; no state.
class DirectModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "direct";
  static constexpr const char* k_description = "render a pass in tiles or directly to DRAM (FlexRender-like choice)";

  virtual DirectDecision decide(const DirectInput& input) const = 0;
};

}  // namespace tbdr::models
