// The parameter buffer: tile-list traffic, and the flush points of a buffer of limited capacity
// (Imagination's PowerVR parameter buffer; Arm's Mali "tiler heap": traces/README.md).
#include "sim/pass/param_buffer.h"

#include <algorithm>
#include <functional>

#include "sim/parallel.h"

namespace tbdr {

namespace {

// binning=hierarchical: each tile reads every entry of the bin covering it at every level, and the
// records they point to (traces/README.md "Parameter buffer"), whether or not the primitive touches it.
Traffic hierarchy_reads(const PassSetup& setup, const ScreenPrims& prims, const HierarchyLists& h, const TileGrid& grid,
                        std::vector<uint64_t>& tile_reads, Traffic t) {
  std::vector<uint64_t> bin_bytes(h.offsets.size() - 1, 0);
  for (size_t bin = 0; bin < bin_bytes.size(); ++bin)
    for (uint32_t e = h.offsets[bin]; e < h.offsets[bin + 1]; ++e)
      bin_bytes[bin] += 4 + setup.draw_record_bytes[prims.draw[h.prims[e]]];
  for (uint32_t row = 0; row < grid.rows; ++row)
    for (uint32_t col = 0; col < grid.cols; ++col) {
      uint64_t reads = 0;
      for (uint32_t level = 0; level < h.levels(); ++level) reads += bin_bytes[h.bin_of(level, col, row)];
      tile_reads[size_t(row) * grid.cols + col] += reads;
      t.read_bytes += reads;
    }
  return t;
}

}  // namespace

Traffic tile_list_traffic(const PassSetup& setup, const ScreenPrims& prims, size_t first, size_t last,
                          const TileGrid& grid, const TileLists& lists, std::vector<uint64_t>& tile_reads,
                          uint32_t threads) {
  const std::vector<uint64_t>& record = setup.draw_record_bytes;
  if (lists.hierarchical) {
    Traffic t;
    for (size_t p = first; p < last; ++p) t.write_bytes += record[prims.draw[p]];
    t.write_bytes += 4 * lists.written_entries();
    return hierarchy_reads(setup, prims, lists.hierarchy, grid, tile_reads, t);
  }
  const size_t tiles = lists.offsets.empty() ? 0 : lists.offsets.size() - 1;
  // When every draw's record has one size (most passes), binning writes that a primitive and a tile
  // reads (4 + that) bytes an entry: no lookup of each entry's primitive and draw, which missed the
  // cache on large lists.
  const bool same_records = std::adjacent_find(record.begin(), record.end(), std::not_equal_to<>()) == record.end();
  const uint64_t one_record = same_records && !record.empty() ? record[0] : 0;
  // Contiguous ranges of primitives and of tiles, a few per thread (for_chunks); integer sums, so
  // any split agrees.
  const uint32_t blocks = chunk_count(last - first, 16384, threads);  // a lookup and an add a primitive
  std::vector<Traffic> sums(blocks);
  // Each block sums in locals: the blocks' sums share cache lines, and the bounds are taken once
  // (block_range).
  for_chunks(threads, blocks, [&](uint32_t b) {
    Traffic sum;
    const BlockRange prim_range = block_range(last - first, b, blocks);
    if (same_records)
      sum.write_bytes = uint64_t(prim_range.end - prim_range.begin) * one_record;
    else
      for (size_t p = first + prim_range.begin; p < first + prim_range.end; ++p)
        sum.write_bytes += record[prims.draw[p]];
    const BlockRange tile_range = block_range(tiles, b, blocks);
    for (size_t tile = tile_range.begin; tile < tile_range.end; ++tile) {
      uint64_t reads = uint64_t(lists.offsets[tile + 1] - lists.offsets[tile]) * (4 + one_record);
      if (!same_records)
        for (uint32_t e = lists.offsets[tile]; e < lists.offsets[tile + 1]; ++e)
          reads += record[prims.draw[lists.prims[e]]];
      tile_reads[tile] += reads;
      sum.read_bytes += reads;
    }
    sums[b] = sum;
  });
  Traffic t;
  t.write_bytes = 4 * lists.written_entries();
  for (const Traffic& s : sums) t += s;
  return t;
}

ParamBufferFill::ParamBufferFill(uint64_t capacity, const PassSetup& setup, const TileGrid& grid,
                                 const models::BinningRule& rule, uint32_t threads)
    : m_capacity(capacity), m_setup(setup), m_grid(grid), m_rule(rule), m_threads(std::max(1u, threads)) {}

// Tile-list entries first, then each primitive's record on top. The bytes depend on the primitive
// alone, so a large batch (geometry's rounds on several threads) is sized in a few contiguous
// ranges a thread (for_chunks); the running sum stays in order. Only the sum when per_primitive is
// false and the rule is aabb (listed_bytes: the per-primitive array was written and read again for
// nothing in a batch that fits); the array is then left empty.
uint64_t ParamBufferFill::size_batch(const ScreenPrims& prims, size_t first, bool per_primitive) {
  const size_t n = prims.size() - first;
  const bool sum_only = !per_primitive && m_rule.strategy == models::BinningStrategy::aabb;
  m_batch_bytes.resize(sum_only ? 0 : n);  // keeps its memory
  auto size_range = [&](size_t begin, size_t end) {
    if (sum_only)
      return listed_bytes(prims, begin, end, m_setup.draw_clip, m_grid, m_setup.draw_record_bytes.data());
    entries_per_primitive(prims, begin, end, m_setup.draw_clip, m_grid, m_rule, m_batch_bytes.data() + (begin - first));
    uint64_t sum = 0;
    for (size_t p = begin; p < end; ++p) {
      m_batch_bytes[p - first] = m_setup.draw_record_bytes[prims.draw[p]] + 4 * m_batch_bytes[p - first];
      sum += m_batch_bytes[p - first];
    }
    return sum;
  };
  const uint32_t ranges = n >= kParallelSizing ? chunk_count(n, kParallelSizing / 4 / kChunksPerThread, m_threads) : 1;
  std::vector<uint64_t> sums(ranges);
  for_chunks(m_threads, ranges,
             [&](uint32_t r) { sums[r] = size_range(first + n * r / ranges, first + n * (r + 1) / ranges); });
  uint64_t total = 0;
  for (uint64_t sum : sums) total += sum;
  return total;
}

std::vector<size_t> ParamBufferFill::flush_points(const ScreenPrims& prims, size_t first) {
  // A batch that fits whole flushes nothing (every byte count is >= 0, so no running sum within it
  // exceeds the capacity either): the primitive-by-primitive walk below, which runs on one thread,
  // is needed only for a batch that fills the buffer.
  const uint64_t total = size_batch(prims, first, false);
  if (m_binned_bytes + total <= m_capacity) {
    m_binned_bytes += total;
    return {};
  }
  if (m_batch_bytes.size() != prims.size() - first) size_batch(prims, first, true);  // summed only
  std::vector<size_t> points;
  size_t render_first = 0;
  for (size_t i = 0, p = first; i < m_batch_bytes.size(); ++i, ++p) {
    const uint64_t bytes = m_batch_bytes[i];
    if (p > render_first && m_binned_bytes + bytes > m_capacity) {
      points.push_back(p);
      render_first = p;
      m_binned_bytes = 0;
    }
    m_binned_bytes += bytes;
  }
  return points;
}

}  // namespace tbdr
