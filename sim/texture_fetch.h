// Texel fetches of the built-in programs (sim/programs.cpp) and of the rasterizer's textured spans
// (sim/raster_textured.h): address modes, the fetch recorder of footprints and cache lines, texel values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/programs.h"
#include "sim/surface.h"

namespace tbdr::texture_detail {

// i modulo `period` in [0, period). A power-of-two period (most textures' sizes) takes the low bits,
// negative i included (two's complement): the same value, without the division, which a repeating
// texture's fetches (uv past [0, 1]) paid at every texel (perf on the default trace).
inline int32_t positive_remainder(int32_t i, int32_t period) {
  if ((period & (period - 1)) == 0) return i & (period - 1);
  const int32_t m = i % period;
  return m < 0 ? m + period : m;
}

// Texel coordinate after the address mode (Vulkan "Wrapping Operation").
[[gnu::always_inline]] inline int32_t wrap(int32_t i, int32_t size, AddressMode mode) {
  switch (mode) {
    case AddressMode::clamp_to_edge: return std::clamp(i, 0, size - 1);
    case AddressMode::repeat: return positive_remainder(i, size);
    case AddressMode::mirrored_repeat: {
      const int32_t period = 2 * size;
      const int32_t m = positive_remainder(i, period);
      return m < size ? m : period - 1 - m;
    }
  }
  return 0;
}

// Texel coordinates beyond +-2^20 would overflow the integer wrap; they carry no information
// anyway (float uv has no sub-texel precision there), so they are clamped first.
inline int32_t texel_floor(float f) { return int32_t(std::floor(std::clamp(f, -1048576.0f, 1048576.0f))); }

// A coordinate after the address mode. Every mode leaves one inside the texture as it is; most
// fetches are inside, and this skips wrap for them.
[[gnu::always_inline]] inline int32_t wrap_if_outside(int32_t i, int32_t size, AddressMode mode) {
  return uint32_t(i) < uint32_t(size) ? i : wrap(i, size, mode);
}

// What fetches of binding p record, over one texel or several in order: the footprint bit of each
// texel's block, the fetch count and, recording lines, each fetch's line address (a fetch of the
// line the one before it read counts as a repeat instead). The binding's fields and the recorder's
// counters are read once into locals and written back by finish(): the bit and line stores are
// uint64_t, which may alias them, so a fetch that used them in place reloaded them after each store.
// A bound footprint has a bit for every block of the level (Footprints::reset), never an empty vector.
class FetchRecorder {
 public:
  explicit FetchRecorder(const SamplerBinding& p)
      : m_footprint(p.footprint ? p.footprint->data() : nullptr), m_recorder(p.recorder),
        m_record_lines(m_recorder && m_recorder->record_lines), m_base(p.base),
        m_texel_blocks(p.block_width == 1 && p.block_height == 1), m_block_width(p.block_width),
        m_block_height(p.block_height),
        // Uncompressed formats have 1x1 blocks: no divisions.
        m_blocks_per_row(m_texel_blocks ? p.texel_width : (p.texel_width + p.block_width - 1) / p.block_width) {
    if (!m_recorder) return;
    m_addressing = models::ElementAddressing(p.shape, m_recorder->layout);
    m_line_shift = m_recorder->line_shift;
    m_last_line = m_recorder->last_line;
    m_line_block_x = p.line_block_x;
    m_line_block_y = p.line_block_y;
  }
  // Texel (tx, ty), inside the level. An element in the aligned line block of the one add() took
  // before (set_line_blocks: one line; with blocks of 0 and 0, the same element) is on the line
  // worked out then: a captured frame's same-pixel fetches walk along rows, so most are.
  void add(int32_t tx, int32_t ty) {
    const uint32_t bx = block_x(tx), by = block_y(ty);
    ++m_fetches;
    mark(bx, by);
    if (!m_record_lines) return;
    const uint64_t line_block = uint64_t(bx >> m_line_block_x) | uint64_t(by >> m_line_block_y) << 32;
    if (line_block != m_add_block) {
      m_add_block = line_block;
      m_add_line = line_of(bx, by);
    }
    record_line(m_add_line);
  }
  // A bilinear footprint's texels (tx0, ty0), (tx1, ty0), (tx0, ty1), (tx1, ty1), in that order,
  // inside the level: the same records as add() for each, but a line worked out once for the
  // elements that share it (the same aligned line block, set_line_blocks), mostly all four.
  // Always inlined: sample_filtered is inlined in several places, and GCC then left this a call
  // (callgrind of the default trace: 164 instructions a sample out of line).
  // The four texels of the bilinear fetch before, when they are the same (a magnified texture's
  // neighbouring fragments): their footprint bits are set already and their lines are known, so
  // only the counts and the line records are made (the records the same: the lines in order).
  // A quad whose four texels are on one line (same aligned line block), new or repeated, is recorded
  // with one compare with the line recorded last rather than four (record_one_line_quad).
  [[gnu::always_inline]] void add_bilinear(int32_t tx0, int32_t tx1, int32_t ty0, int32_t ty1) {
    const uint64_t quad_x = uint64_t(uint32_t(tx0)) | uint64_t(uint32_t(tx1)) << 32;
    const uint64_t quad_y = uint64_t(uint32_t(ty0)) | uint64_t(uint32_t(ty1)) << 32;
    m_fetches += 4;
    if (quad_x == m_quad_x && quad_y == m_quad_y) {
      if (!m_record_lines) return;
      if (m_quad_one_line) record_one_line_quad(m_quad_lines[0]);
      else
        for (const uint64_t line : m_quad_lines) record_line(line);
      return;
    }
    m_quad_x = quad_x;
    m_quad_y = quad_y;
    const uint32_t bx0 = block_x(tx0), bx1 = block_x(tx1), by0 = block_y(ty0), by1 = block_y(ty1);
    mark(bx0, by0);
    mark(bx1, by0);
    mark(bx0, by1);
    mark(bx1, by1);
    if (!m_record_lines) return;
    const bool same_x = (bx0 >> m_line_block_x) == (bx1 >> m_line_block_x);
    const bool same_y = (by0 >> m_line_block_y) == (by1 >> m_line_block_y);
    const uint64_t l00 = line_of(bx0, by0);
    m_quad_lines[0] = l00;
    m_quad_one_line = same_x && same_y;
    if (m_quad_one_line) {  // a magnified texture's common case
      record_one_line_quad(l00);
      return;
    }
    const uint64_t l10 = same_x ? l00 : line_of(bx1, by0);
    const uint64_t l01 = same_y ? l00 : line_of(bx0, by1);
    const uint64_t l11 = same_x ? l01 : same_y ? l10 : line_of(bx1, by1);
    m_quad_lines[1] = l10;
    m_quad_lines[2] = l01;
    m_quad_lines[3] = l11;
    record_line(l00);
    record_line(l10);
    record_line(l01);
    record_line(l11);
  }
  // Several bindings' recorders over one TextureRecorder, fetching in turn (raster_textured.h's
  // captured fetches): the line the fetches of all of them recorded last, which a fetch of the same
  // line repeats; follow() hands it to the recorder that fetches next.
  uint64_t last_line() const { return m_last_line; }
  void follow(uint64_t last_line) { m_last_line = last_line; }
  // Writes the counters back into the recorder: before anything else reads it or records into it.
  void finish() const {
    if (!m_recorder) return;
    m_recorder->fetches += m_fetches;
    m_recorder->repeats += m_repeats;
    m_recorder->last_line = m_last_line;
  }

