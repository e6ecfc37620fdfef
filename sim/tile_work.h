// Per-tile work counting for the timing models: runs the pass's HSR policy (models/hsr) on the
// tile's real fragments and counts what it shades: 2x2 quads, shader cost sums, per-pixel layers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "models/hsr/hsr.h"
#include "models/work.h"
#include "sim/frame.h"

namespace tbdr {

// Why a draw's fragments cannot occlude: an occluder must be opaque and its depth known before
// shading (Arm's Mali GPU Best Practices guide on FPK and early ZS: blending, discard,
// alpha-to-coverage, shader depth writes and tile-buffer reads disable it; Imagination's PowerVR
// guide likewise for HSR). Alpha-to-coverage has no trace field (traces/README.md), so it never
// arises. Such a fragment has what waits at its pixel shaded, and is shaded itself (models/hsr).
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

// For each parity of a kBox x kBox box's origin in its tile (x & 1 | (y & 1) << 1) and each bit
// kBox dy + dx of the box: the bits of the box's pixels that share that pixel's 2x2 quad.
template <int kBox>
struct BoxSameQuad {
  uint64_t bits[4][kBox * kBox];
  constexpr BoxSameQuad() : bits() {
    for (int parity = 0; parity < 4; ++parity) {
      auto quad = [&](int bit) { return ((parity >> 1) + bit / kBox) / 2 * kBox + ((parity & 1) + bit % kBox) / 2; };
      for (int a = 0; a < kBox * kBox; ++a)
        for (int b = 0; b < kBox * kBox; ++b)
          if (quad(a) == quad(b)) bits[parity][a] |= uint64_t(1) << b;
    }
  }
};
template <int kBox>
inline constexpr BoxSameQuad<kBox> kBoxSameQuad{};

// Counts a tile's work from raster_triangle's calls: 2x2 quads, shader cost sums and per-pixel
// layer counts of the fragments its pass's HSR policy (models/hsr) commits. Quads are counted per
// (primitive, quad) pair, so the tracker relies on how tiles are rasterized: primitive after
// primitive in increasing index order (binning lists them sorted), each one's rasterized() and
// candidate() calls together, candidate() right after rasterized() of the same fragment. A call out
// of that order throws std::logic_error rather than miscount. The per-fragment calls take the
// policy as a type (TypedTracker, from visit_hsr()): no dispatch per fragment.
class TileWorkTracker {
 public:
  // Once per hardware pass: the HSR policy and every draw's cost (indexed like ScreenPrims::draw).
  void begin_pass(const models::HsrPolicy& hsr, std::vector<const Draw*> draws);
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

  // For raster_tiny's kBox x kBox boxes (kBox 4 or 8; bit kBox dy + dx of a box at (x, y) in the
  // tile): dy * width + dx, the pixel's index minus the box origin's, and the quad index of
  // (x + dx, y + dy) minus that of (x, y), which depends on the parity of x and y only. Tables
  // of the tile's width: one load a fragment instead of the multiplications and shifts.
  template <int kBox>
  const uint32_t* box_pixel_offsets() const {
    return kBox == 4 ? m_box_offsets.pixel4 : m_box_offsets.pixel8;
  }
  template <int kBox>
  const uint32_t* box_quad_offsets(int32_t x, int32_t y) const {
    const uint32_t parity = uint32_t(x & 1) | uint32_t(y & 1) << 1;
    return kBox == 4 ? m_box_offsets.quad4[parity] : m_box_offsets.quad8[parity];
  }

  // Calls `f` with this tracker typed with the pass's policy (a TypedTracker<Policy>): once per
  // primitive, so the primitive's loops are instantiated per policy.
  template <class F>
  void visit_hsr(F&& f);

