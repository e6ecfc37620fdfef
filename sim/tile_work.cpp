// HSR as a counting policy over the tile's real fragment stream: a shaded candidate waits
// ("pending") at its pixel; a later occluder at that pixel within the policy's window kills it
// (fpk: the window; deferred: the whole tile; early_z: never), anything else commits it.
#include "sim/tile_work.h"

#include <algorithm>
#include <limits>

namespace tbdr {

HsrBreakers hsr_breakers(const Draw& draw) {
  HsrBreakers b;
  for (const BlendAttachmentState& blend : draw.state.blend) b.blending = b.blending || blend.enable;
  b.discard = draw.state.discard;
  b.shader_depth_write = draw.state.shader_depth_write;
  return b;
}

void TileWorkTracker::begin_pass(models::HsrPolicy policy, std::vector<const Draw*> draws) {
  m_policy = policy;
  m_draws = std::move(draws);
}

void TileWorkTracker::begin_tile(const Rect& rect, uint32_t samples) {
  m_rect = rect;
  m_work = models::TileWork{};
  m_work.pixels = rect.width * rect.height;
  m_work.samples = samples;
  m_sequence = 0;
  m_pending_prim.assign(m_work.pixels, -1);
  m_pending_draw.assign(m_work.pixels, 0);
  m_pending_sequence.assign(m_work.pixels, 0);
  m_pending_written.assign(m_work.pixels, 0);
  m_last_pending_pixel = -1;
  m_layers.assign(m_work.pixels, 0);
  m_tile_read_sum = 0;
  m_tile_read_fragments = 0;
  m_rasterized_quads.clear();
  m_shaded_quads.clear();
}

void TileWorkTracker::rasterized(uint32_t prim, uint32_t draw, int32_t x, int32_t y) {
  ++m_work.fragments_rasterized;
  if (m_overdraw) {
    uint16_t& count = (*m_overdraw)[size_t(y) * m_overdraw_width + size_t(x)];
    if (count < UINT16_MAX) ++count;
  }
  const uint64_t key = quad_key(prim, x, y);
  if (m_rasterized_quads.insert(key).second) ++m_work.quads_rasterized;
  // No HSR at all: every rasterized fragment runs the shader, hidden or not.
  if (m_policy.mode == models::HsrMode::none) commit(prim, draw, pixel_index(x, y));
}

void TileWorkTracker::candidate(uint32_t prim, uint32_t draw, int32_t x, int32_t y, bool occludes) {
  if (m_policy.mode == models::HsrMode::none) return;  // already committed when rasterized
  const uint32_t pixel = pixel_index(x, y);
  const uint64_t sequence = ++m_sequence;
  if (m_pending_prim[pixel] >= 0) {
    const uint64_t window = m_policy.mode == models::HsrMode::deferred ? std::numeric_limits<uint64_t>::max()
                            : m_policy.mode == models::HsrMode::fpk   ? m_policy.fpk_window
                                                                      : 0;
    const bool killed = occludes && sequence - m_pending_sequence[pixel] <= window;
    if (!killed) commit_pending(pixel);
    m_pending_prim[pixel] = -1;
  }
  if (occludes && m_policy.mode != models::HsrMode::early_z) {
    m_pending_prim[pixel] = prim;
    m_pending_draw[pixel] = draw;
    m_pending_sequence[pixel] = sequence;
    m_pending_written[pixel] = 0;
    m_last_pending_pixel = pixel;
  } else {
    m_last_pending_pixel = -1;
    commit(prim, draw, pixel);
  }
}

void TileWorkTracker::color_written(bool blended) {
  if (blended) ++m_work.blended_samples;  // blended fragments never occlude: never pending
  if (m_last_pending_pixel >= 0 && !blended) ++m_pending_written[size_t(m_last_pending_pixel)];
  else ++m_work.written_samples;
}

void TileWorkTracker::commit_pending(uint32_t pixel) {
  commit(uint32_t(m_pending_prim[pixel]), m_pending_draw[pixel], pixel);
  m_work.written_samples += m_pending_written[pixel];
  m_pending_written[pixel] = 0;
}

void TileWorkTracker::commit(uint32_t prim, uint32_t draw, uint32_t pixel) {
  ++m_work.fragments_shaded;
  const DrawCost& cost = m_draws[draw]->cost;
  const int32_t x = m_rect.x + int32_t(pixel % m_rect.width), y = m_rect.y + int32_t(pixel / m_rect.width);
  if (m_shaded_quads.insert(quad_key(prim, x, y)).second) {
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

const models::TileWork& TileWorkTracker::end_tile() {
  for (uint32_t pixel = 0; pixel < m_pending_prim.size(); ++pixel)
    if (m_pending_prim[pixel] >= 0) commit_pending(pixel);
  for (uint32_t layers : m_layers)
    ++m_work.layer_histogram[std::min<size_t>(layers, models::kMaxTrackedLayers - 1)];
  m_work.tile_reads_per_fragment = m_tile_read_fragments ? m_tile_read_sum / double(m_tile_read_fragments) : 0.0;
  return m_work;
}

}  // namespace tbdr
