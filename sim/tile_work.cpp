// HSR as a counting policy over the tile's real fragment stream: a shaded candidate waits
// ("pending") at its pixel; a later occluder at that pixel within the policy's window kills it
// (fpk: the window; deferred: the whole tile; early_z: never), anything else commits it.
#include "sim/tile_work.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tbdr {

void TileWorkTracker::out_of_order() {
  throw std::logic_error("TileWorkTracker: a tile's fragments came out of primitive order");
}

void TileWorkTracker::begin_pass(models::HsrPolicy policy, std::vector<const Draw*> draws) {
  m_policy = policy;
  m_kill_window = policy.mode == models::HsrMode::deferred ? std::numeric_limits<uint64_t>::max()
                  : policy.mode == models::HsrMode::fpk    ? policy.fpk_window
                                                           : 0;
  m_draws = std::move(draws);
}

void TileWorkTracker::begin_tile(const Rect& rect, uint32_t samples) {
  m_rect = rect;
  m_quad_columns = (rect.width + 1) / 2;
  m_work = models::TileWork{};
  m_work.pixels = rect.width * rect.height;
  m_work.samples = samples;
  m_sequence = 0;
  m_pending.resize(m_work.pixels);  // none waiting: end_tile leaves every pixel so
  m_last_pending = nullptr;
  m_layers.assign(m_work.pixels, 0);
  m_tile_read_sum = 0;
  m_tile_read_fragments = 0;
  m_quad_prim.assign(size_t(m_quad_columns) * ((rect.height + 1) / 2), kNoPrim);
  m_quad_pair.resize(m_quad_prim.size());
  m_pair_shaded.clear();
}

const models::TileWork& TileWorkTracker::end_tile() {
  for (uint32_t pixel = 0; pixel < m_pending.size(); ++pixel)
    if (m_pending[pixel].draw != kNotWaiting) {
      commit_pending(m_pending[pixel], pixel);
      m_pending[pixel].draw = kNotWaiting;
    }
  // Without tile-memory reads every pixel has 0 layers.
  if (m_tile_read_fragments == 0) m_work.layer_histogram[0] += m_layers.size();
  else
    for (uint32_t layers : m_layers)
      ++m_work.layer_histogram[std::min<size_t>(layers, models::kMaxTrackedLayers - 1)];
  m_work.tile_reads_per_fragment = m_tile_read_fragments ? m_tile_read_sum / double(m_tile_read_fragments) : 0.0;
  return m_work;
}

}  // namespace tbdr