  // A primitive covered pixel (x, y), `pixel` and `quad` being its indices in the tile; `hsr` is
  // the pass's policy.
  template <class Hsr>
  [[gnu::always_inline]] void rasterized_at(const Hsr& hsr, uint32_t prim, uint32_t draw, int32_t x, int32_t y,
                                            uint32_t pixel, uint32_t quad) {
    ++m_work.fragments_rasterized;
    if (m_overdraw) count_overdraw(x, y);
    // The quad's first fragment of this primitive: a new pair. Primitives come in order, so a
    // quad whose latest primitive is another one has not seen this one before.
    if (m_quad_prim[quad] != prim) new_pair(prim, quad);
    Sink sink{*this};
    hsr.rasterized(sink, m_hsr_tile, models::HsrFragment{draw, m_quad_pair[quad]}, pixel);
  }
  // A fragment the shader would run for under early tests: it passed them (early-test draws), or
  // it is a late-test draw's covered fragment. `occludes`: it is opaque, wrote depth and
  // covered every sample, so a later one can hide earlier ones (fpk, deferred). The policy
  // commits it, or keeps it waiting at its pixel (its color writes then wait with it).
  template <class Hsr>
  [[gnu::always_inline]] void candidate_at(const Hsr& hsr, uint32_t prim, uint32_t draw, uint32_t pixel, uint32_t quad,
                                           bool occludes) {
    if (m_quad_prim[quad] != prim) out_of_order();
    ++m_candidates;
    Sink sink{*this};
    m_last_pending = hsr.candidate(sink, m_hsr_tile, models::HsrFragment{draw, m_quad_pair[quad]}, pixel, occludes);
  }
  // candidate_at() then unblended_colors_written(count), for a caller that called rasterized_at()
  // for this fragment just before (its pair is numbered, so the order check is not repeated):
  // raster_tiny's deferred-color fragments, one call instead of two.
  template <class Hsr>
  [[gnu::always_inline]] void candidate_writing_at(const Hsr& hsr, uint32_t draw, uint32_t pixel, uint32_t quad,
                                                   bool occludes, uint32_t count) {
    ++m_candidates;
    m_all_written += count;
    Sink sink{*this};
    m_last_pending = hsr.candidate(sink, m_hsr_tile, models::HsrFragment{draw, m_quad_pair[quad]}, pixel, occludes);
    if (m_last_pending) m_last_pending->written += count;
    else m_work.written_samples += count;
  }
  // raster_tiny's common case in passes over a kBox x kBox box at tile pixel `pixel_base` and quad
  // `quad_base` (`quad_offsets`: box_quad_offsets of the box's origin): rasterized_box() takes
  // every fragment the primitive covers (bit kBox dy + dx of `covered`, the box at (x, y)), then
  // the raster loop tests depths, then candidates_box() takes those that passed, each writing
  // `color_writes` unblended samples. The same counts as rasterized_at() then
  // candidate_writing_at() fragment by fragment: every policy commits in one of the two calls only
  // (none in rasterized, the others in candidate), so its commits keep their order, and a
  // fragment's pair is numbered before its candidate either way. One loop each: interleaved with
  // the depth test, the loop's state spilled to the stack (perf of the million-triangle frame).
  // rasterized_box returns the number of fragments (bits of `covered`).
  template <int kBox, class Hsr>
  [[gnu::always_inline]] uint64_t rasterized_box(const Hsr& hsr, uint32_t prim, uint32_t draw, int32_t x, int32_t y,
                                             uint64_t covered, uint32_t pixel_base, uint32_t quad_base,
                                             const uint32_t* quad_offsets) {
    const uint32_t* const pixel_offsets = box_pixel_offsets<kBox>();
    uint32_t* const quad_prim = m_quad_prim.data();
    uint32_t* const quad_pair = m_quad_pair.data();
    uint64_t count = 0, pairs = m_work.quads_rasterized;
    // Room for a new pair a fragment, made before the loop: the size check and the array's
    // pointer, reloaded after each byte store, were 5 instructions a new pair.
    while (pairs + kBox * kBox > m_pair_shaded.size()) grow_pairs();
    uint8_t* const pair_shaded = m_pair_shaded.data();
    // new_pair(), the pairs counted in a local.
    auto number_pair = [&](uint32_t quad) __attribute__((always_inline)) {
      if (quad_prim[quad] == prim) return;
      if (later_prim(quad_prim[quad], prim)) out_of_order();
      quad_prim[quad] = prim;
      const uint32_t pair = uint32_t(pairs++);
      quad_pair[quad] = pair;
      pair_shaded[pair] = 0;
    };
    // One step a quad, whose other fragments' bits are then cleared (kBoxSameQuad), so each pair
    // gets the number it got fragment by fragment (the million-triangle frame: 3 quads for 8
    // fragments, 50 instructions a triangle fewer).
    const uint32_t parity = (uint32_t(x - m_rect.x) & 1) | (uint32_t(y - m_rect.y) & 1) << 1;
    const uint64_t* const same_quad = kBoxSameQuad<kBox>.bits[parity];
    if constexpr (!Hsr::k_shades_rasterized) {
      (void)hsr, (void)pixel_offsets;
      for (uint64_t m = covered; m; m &= ~same_quad[__builtin_ctzll(m)])
        number_pair(quad_base + quad_offsets[__builtin_ctzll(m)]);
    } else {
      commit_box<kBox>(draw, covered, pixel_base, quad_base, quad_offsets, same_quad, number_pair);
    }
    // Counted after the loops: live across them, the count cost the million-triangle frame's
    // loop 17 instructions a triangle in spills (callgrind).
    count = uint64_t(__builtin_popcountll(covered));
    m_work.quads_rasterized = pairs;
    m_work.fragments_rasterized += count;
    if (m_overdraw)
      for (uint64_t m = covered; m; m &= m - 1) {
        const int32_t bit = __builtin_ctzll(m);
        count_overdraw(x + bit % kBox, y + bit / kBox);
      }
    return count;
  }
  template <int kBox, class Hsr>
  [[gnu::always_inline]] void candidates_box(const Hsr& hsr, uint32_t draw, uint64_t passed, uint32_t pixel_base,
                                             uint32_t quad_base, const uint32_t* quad_offsets, bool occludes,
                                             uint32_t color_writes) {
    if (!passed) return;
    const uint32_t* const pixel_offsets = box_pixel_offsets<kBox>();
    const uint32_t* const quad_pair = m_quad_pair.data();
    const uint64_t candidates = uint64_t(__builtin_popcountll(passed));
    m_candidates += candidates;
    m_all_written += candidates * color_writes;
    ShadeSums sums{0, 0, 0, m_work.alu_cycles, m_work.texture_samples, m_work.tile_reads, m_work.varyings};
    LocalTile tile{m_hsr_tile.waiting.data(), m_hsr_tile.issued};
    models::HsrWaiting* pending = nullptr;
    // `occludes` a compile-time fact in each of the loop's copies: the policy's tests of it were two
    // a fragment. So is whether a draw of the pass reads tile memory (LocalSink): without, a commit
    // reads the draw's cost only for a new quad (17 -> 10 instructions a commit, million frame).
    auto loop = [&](auto occluder, auto tile_reads) __attribute__((always_inline)) {
      LocalSink<decltype(tile_reads)::value> sink{*this, sums, m_draws.data(), m_draw_shading.data(),
                                                  m_pair_shaded.data()};
      for (; passed; passed &= passed - 1) {
        const uint32_t bit = uint32_t(__builtin_ctzll(passed));
        const uint32_t quad = quad_base + quad_offsets[bit];
        pending = hsr.candidate(sink, tile, models::HsrFragment{draw, quad_pair[quad]}, pixel_base + pixel_offsets[bit],
                                bool(decltype(occluder)::value));
        if (pending) pending->written += color_writes;
        else sums.written_samples += color_writes;
      }
    };
    if (m_any_tile_reads) {
      if (occludes) loop(std::true_type(), std::true_type());
      else loop(std::false_type(), std::true_type());
    } else if (occludes) loop(std::true_type(), std::false_type());
    else loop(std::false_type(), std::false_type());
    m_hsr_tile.issued = tile.issued;
    m_last_pending = pending;
    add_sums(sums);
  }
  // A color sample the fragment of the latest candidate() (or rasterized(), hsr=none) wrote. Every
  // written sample counts in written_samples, a blended one also in blended_samples (the blend
  // read-modify costs on top of the write, models/README.md shader). A fragment still waiting
  // (deferred, fpk) keeps its writes aside: they count only if it commits; a killed fragment is
  // never shaded, so it writes nothing.
  [[gnu::always_inline]] void color_written(bool blended) {
    ++m_all_written;
    if (blended) ++m_work.blended_samples;  // blended fragments never occlude: never waiting
    if (m_last_pending && !blended) ++m_last_pending->written;
    else ++m_work.written_samples;
  }
  // color_written(true) `count` times (a blended sample never waits: counted written at once).
  [[gnu::always_inline]] void blended_colors_written(uint64_t count) {
    m_all_written += count;
    m_work.blended_samples += count;
    m_work.written_samples += count;
  }
  // color_written(false) `count` times.
  [[gnu::always_inline]] void unblended_colors_written(uint32_t count) {
    m_all_written += count;
    if (m_last_pending) m_last_pending->written += count;
    else m_work.written_samples += count;
  }
  // Optional per-pixel rasterized-fragment counts over the framebuffer (overdraw heatmaps).
  void set_overdraw(std::vector<uint16_t>* counts, uint32_t width) {
    m_overdraw = counts;
    m_overdraw_width = width;
  }
  // Commits what is still waiting and returns the tile's work.
  const models::TileWork& end_tile();
  models::TileWork& work() { return m_work; }

