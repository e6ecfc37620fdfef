// Per-tile work counting for the timing models: the HSR policy applied to the tile's real
// fragments (which ones get shaded), 2x2 quads, shader cost sums and per-pixel layer counts.
#pragma once

#include <cstdint>
#include <vector>

#include "models/hsr/hsr.h"
#include "models/work.h"
#include "sim/frame.h"

namespace tbdr {

// Why a draw's fragments cannot occlude (domain.md section 10: "FPK occluders must be opaque and
// resolved at early ZS: blending, discard, alpha-to-coverage, shader depth writes and tile-buffer
// reads cannot occlude"). Alpha-to-coverage has no trace field (traces/README.md), so it never
// arises. Such a fragment commits what waits at its pixel and is shaded itself (TileWorkTracker).
struct HsrBreakers {
  bool blending = false, discard = false, shader_depth_write = false, tile_read = false;
  bool any() const { return blending || discard || shader_depth_write || tile_read; }
};
// Inline: raster_triangle asks once per primitive. `program_input_attachments`: the subpass inputs
// the draw's program reads (CompiledProgram / ProgramInfo::input_attachments); the draw's cost
// descriptor may declare tile reads too (cost.tile_reads, e.g. a captured shader's subpassLoad).
inline HsrBreakers hsr_breakers(const Draw& draw, uint32_t program_input_attachments) {
  HsrBreakers b;
  for (const BlendAttachmentState& blend : draw.state.blend) b.blending = b.blending || blend.enable;
  b.discard = draw.state.discard;
  b.shader_depth_write = draw.state.shader_depth_write;
  b.tile_read = draw.cost.tile_reads > 0 || program_input_attachments > 0;
  return b;
}

// Counts a tile's work from raster_triangle's calls. Quads are counted per (primitive, quad)
// pair, so the tracker relies on how tiles are rasterized: primitive after primitive in
// increasing index order (binning lists them sorted), each one's rasterized() and candidate()
// calls together, candidate() right after rasterized() of the same fragment. A call out of
// that order throws std::logic_error rather than miscount.
class TileWorkTracker {
 public:
  // Once per hardware pass: the policy and every draw's cost (indexed like ScreenPrims::draw).
  void begin_pass(models::HsrPolicy policy, std::vector<const Draw*> draws);
  void begin_tile(const Rect& rect, uint32_t samples);
  // The tile begin_tile() set, and its quads per row: a caller that keeps them in registers passes
  // pixel_index() and quad_index() of each fragment to the *_at calls below (the tracker's own
  // stores may alias its fields, so it reloads them for every fragment).
  const Rect& rect() const { return m_rect; }
  uint32_t quad_columns() const { return m_quad_columns; }
  uint32_t pixel_index(int32_t x, int32_t y) const {
    return uint32_t(y - m_rect.y) * m_rect.width + uint32_t(x - m_rect.x);
  }
  uint32_t quad_index(int32_t x, int32_t y) const {
    return (uint32_t(y - m_rect.y) >> 1) * m_quad_columns + (uint32_t(x - m_rect.x) >> 1);
  }

  // A primitive covered pixel (x, y).
  void rasterized(uint32_t prim, uint32_t draw, int32_t x, int32_t y) {
    rasterized_at(prim, draw, x, y, pixel_index(x, y), quad_index(x, y));
  }
  // The same, `pixel` and `quad` being pixel (x, y)'s indices in the tile.
  void rasterized_at(uint32_t prim, uint32_t draw, int32_t x, int32_t y, uint32_t pixel, uint32_t quad) {
    ++m_work.fragments_rasterized;
    if (m_overdraw) count_overdraw(x, y);
    // The quad's first fragment of this primitive: a new pair. Primitives come in order, so a
    // quad whose latest primitive is another one has not seen this one before.
    if (m_quad_prim[quad] != prim) new_pair(prim, quad);
    // No HSR at all: every rasterized fragment runs the shader, hidden or not.
    if (m_policy.mode == models::HsrMode::none) commit(m_quad_pair[quad], draw, pixel);
  }
  // A fragment the shader would run for under early tests: it passed them (early-test draws), or
  // it is a late-test draw's covered fragment. `occludes`: it is opaque, wrote depth and
  // covered every sample, so a later one can hide earlier ones (fpk, deferred).
  void candidate(uint32_t prim, uint32_t draw, int32_t x, int32_t y, bool occludes) {
    candidate_at(prim, draw, pixel_index(x, y), quad_index(x, y), occludes);
  }
  // The same, `pixel` and `quad` being the fragment's indices in the tile.
  void candidate_at(uint32_t prim, uint32_t draw, uint32_t pixel, uint32_t quad, bool occludes) {
    if (m_policy.mode == models::HsrMode::none) return;  // already committed when rasterized
    if (m_quad_prim[quad] != prim) out_of_order();
    const uint32_t sequence = uint32_t(++m_sequence);
    Pending& pending = m_pending[pixel];
    if (pending.draw != kNotWaiting) {
      // Modulo 2^32: exact below 2^32 fragments between the two in one tile.
      const bool killed = occludes && uint32_t(sequence - pending.sequence) <= m_kill_window;
      if (!killed) commit_pending(pending, pixel);
      pending.draw = kNotWaiting;
    }
    if (occludes && m_policy.mode != models::HsrMode::early_z) {
      pending = Pending{sequence, draw, m_quad_pair[quad], 0};
      m_last_pending = &pending;
    } else {
      m_last_pending = nullptr;
      commit(m_quad_pair[quad], draw, pixel);
    }
  }
  // A color sample the fragment of the latest candidate() (or rasterized(), hsr=none) wrote. Every
  // written sample counts in written_samples, a blended one also in blended_samples (the blend
  // read-modify costs on top of the write, models/README.md shader). A fragment still pending
  // (deferred, fpk) keeps its writes aside: they count only if it commits; a killed fragment is
  // never shaded, so it writes nothing.
  void color_written(bool blended) {
    if (blended) ++m_work.blended_samples;  // blended fragments never occlude: never pending
    if (m_last_pending && !blended) ++m_last_pending->written;
    else ++m_work.written_samples;
  }
  // color_written(false) `count` times.
  void unblended_colors_written(uint32_t count) {
    if (m_last_pending) m_last_pending->written += count;
    else m_work.written_samples += count;
  }
  // Optional per-pixel rasterized-fragment counts over the framebuffer (overdraw heatmaps).
  void set_overdraw(std::vector<uint16_t>* counts, uint32_t width) {
    m_overdraw = counts;
    m_overdraw_width = width;
  }
  // Commits what is still pending and returns the tile's work.
  const models::TileWork& end_tile();
  models::TileWork& work() { return m_work; }

