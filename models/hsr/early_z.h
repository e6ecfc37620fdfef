// hsr=early_z: the early depth/stencil test in draw order (Vulkan specification, "Early Fragment
// Tests"): a fragment failing it is not shaded, every one passing it is, even if a later one hides it.
#pragma once

#include "models/hsr/policy.h"
#include "models/model.h"

namespace tbdr::models {

struct EarlyZ {
  static constexpr const char* k_name = "early_z";
  static constexpr const char* k_description =
      "early depth/stencil test in draw order: fragments failing it are not shaded";
  static constexpr bool k_shades_rasterized = false;  // rasterized() commits (policy.h)
  static EarlyZ from_params(Params&) { return {}; }

  template <class Sink>
  [[gnu::always_inline]] void rasterized(Sink&, HsrTile&, HsrFragment, uint32_t) const {}
  template <class Sink, class Tile>
  [[gnu::always_inline]] HsrWaiting* candidate(Sink& sink, Tile&, HsrFragment fragment, uint32_t pixel, bool) const {
    sink.commit(fragment, pixel);
    return nullptr;
  }
  template <class Sink>
  void end_tile(Sink&, HsrTile&) const {}
};

}  // namespace tbdr::models
