// The `hsr` kind: which rasterized fragments get shaded (hidden-surface removal, domain.md
// section 6). sim/ applies the policy to the real per-pixel fragments; pixels never change.
#pragma once

#include <cstdint>

#include "models/model.h"

namespace tbdr::models {

enum class HsrMode {
  none,      // no early test: every rasterized fragment is shaded
  early_z,   // early depth/stencil test in draw order: fragments failing it are not shaded
  fpk,       // forward pixel kill: early_z, and a shaded fragment is killed when a later opaque
             // fragment covers its pixel within `fpk_window` fragments of the tile's stream
  deferred,  // PowerVR-like: only the finally visible opaque fragment of a pixel is shaded
};

struct HsrPolicy {
  HsrMode mode = HsrMode::none;
  uint32_t fpk_window = 0;  // fragments in flight that a later occluder can still kill (fpk)
};

// Contract:
// - Returns the policy for the whole run (called once per pass).
// - Draws with blending, `discard` or `shader_depth_write` never occlude and are shaded as
//   under early_z at best (Arm: FPK occluders must be opaque and resolved at early ZS,
//   domain.md section 10); sim/ counts them per cause.
class HsrModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "hsr";
  static constexpr const char* k_description = "hidden-surface removal: which fragments are shaded";

  virtual HsrPolicy policy() const = 0;
};

}  // namespace tbdr::models