  // Per draw of the pass (indexed like ScreenPrims::draw), over every tile this tracker ran since
  // begin_pass: the quads it had shaded, and its fragments that waited and were killed, with the
  // color samples they had written (counted when killed, whichever draw was rasterizing then).
  // A draw's shaded fragments are the ones it had accepted (accepted(), read around the draw)
  // less the killed ones, its written samples all it wrote (all_written()) less theirs: kills are
  // fewer than commits (a fragment waiting past fpk's window commits), so the per-draw counting
  // stays off the commit loops.
  struct DrawShading {
    uint64_t quads = 0, killed = 0, killed_written = 0;
  };
  const std::vector<DrawShading>& draw_shading() const { return m_draw_shading; }
  // Running totals over the pass: the fragments accepted for shading (each is shaded unless killed
  // later): the policy's candidates, or, under a policy that shades what it rasterizes, the
  // shaded ones; and every color sample written by a candidate, waiting or not.
  // Read within one tile (the shaded count restarts with each).
  uint64_t accepted() const { return m_shades_rasterized ? m_work.fragments_shaded : m_candidates; }
  uint64_t all_written() const { return m_all_written; }

 private:
  static constexpr uint32_t kNoPrim = UINT32_MAX;  // a quad no primitive covered yet in the tile

  template <class F, size_t... I>
  void visit_hsr(F& f, std::index_sequence<I...>);

