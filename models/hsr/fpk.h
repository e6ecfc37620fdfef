// hsr=fpk: Arm Mali's Forward Pixel Kill (Arm, "Killing Pixels - A New Optimization for Shading on
// ARM Mali GPUs", and the Mali GPU Best Practices guide): early_z, and a fragment queued for shading
// is killed when a later opaque occluder covers its pixel while it is still in flight.
#pragma once

#include "models/hsr/policy.h"
#include "models/model.h"

namespace tbdr::models {

// In flight = at most `window` fragments issued after it in the tile's stream; a fragment that can
// occlude waits in its pixel's slot until a later fragment there decides, or the tile ends.
struct Fpk {
  static constexpr const char* k_name = "fpk";
  static constexpr const char* k_description =
      "forward pixel kill (Mali): early_z, and later opaque fragments kill queued ones within a window";
  static constexpr bool k_shades_rasterized = false;  // rasterized() commits (policy.h)
  uint32_t window = 64;  // fragments in flight that a later occluder can still kill

  static Fpk from_params(Params& p) {
    // guess: Arm does not publish the depth of the FPK queue; 64 fragments is four 16-lane warps.
    return Fpk{uint32_t(p.integer("window", 64, "fragments",
                                  "fragments in flight a later opaque occluder can still kill (guess)", 1, 1 << 24))};
  }

  template <class Sink>
  [[gnu::always_inline]] void rasterized(Sink&, HsrTile&, HsrFragment, uint32_t) const {}
  template <class Sink, class Tile>
  [[gnu::always_inline]] HsrWaiting* candidate(Sink& sink, Tile& tile, HsrFragment fragment, uint32_t pixel,
                                               bool occludes) const {
    const uint32_t sequence = uint32_t(++tile.issued);
    HsrWaiting& waiting = tile.waiting[pixel];
    // Modulo 2^32: exact below 2^32 fragments between the two in one tile.
    release_waiting(sink, waiting, pixel, occludes && uint32_t(sequence - waiting.sequence) <= window);
    if (!occludes) {
      sink.commit(fragment, pixel);
      return nullptr;
    }
    waiting = HsrWaiting{.sequence = sequence, .pair = fragment.pair, .draw = fragment.draw, .written = 0};
    return &waiting;
  }
  template <class Sink>
  void end_tile(Sink& sink, HsrTile& tile) const {
    sink.commit_all_waiting(tile);
  }
};

}  // namespace tbdr::models
