// hsr=none, the reference: no early test removes work, every rasterized fragment runs the shader,
// hidden or not (what an immediate renderer without early depth testing does).
#pragma once

#include "models/hsr/policy.h"
#include "models/model.h"

namespace tbdr::models {

struct NoHsr {
  static constexpr const char* k_name = "none";
  static constexpr const char* k_description = "no early test: every rasterized fragment is shaded";
  static constexpr bool k_shades_rasterized = true;  // rasterized() commits (policy.h)
  static NoHsr from_params(Params&) { return {}; }

  template <class Sink>
  [[gnu::always_inline]] void rasterized(Sink& sink, HsrTile&, HsrFragment fragment, uint32_t pixel) const {
    sink.commit(fragment, pixel);
  }
  // Already shaded when rasterized.
  template <class Sink, class Tile>
  [[gnu::always_inline]] HsrWaiting* candidate(Sink&, Tile&, HsrFragment, uint32_t, bool) const {
    return nullptr;
  }
  template <class Sink>
  void end_tile(Sink&, HsrTile&) const {}
};

}  // namespace tbdr::models