  // What the policy calls to have a fragment shaded (models/hsr/policy.h).
  struct Sink {
    TileWorkTracker& tracker;
    [[gnu::always_inline]] void commit(models::HsrFragment fragment, uint32_t pixel) {
      tracker.commit(fragment.pair, fragment.draw, pixel);
    }
    // The fragment waiting at `pixel`, with the color samples it wrote while waiting.
    [[gnu::always_inline]] void commit_waiting(models::HsrWaiting& waiting, uint32_t pixel) {
      tracker.commit(waiting.pair, waiting.draw, pixel);
      tracker.m_work.written_samples += waiting.written;
      waiting.written = 0;
    }
    [[gnu::always_inline]] void killed(const models::HsrWaiting& waiting) {
      count_kill(tracker.m_draw_shading.data(), waiting);
    }
    // Every fragment still waiting, in pixel order (the policy's end_tile).
    void commit_all_waiting(models::HsrTile& tile) { tracker.commit_all_waiting(tile); }
  };
  // The sums commit_into() adds to, apart from m_work: end_tile's loop keeps them in registers.
  struct ShadeSums {
    uint64_t fragments_shaded = 0, quads_shaded = 0, written_samples = 0;
    double alu_cycles = 0, texture_samples = 0, tile_reads = 0, varyings = 0;
  };
  [[gnu::always_inline]] static void count_kill(DrawShading* draw_shading, const models::HsrWaiting& waiting) {
    DrawShading& by_draw = draw_shading[waiting.draw];
    ++by_draw.killed;
    by_draw.killed_written += waiting.written;
  }
  // m_work's commit sums from ShadeSums that started at m_work's double sums and 0 for the rest.
  void add_sums(const ShadeSums& sums) {
    m_work.fragments_shaded += sums.fragments_shaded;
    m_work.quads_shaded += sums.quads_shaded;
    m_work.written_samples += sums.written_samples;
    m_work.alu_cycles = sums.alu_cycles;
    m_work.texture_samples = sums.texture_samples;
    m_work.tile_reads = sums.tile_reads;
    m_work.varyings = sums.varyings;
  }
  // What candidates_box() runs the policy on: m_hsr_tile's slots and issue count in locals, and a
  // Sink committing into ShadeSums, written back once (through `this`, each store into the slots or
  // the pair flags reloaded m_hsr_tile's and m_work's fields: perf of the million-triangle frame).
  // kTileReads: some draw of the pass reads tile memory (m_any_tile_reads; commit_into).
  struct LocalTile {
    models::HsrWaiting* waiting;
    uint64_t issued;
  };
  template <bool kTileReads>
  struct LocalSink {
    TileWorkTracker& tracker;
    ShadeSums& sums;
    const Draw* const* draws;
    DrawShading* draw_shading;
    uint8_t* pair_shaded;
    [[gnu::always_inline]] void commit(models::HsrFragment fragment, uint32_t pixel) {
      tracker.commit_into<kTileReads>(sums, draws, draw_shading, pair_shaded, fragment.pair, fragment.draw, pixel);
    }
    [[gnu::always_inline]] void commit_waiting(models::HsrWaiting& waiting, uint32_t pixel) {
      commit(models::HsrFragment{waiting.draw, waiting.pair}, pixel);
      sums.written_samples += waiting.written;
      waiting.written = 0;
    }
    [[gnu::always_inline]] void killed(const models::HsrWaiting& waiting) { count_kill(draw_shading, waiting); }
  };
  void commit_all_waiting(models::HsrTile& tile);

