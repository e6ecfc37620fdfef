// What an HSR policy class (models/hsr/none.h, early_z.h, fpk.h, deferred.h) works on: a fragment,
// the per-pixel slot where a shaded fragment waits for a later occluder, and the tile's state.
#pragma once

#include <cstdint>
#include <vector>

namespace tbdr::models {

// A fragment as HSR sees it: its draw and its (primitive, 2x2 quad) pair, as the tile loop numbers
// them. Committing it (Sink::commit) shades it: the tile loop counts its quad, cost and layers.
struct HsrFragment {
  uint32_t draw = 0;
  uint32_t pair = 0;
};

// Per pixel: the fragment waiting to be shaded, if any (draw kNone: none waits), the low 32 bits of
// its issue number in the tile, and the color samples it wrote, which count only if it commits (a
// killed fragment is never shaded, so it writes nothing). 16 bytes: a 32x32 tile's take 16 KiB.
// `draw` next to `written`: emptying a slot (both stores) is one 8-byte store.
struct HsrWaiting {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t sequence = 0;
  uint32_t pair = 0;
  uint32_t draw = kNone;
  uint32_t written = 0;
};

// A policy's state over one tile: every pixel's waiting slot (all kNone between tiles) and the
// number of fragments issued to the shader so far (fpk's window counts in these).
struct HsrTile {
  std::vector<HsrWaiting> waiting;
  uint64_t issued = 0;

  void begin(uint32_t pixels) {
    waiting.resize(pixels);  // end_tile() leaves every slot empty
    issued = 0;
  }
};

// An HSR policy is a small copyable class (its parameters), chosen once per pass and run by the tile
// loop as a template parameter (sim/tile_work.h TypedTracker; the loop's instantiation is picked once
// per primitive), so nothing is dispatched per fragment:
//   static constexpr const char* k_name, k_description;  // its implementation name (--set hsr=NAME)
//   static Policy from_params(Params&);                   // declares and reads its parameters
//   // Whether rasterized() does anything: when true it commits every fragment it is given and
//   // does nothing else (none), when false nothing at all; either way the tile loop takes a box's
//   // fragments a (primitive, quad) pair at a time rather than calling it for every fragment.
//   static constexpr bool k_shades_rasterized;
//   // Every fragment a primitive covers, before any test.
//   void rasterized(Sink&, HsrTile&, HsrFragment, uint32_t pixel) const;
//   // A fragment the shader would run for under early tests (see TileWorkTracker::candidate_at);
//   // `occludes`: it can hide earlier ones. Returns its slot if it waits there, else nullptr.
//   // Tile: HsrTile, or a view with the same `waiting[pixel]` and `issued` (the tile loop's
//   // locals), so a template parameter.
//   HsrWaiting* candidate(Sink&, Tile&, HsrFragment, uint32_t pixel, bool occludes) const;
//   void end_tile(Sink&, HsrTile&) const;  // the tile is done: commit what waits
// Sink (the tile loop's counting): commit(HsrFragment, pixel) shades a fragment now;
// commit_waiting(HsrWaiting&, pixel) shades the one waiting there, with the colors it wrote;
// killed(const HsrWaiting&) counts one that leaves its slot unshaded (per-draw costs);
// commit_all_waiting(HsrTile&) does so for every pixel's, in pixel order, and empties the slots.
// Register a new policy in models/hsr/policies.h.

// The fragment waiting at `pixel`, if any, leaves its slot: shaded unless `killed`.
template <class Sink>
[[gnu::always_inline]] inline void release_waiting(Sink& sink, HsrWaiting& waiting, uint32_t pixel, bool killed) {
  if (waiting.draw == HsrWaiting::kNone) return;
  if (!killed) sink.commit_waiting(waiting, pixel);
  else sink.killed(waiting);
  waiting.draw = HsrWaiting::kNone;
}

}  // namespace tbdr::models
