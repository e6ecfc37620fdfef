// The `hsr` kind: which rasterized fragments get shaded (hidden-surface removal). Each
// implementation is a header-only policy class (models/hsr/policies.h) that sim/'s tile loop runs
// on the real per-pixel fragments; pixels never change, only the shading work counted.
#pragma once

#include "models/hsr/policies.h"
#include "models/model.h"

namespace tbdr::models {

// Contract:
// - Returns the policy for the whole run (called once per pass): the alternative of HsrPolicy
//   the implementation names, with its parameters. sim/ calls its per-fragment methods from the
//   tile loop, instantiated per alternative (picked once per primitive, never per fragment).
// - Draws with blending, `discard`, `shader_depth_write` or tile-memory reads never occlude (sim/
//   passes occludes = false, counting them per cause): Arm's FPK and Imagination's HSR need
//   opaque occluders whose depth is known before shading.
class HsrModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "hsr";
  static constexpr const char* k_description = "hidden-surface removal: which fragments are shaded";

  virtual HsrPolicy policy() const = 0;
};

}  // namespace tbdr::models