  // A policy that commits every rasterized fragment (k_shades_rasterized), over a box's `covered`
  // fragments: each quad's pair numbered, then its fragments committed. The same counts and sums as
  // rasterized() fragment by fragment: a quad's cost sums are added at its first commit, and quads
  // come in the order of their first fragment's bit either way; its other fragments only count as
  // shaded (and in m_layers and the tile-read sum, the same addend for each, when the draw reads
  // tile memory). The default trace's `none` pass: 2.1 M fragments, each a call through the sink.
  template <int kBox, class NumberPair>
  [[gnu::always_inline]] void commit_box(uint32_t draw, uint64_t covered, uint32_t pixel_base, uint32_t quad_base,
                                         const uint32_t* quad_offsets, const uint64_t* same_quad,
                                         NumberPair& number_pair) {
    const uint32_t* const pixel_offsets = box_pixel_offsets<kBox>();
    const uint32_t* const quad_pair = m_quad_pair.data();
    const bool reads_tile = m_draws[draw]->cost.tile_reads > 0;
    ShadeSums sums{0, 0, 0, m_work.alu_cycles, m_work.texture_samples, m_work.tile_reads, m_work.varyings};
    const Draw* const* draws = m_draws.data();
    DrawShading* const draw_shading = m_draw_shading.data();
    uint8_t* const pair_shaded = m_pair_shaded.data();
    for (uint64_t m = covered; m; m &= ~same_quad[__builtin_ctzll(m)]) {
      const uint32_t bit = uint32_t(__builtin_ctzll(m));
      const uint32_t quad = quad_base + quad_offsets[bit];
      number_pair(quad);
      if (!reads_tile) {
        commit_into<false>(sums, draws, draw_shading, pair_shaded, quad_pair[quad], draw, pixel_base + pixel_offsets[bit]);
        sums.fragments_shaded += uint64_t(__builtin_popcountll(m & same_quad[bit])) - 1;
        continue;
      }
      for (uint64_t q = m & same_quad[bit]; q; q &= q - 1)
        commit_into(sums, draws, draw_shading, pair_shaded, quad_pair[quad], draw,
                    pixel_base + pixel_offsets[__builtin_ctzll(q)]);
    }
    add_sums(sums);
  }
  // Numbers the (prim, quad) pair (pairs of a tile are numbered from 0: the count so far).
  [[gnu::always_inline]] void new_pair(uint32_t prim, uint32_t quad) {
    if (later_prim(m_quad_prim[quad], prim)) out_of_order();
    m_quad_prim[quad] = prim;
    const uint32_t pair = uint32_t(m_work.quads_rasterized++);
    m_quad_pair[quad] = pair;
    // The array only grows (its size is its capacity; the tile's pairs are its first
    // quads_rasterized): push_back stayed an out-of-line call per pair, 2 % of the million frame.
    if (pair >= m_pair_shaded.size()) grow_pairs();
    m_pair_shaded[pair] = 0;
  }
  // A quad's latest primitive `latest` comes after `prim` (kNoPrim: none yet): one comparison, kNoPrim
  // wrapping to 0 (prim is never kNoPrim).
  [[gnu::always_inline]] static bool later_prim(uint32_t latest, uint32_t prim) { return latest + 1 > prim + 1; }
  [[gnu::noinline]] void grow_pairs() { m_pair_shaded.resize(std::max<size_t>(1024, 2 * m_pair_shaded.size())); }
  [[noreturn]] static void out_of_order();
  [[gnu::always_inline]] void commit(uint32_t pair, uint32_t draw, uint32_t pixel) {
    commit_into(m_work, m_draws.data(), m_draw_shading.data(), m_pair_shaded.data(), pair, draw, pixel);
  }
  // Counts the shading of `pair`'s fragment of `draw` at `pixel` in `sums` (m_work, or ShadeSums) and
  // in the draw's DrawShading. `draw_shading` is m_draw_shading's array, passed like `draws` so that a
  // caller's loop keeps it in a register. kTileReads false: no draw of the pass reads tile memory
  // (m_any_tile_reads), so the layer counts are skipped.
  template <bool kTileReads = true, class Sums>
  [[gnu::always_inline]] void commit_into(Sums& sums, const Draw* const* draws, DrawShading* draw_shading,
                                          uint8_t* pair_shaded, uint32_t pair, uint32_t draw, uint32_t pixel) {
    ++sums.fragments_shaded;
    const DrawCost& cost = draws[draw]->cost;
    if (!pair_shaded[pair]) {
      pair_shaded[pair] = 1;
      ++sums.quads_shaded;
      ++draw_shading[draw].quads;
      // Four lanes per quad, helper lanes included.
      sums.alu_cycles += 4.0 * cost.alu;
      sums.texture_samples += 4.0 * cost.texture_samples;
      sums.tile_reads += 4.0 * cost.tile_reads;
      sums.varyings += 4.0 * cost.varyings;
    }
    if (kTileReads && cost.tile_reads > 0) {
      ++m_layers[pixel];
      m_tile_read_sum += cost.tile_reads;
      ++m_tile_read_fragments;
    }
  }
  void count_overdraw(int32_t x, int32_t y) {
    uint16_t& count = (*m_overdraw)[size_t(y) * m_overdraw_width + size_t(x)];
    if (count < UINT16_MAX) ++count;
  }

