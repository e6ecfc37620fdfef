// The parameter buffer of a tiled hardware pass (traces/README.md "Parameter buffer"): the bytes
// binning writes and tiles read, and where a full buffer forces an incremental render (flush).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/binning.h"
#include "sim/pass/setup.h"

namespace tbdr {

// Binning writes one record per primitive and 4 B per list entry it writes (written_entries); each
// tile reads its entries (under binning=hierarchical, those of every level's bin covering it) and the
// records they point to. Primitives [first, last) of `prims`, binned into `lists` on `grid`. Each
// tile's reads are also added to tile_reads[t] (sized to the grid), for the per-tile heatmaps.
Traffic tile_list_traffic(const PassSetup& setup, const ScreenPrims& prims, size_t first, size_t last,
                          const TileGrid& grid, const TileLists& lists, std::vector<uint64_t>& tile_reads,
                          uint32_t threads = 1);

// The buffer's fill as geometry emits primitives: each binned primitive's record and its
// tile-list entries under the binning rule. The primitive that would overflow it starts the next render; a primitive
// larger than the capacity on its own is rendered alone.
class ParamBufferFill {
 public:
  ParamBufferFill(uint64_t capacity, const PassSetup& setup, const TileGrid& grid, const models::BinningRule& rule,
                  uint32_t threads);
  // Sizes primitives [first, prims.size()) and returns, in order, each one that starts a new
  // render (the primitives before it, from the previous one returned or from 0, are rendered).
  std::vector<size_t> flush_points(const ScreenPrims& prims, size_t first);

 private:
  // Batches of at least this many primitives are sized on the pass's threads.
  static constexpr size_t kParallelSizing = 65536;
  // Fills m_batch_bytes (when per_primitive, or the rule is not aabb; else leaves it empty); returns
  // their sum (summed by range on the threads, then in range order).
  uint64_t size_batch(const ScreenPrims& prims, size_t first, bool per_primitive);

  uint64_t m_capacity;
  const PassSetup& m_setup;
  const TileGrid& m_grid;
  models::BinningRule m_rule;
  uint32_t m_threads;
  uint64_t m_binned_bytes = 0;         // in the buffer since the last flush
  std::vector<uint64_t> m_batch_bytes;  // what each primitive of the batch fills (empty: only summed)
};

}  // namespace tbdr
