// TileWorkTracker's per-tile bookkeeping; which fragments are shaded is the pass's HSR policy's
// decision (models/hsr), run per fragment from sim/tile_work.h.
#include "sim/tile_work.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

namespace tbdr {

void TileWorkTracker::out_of_order() {
  throw std::logic_error("TileWorkTracker: a tile's fragments came out of primitive order");
}

void TileWorkTracker::begin_pass(const models::HsrPolicy& hsr, std::vector<const Draw*> draws) {
  m_hsr = hsr;
  m_draws = std::move(draws);
  m_draw_shading.assign(m_draws.size(), DrawShading{});
  m_shades_rasterized = std::visit([](const auto& policy) { return std::decay_t<decltype(policy)>::k_shades_rasterized; }, m_hsr);
  m_candidates = m_all_written = 0;
  m_any_tile_reads = std::any_of(m_draws.begin(), m_draws.end(), [](const Draw* d) { return d->cost.tile_reads > 0; });
  m_layers.clear();  // zeroed anew at the first tile, should a tile before have stopped on an error
}

void TileWorkTracker::begin_tile(const Rect& rect, uint32_t samples) {
  m_rect = rect;
  m_quad_columns = (rect.width + 1) / 2;
  m_work = models::TileWork{};
  m_work.pixels = rect.width * rect.height;
  m_work.samples = samples;
  m_hsr_tile.begin(m_work.pixels);
  m_last_pending = nullptr;
  // Zero between tiles (end_tile clears what a tile counted): a memset of every tile's pixels was 1 %
  // of the default trace's instructions, and most passes never read tile memory.
  if (m_layers.size() != m_work.pixels) m_layers.assign(m_work.pixels, 0);
  m_tile_read_sum = 0;
  m_tile_read_fragments = 0;
  m_quad_prim.assign(size_t(m_quad_columns) * ((rect.height + 1) / 2), kNoPrim);
  m_quad_pair.resize(m_quad_prim.size());
  if (m_box_offsets.width != rect.width) m_box_offsets.fill(rect.width, m_quad_columns);
}

void TileWorkTracker::BoxOffsets::fill(uint32_t tile_width, uint32_t quad_columns) {
  width = tile_width;
  auto fill_box = [&](uint32_t box, auto& pixel, auto& quad) {
    for (uint32_t bit = 0; bit < box * box; ++bit) {
      const uint32_t dx = bit % box, dy = bit / box;
      pixel[bit] = dy * tile_width + dx;
      for (uint32_t parity = 0; parity < 4; ++parity) {
        const uint32_t px = parity & 1, py = parity >> 1;
        quad[parity][bit] = ((py + dy) >> 1) * quad_columns + ((px + dx) >> 1);
      }
    }
  };
  fill_box(4, pixel4, quad4);
  fill_box(8, pixel8, quad8);
}

// Sink::commit_waiting for every waiting pixel, its sums in locals: through `this`, every store
// into m_pair_shaded (bytes, which may alias anything) reloaded m_work's fields, a pixel at a time.
void TileWorkTracker::commit_all_waiting(models::HsrTile& tile) {
  ShadeSums sums{0, 0, 0, m_work.alu_cycles, m_work.texture_samples, m_work.tile_reads, m_work.varyings};
  const Draw* const* draws = m_draws.data();
  DrawShading* const draw_shading = m_draw_shading.data();
  uint8_t* const pair_shaded = m_pair_shaded.data();
  models::HsrWaiting* const waiting = tile.waiting.data();
  const uint32_t pixels = uint32_t(tile.waiting.size());
  auto commit_all = [&](auto reads_tile) __attribute__((always_inline)) {
    for (uint32_t pixel = 0; pixel < pixels; ++pixel) {
      models::HsrWaiting& w = waiting[pixel];
      if (w.draw == models::HsrWaiting::kNone) continue;
      commit_into<decltype(reads_tile)::value>(sums, draws, draw_shading, pair_shaded, w.pair, w.draw, pixel);
      sums.written_samples += w.written;
      w.written = 0;
      w.draw = models::HsrWaiting::kNone;
    }
  };
  // Without a draw that reads tile memory, commit_into skips the layer counts.
  if (m_any_tile_reads) commit_all(std::true_type());
  else commit_all(std::false_type());
  add_sums(sums);
}

const models::TileWork& TileWorkTracker::end_tile() {
  std::visit(
      [&](const auto& hsr) {
        Sink sink{*this};
        hsr.end_tile(sink, m_hsr_tile);
      },
      m_hsr);
  // Without tile-memory reads every pixel has 0 layers.
  if (m_tile_read_fragments == 0) m_work.layer_histogram[0] += m_layers.size();
  else
    for (uint32_t& layers : m_layers) {
      ++m_work.layer_histogram[std::min<size_t>(layers, models::kMaxTrackedLayers - 1)];
      layers = 0;
    }
  m_work.tile_reads_per_fragment = m_tile_read_fragments ? m_tile_read_sum / double(m_tile_read_fragments) : 0.0;
  return m_work;
}

}  // namespace tbdr