  // box_pixel_offsets() and box_quad_offsets() of tiles `width` pixels wide.
  struct BoxOffsets {
    uint32_t width = 0;
    uint32_t pixel4[16], pixel8[64];
    uint32_t quad4[4][16], quad8[4][64];
    void fill(uint32_t tile_width, uint32_t quad_columns);
  };
  BoxOffsets m_box_offsets;
  models::HsrPolicy m_hsr;
  models::HsrTile m_hsr_tile;                    // the policy's waiting fragments
  models::HsrWaiting* m_last_pending = nullptr;  // the latest candidate's slot, when it waits
  std::vector<const Draw*> m_draws;
  std::vector<DrawShading> m_draw_shading;
  bool m_shades_rasterized = false;  // the policy commits in rasterized() (models/hsr/policy.h)
  bool m_any_tile_reads = false;     // a draw of the pass reads tile memory (its cost.tile_reads)
  uint64_t m_candidates = 0, m_all_written = 0;
  Rect m_rect;
  uint32_t m_quad_columns = 0;
  models::TileWork m_work;
  std::vector<uint32_t> m_layers;          // per pixel: shaded tile-memory-reading fragments
  double m_tile_read_sum = 0;
  uint64_t m_tile_read_fragments = 0;
  // Per quad: the latest primitive that covered it and the number of that (primitive, quad)
  // pair; per pair (the first quads_rasterized entries): whether a fragment of it was shaded.
  std::vector<uint32_t> m_quad_prim, m_quad_pair;
  std::vector<uint8_t> m_pair_shaded;
  std::vector<uint16_t>* m_overdraw = nullptr;
  uint32_t m_overdraw_width = 0;
};

// The tracker with its pass's HSR policy as a type: what raster_triangle's loops call per
// fragment. A small value (the tracker's address and the policy's parameters) the loops keep in
// registers, never null. Its calls, the tracker's and the policy's are
// always inline: raster_triangle holds every policy's loops, too large for GCC's own inlining.
template <class Hsr>
class TypedTracker {
 public:
  TypedTracker(TileWorkTracker& tracker, const Hsr& hsr) : m_tracker(&tracker), m_hsr(hsr) {}
  // Always: raster_triangle's loops test a tracker, and NoTracker (sim/raster_shading.h) is false.
  constexpr explicit operator bool() const { return true; }

