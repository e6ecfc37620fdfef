// Per-tile work counting for the timing models: the HSR policy applied to the tile's real
// fragments (which ones get shaded), 2x2 quads, shader cost sums and per-pixel layer counts.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "models/hsr/hsr.h"
#include "models/work.h"
#include "sim/frame.h"

namespace tbdr {

// Why a draw's fragments cannot occlude (domain.md section 6; Arm: FPK occluders must be opaque
// and resolved at early ZS).
struct HsrBreakers {
  bool blending = false, discard = false, shader_depth_write = false;
  bool any() const { return blending || discard || shader_depth_write; }
};
HsrBreakers hsr_breakers(const Draw& draw);

class TileWorkTracker {
 public:
  // Once per hardware pass: the policy and every draw's cost (indexed like ScreenPrims::draw).
  void begin_pass(models::HsrPolicy policy, std::vector<const Draw*> draws);
  void begin_tile(const Rect& rect, uint32_t samples);
  // A primitive covered pixel (x, y).
  void rasterized(uint32_t prim, uint32_t draw, int32_t x, int32_t y);
  // A fragment the shader would run for under early tests: it passed them (early-test draws), or
  // it is a late-test draw's covered fragment. `occludes`: it is opaque, wrote depth and
  // covered every sample, so a later one can hide earlier ones (fpk, deferred).
  void candidate(uint32_t prim, uint32_t draw, int32_t x, int32_t y, bool occludes);
  // A color sample the fragment of the latest candidate() (or rasterized(), hsr=none) wrote. Every
  // written sample counts in written_samples, a blended one also in blended_samples (the blend
  // read-modify costs on top of the write, models/README.md shader). A fragment still pending
  // (deferred, fpk) keeps its writes aside: they count only if it commits; a killed fragment is
  // never shaded, so it writes nothing.
  void color_written(bool blended);
  // Optional per-pixel rasterized-fragment counts over the framebuffer (overdraw heatmaps).
  void set_overdraw(std::vector<uint16_t>* counts, uint32_t width) {
    m_overdraw = counts;
    m_overdraw_width = width;
  }
  // Commits what is still pending and returns the tile's work.
  const models::TileWork& end_tile();
  models::TileWork& work() { return m_work; }

 private:
  void commit(uint32_t prim, uint32_t draw, uint32_t pixel);
  void commit_pending(uint32_t pixel);  // commits the pending fragment of `pixel` with its color writes
  uint32_t pixel_index(int32_t x, int32_t y) const {
    return uint32_t(y - m_rect.y) * m_rect.width + uint32_t(x - m_rect.x);
  }
  uint64_t quad_key(uint32_t prim, int32_t x, int32_t y) const {
    const uint64_t quad = uint64_t(uint32_t(y - m_rect.y) >> 1) * ((m_rect.width + 1) / 2) + (uint32_t(x - m_rect.x) >> 1);
    return (uint64_t(prim) << 32) | quad;
  }

  models::HsrPolicy m_policy;
  std::vector<const Draw*> m_draws;
  Rect m_rect;
  models::TileWork m_work;
  uint64_t m_sequence = 0;                 // fragments issued to the shader in this tile
  std::vector<int64_t> m_pending_prim;     // per pixel: the occluder waiting to be shaded, -1 none
  std::vector<uint32_t> m_pending_draw;
  std::vector<uint64_t> m_pending_sequence;
  std::vector<uint64_t> m_pending_written;  // per pixel: color samples the pending fragment wrote
  int64_t m_last_pending_pixel = -1;       // the latest candidate, when it is pending; -1 otherwise
  std::vector<uint32_t> m_layers;          // per pixel: shaded tile-memory-reading fragments
  double m_tile_read_sum = 0;
  uint64_t m_tile_read_fragments = 0;
  std::unordered_set<uint64_t> m_rasterized_quads, m_shaded_quads;
  std::vector<uint16_t>* m_overdraw = nullptr;
  uint32_t m_overdraw_width = 0;
};

}  // namespace tbdr