 private:
  uint64_t* const m_footprint;
  TextureRecorder* const m_recorder;
  const bool m_record_lines;
  const uint64_t m_base;
  const bool m_texel_blocks;
  const uint32_t m_block_width, m_block_height, m_blocks_per_row;
  models::ElementAddressing m_addressing;  // of the binding's level in the recorder's layout
  uint32_t m_line_shift = 0;
  uint64_t m_last_line = 0, m_fetches = 0, m_repeats = 0;
  uint32_t m_line_block_x = 0, m_line_block_y = 0;  // SamplerBinding's
  // add_bilinear's texels before (tx0 | tx1 << 32, ty0 | ty1 << 32; none at first: texels inside a level
  // are below 2^31) and their lines: the four, or with m_quad_one_line the first only (all on it).
  uint64_t m_quad_x = ~uint64_t(0), m_quad_y = ~uint64_t(0);
  uint64_t m_quad_lines[4] = {0, 0, 0, 0};
  bool m_quad_one_line = false;
  // add()'s line block before (bx >> line_block_x | by >> line_block_y << 32; none at first: elements
  // inside a level are below 2^31) and its line.
  uint64_t m_add_block = ~uint64_t(0), m_add_line = 0;

  uint32_t block_x(int32_t tx) const { return m_texel_blocks ? uint32_t(tx) : uint32_t(tx) / m_block_width; }
  uint32_t block_y(int32_t ty) const { return m_texel_blocks ? uint32_t(ty) : uint32_t(ty) / m_block_height; }
  // The footprint bit of element (bx, by) (the fetch is counted by the caller).
  void mark(uint32_t bx, uint32_t by) {
    if (m_footprint) {
      const size_t bit = size_t(by) * m_blocks_per_row + bx;
      m_footprint[bit >> 6] |= uint64_t(1) << (bit & 63);
    }
  }
  uint64_t line_of(uint32_t bx, uint32_t by) const {
    return (m_base + m_addressing.offset(bx, by)) >> m_line_shift;
  }
  // add_bilinear's four records of one line: the first a repeat if it is the line recorded last,
  // the other three repeats.
  void record_one_line_quad(uint64_t line) {
    if (line == m_last_line) {
      m_repeats += 4;
      return;
    }
    m_repeats += 3;
    m_last_line = line;
    m_recorder->lines.push_back(line);
  }
  void record_line(uint64_t line) {
    if (line == m_last_line) ++m_repeats;
    else {
      m_recorder->lines.push_back(line);
      m_last_line = line;
    }
  }
};

// The value of texel (tx, ty), inside the level.
[[gnu::always_inline]] inline Vec4 texel_value(const SamplerBinding& p, int32_t tx, int32_t ty) {
  if (p.texture) return p.texels[size_t(ty) * p.texel_width + size_t(tx)];
  const size_t i = p.image->index(uint32_t(tx), uint32_t(ty), 0);
  return p.image->has_color() ? p.image->color[i] : Vec4(p.image->depth[i], 0, 0, 1);
}

}  // namespace tbdr::texture_detail