 private:
  static constexpr uint32_t kNoPrim = UINT32_MAX;  // a quad no primitive covered yet in the tile
  // Per pixel: the occluder waiting to be shaded, if any: its draw, (primitive, quad) pair,
  // issue order and the color samples it wrote.
  // 16 bytes (a 32x32 tile's are 16 KiB, with its deferred pixels and depth nearer L1's size);
  // draw kNotWaiting: none waits.
  static constexpr uint32_t kNotWaiting = UINT32_MAX;
  struct Pending {
    uint32_t sequence = 0;  // the low 32 bits of its m_sequence
    uint32_t draw = kNotWaiting;
    uint32_t pair = 0;
    uint32_t written = 0;
  };

  // Numbers the (prim, quad) pair (pairs of a tile are numbered from 0: the count so far).
  void new_pair(uint32_t prim, uint32_t quad) {
    if (m_quad_prim[quad] != kNoPrim && m_quad_prim[quad] > prim) out_of_order();
    m_quad_prim[quad] = prim;
    m_quad_pair[quad] = uint32_t(m_work.quads_rasterized++);
    m_pair_shaded.push_back(0);
  }
  [[noreturn]] static void out_of_order();
  void commit(uint32_t pair, uint32_t draw, uint32_t pixel) {
    ++m_work.fragments_shaded;
    const DrawCost& cost = m_draws[draw]->cost;
    if (!m_pair_shaded[pair]) {
      m_pair_shaded[pair] = 1;
      ++m_work.quads_shaded;
      // Four lanes per quad, helper lanes included.
      m_work.alu_cycles += 4.0 * cost.alu;
      m_work.texture_samples += 4.0 * cost.texture_samples;
      m_work.tile_reads += 4.0 * cost.tile_reads;
      m_work.varyings += 4.0 * cost.varyings;
    }
    if (cost.tile_reads > 0) {
      ++m_layers[pixel];
      m_tile_read_sum += cost.tile_reads;
      ++m_tile_read_fragments;
    }
  }
  // Commits the pending fragment of `pixel` with its color writes.
  void commit_pending(Pending& pending, uint32_t pixel) {
    commit(pending.pair, pending.draw, pixel);
    m_work.written_samples += pending.written;
    pending.written = 0;
  }
  void count_overdraw(int32_t x, int32_t y) {
    uint16_t& count = (*m_overdraw)[size_t(y) * m_overdraw_width + size_t(x)];
    if (count < UINT16_MAX) ++count;
  }

  models::HsrPolicy m_policy;
  // Candidates apart at most this far (in shaded-fragment order) let an occluder kill the
  // pending one: deferred, the whole tile; fpk, its window; early_z, none.
  uint64_t m_kill_window = 0;
  std::vector<const Draw*> m_draws;
  Rect m_rect;
  uint32_t m_quad_columns = 0;
  models::TileWork m_work;
  uint64_t m_sequence = 0;                 // fragments issued to the shader in this tile
  std::vector<Pending> m_pending;          // per pixel
  Pending* m_last_pending = nullptr;       // the latest candidate, when it is pending
  std::vector<uint32_t> m_layers;          // per pixel: shaded tile-memory-reading fragments
  double m_tile_read_sum = 0;
  uint64_t m_tile_read_fragments = 0;
  // Per quad: the latest primitive that covered it and the number of that (primitive, quad)
  // pair; per pair: whether a fragment of it was shaded.
  std::vector<uint32_t> m_quad_prim, m_quad_pair;
  std::vector<uint8_t> m_pair_shaded;
  std::vector<uint16_t>* m_overdraw = nullptr;
  uint32_t m_overdraw_width = 0;
};

}  // namespace tbdr
