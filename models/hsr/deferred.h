// hsr=deferred: PowerVR's Hidden Surface Removal (Imagination, "PowerVR Hardware Architecture
// Overview for Developers"): the ISP resolves visibility for the whole tile before the TSP shades,
// so of a pixel's opaque fragments only the finally visible one is shaded.
#pragma once

#include "models/hsr/policy.h"
#include "models/model.h"

namespace tbdr::models {

// A fragment that can occlude waits in its pixel's slot until the tile ends: a later occluder
// there kills it, a later fragment that cannot occlude (blending, discard, ...) has it shaded first.
struct Deferred {
  static constexpr const char* k_name = "deferred";
  static constexpr const char* k_description =
      "PowerVR-like deferred HSR: only the finally visible opaque fragment of a pixel is shaded";
  static constexpr bool k_shades_rasterized = false;  // rasterized() commits (policy.h)
  static Deferred from_params(Params&) { return {}; }

  template <class Sink>
  [[gnu::always_inline]] void rasterized(Sink&, HsrTile&, HsrFragment, uint32_t) const {}
  template <class Sink, class Tile>
  [[gnu::always_inline]] HsrWaiting* candidate(Sink& sink, Tile& tile, HsrFragment fragment, uint32_t pixel,
                                               bool occludes) const {
    HsrWaiting& waiting = tile.waiting[pixel];
    release_waiting(sink, waiting, pixel, occludes);
    if (!occludes) {
      sink.commit(fragment, pixel);
      return nullptr;
    }
    waiting = HsrWaiting{.sequence = 0, .pair = fragment.pair, .draw = fragment.draw, .written = 0};
    return &waiting;
  }
  template <class Sink>
  void end_tile(Sink& sink, HsrTile& tile) const {
    sink.commit_all_waiting(tile);
  }
};

}  // namespace tbdr::models