  const Rect& rect() const { return m_tracker->rect(); }
  uint32_t quad_columns() const { return m_tracker->quad_columns(); }
  uint32_t pixel_index(int32_t x, int32_t y) const { return m_tracker->pixel_index(x, y); }
  uint32_t quad_index(int32_t x, int32_t y) const { return m_tracker->quad_index(x, y); }
  template <int kBox>
  const uint32_t* box_pixel_offsets() const {
    return m_tracker->template box_pixel_offsets<kBox>();
  }
  template <int kBox>
  const uint32_t* box_quad_offsets(int32_t x, int32_t y) const {
    return m_tracker->template box_quad_offsets<kBox>(x, y);
  }
  // TileWorkTracker's per-fragment calls under the policy; the *_at ones take the fragment's tile
  // indices (pixel_index, quad_index).
  [[gnu::always_inline]] void rasterized(uint32_t prim, uint32_t draw, int32_t x, int32_t y) const {
    m_tracker->rasterized_at(m_hsr, prim, draw, x, y, pixel_index(x, y), quad_index(x, y));
  }
  [[gnu::always_inline]] void rasterized_at(uint32_t prim, uint32_t draw, int32_t x, int32_t y, uint32_t pixel,
                                            uint32_t quad) const {
    m_tracker->rasterized_at(m_hsr, prim, draw, x, y, pixel, quad);
  }
  [[gnu::always_inline]] void candidate(uint32_t prim, uint32_t draw, int32_t x, int32_t y, bool occludes) const {
    m_tracker->candidate_at(m_hsr, prim, draw, pixel_index(x, y), quad_index(x, y), occludes);
  }
  [[gnu::always_inline]] void candidate_at(uint32_t prim, uint32_t draw, uint32_t pixel, uint32_t quad,
                                           bool occludes) const {
    m_tracker->candidate_at(m_hsr, prim, draw, pixel, quad, occludes);
  }
  [[gnu::always_inline]] void candidate_writing_at(uint32_t draw, uint32_t pixel, uint32_t quad, bool occludes,
                                                   uint32_t count) const {
    m_tracker->candidate_writing_at(m_hsr, draw, pixel, quad, occludes, count);
  }
  template <int kBox>
  [[gnu::always_inline]] uint64_t rasterized_box(uint32_t prim, uint32_t draw, int32_t x, int32_t y,
                                                 uint64_t covered, uint32_t pixel_base, uint32_t quad_base,
                                                 const uint32_t* quad_offsets) const {
    return m_tracker->template rasterized_box<kBox>(m_hsr, prim, draw, x, y, covered, pixel_base, quad_base, quad_offsets);
  }
  template <int kBox>
  [[gnu::always_inline]] void candidates_box(uint32_t draw, uint64_t passed, uint32_t pixel_base, uint32_t quad_base,
                                             const uint32_t* quad_offsets, bool occludes, uint32_t color_writes) const {
    m_tracker->template candidates_box<kBox>(m_hsr, draw, passed, pixel_base, quad_base, quad_offsets, occludes,
                                             color_writes);
  }
  [[gnu::always_inline]] void color_written(bool blended) const { m_tracker->color_written(blended); }
  [[gnu::always_inline]] void unblended_colors_written(uint32_t count) const {
    m_tracker->unblended_colors_written(count);
  }
  [[gnu::always_inline]] void blended_colors_written(uint64_t count) const { m_tracker->blended_colors_written(count); }

 private:
  TileWorkTracker* m_tracker;
  Hsr m_hsr;
};

template <class F>
[[gnu::always_inline]] inline void TileWorkTracker::visit_hsr(F&& f) {
  visit_hsr(f, std::make_index_sequence<std::variant_size_v<models::HsrPolicy>>());
}

// The alternative of m_hsr, found by index in line (std::visit's dispatch kept the primitive's
// loops out of line in a call whose captures cost the million frame 1 % under hsr=fpk).
template <class F, size_t... I>
[[gnu::always_inline]] inline void TileWorkTracker::visit_hsr(F& f, std::index_sequence<I...>) {
  (void)((m_hsr.index() == I && (f(TypedTracker(*this, *std::get_if<I>(&m_hsr))), true)) || ...);
}

}  // namespace tbdr
