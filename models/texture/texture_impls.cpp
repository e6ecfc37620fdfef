// texture=footprint and texture=cache: the physical DRAM bytes of material-texture fetches.
//   footprint: unique texels (blocks) touched per pass x bytes per texel (block), the nominal rule
//              of models/README.md "Sources: the DRAM ledger", whatever the order of the fetches.
//   cache:     every core has its own set-associative LRU texture cache, cold at the start of each
//              hardware pass; a miss reads one line from the shared L2 (l2_bytes > 0) or DRAM.
//              The L2 sees the cores' misses tile by tile in tile order (the cores advancing
//              together over the tile grid), so the result never depends on host threads.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "models/errors.h"
#include "models/registry.h"
#include "models/texture/texture.h"

namespace tbdr::models {

uint64_t texture_level_bytes(const TextureLevelShape& level, TextureLayout layout) {
  if (layout == TextureLayout::linear) return uint64_t(level.elements_x) * level.elements_y * level.element_bytes;
  const uint64_t side = level.block_format ? 4 : 16;
  const uint64_t tiles_x = (level.elements_x + side - 1) / side, tiles_y = (level.elements_y + side - 1) / side;
  return tiles_x * tiles_y * side * side * level.element_bytes;
}

namespace {

class FootprintTexture final : public TextureModel {
 public:
  TextureCacheConfig config() const override { return {}; }
  TextureCacheStats replay(const std::vector<std::span<const uint64_t>>&, const std::vector<uint32_t>&, uint32_t,
                           const ForBlocks&, const TextureLineLabels*) const override {
    return {};
  }
};

class CacheTexture final : public TextureModel {
 public:
  explicit CacheTexture(Params& p)
      // guess: 16 KiB per core; Arm and Qualcomm do not publish L1 texture cache sizes.
      : m_size(uint64_t(p.integer("size_bytes", 16384, "B", "texture cache per shader core (guess)", 64, int64_t(1) << 30))),
        // 64 B: Mesa's panfrost tiling notes, "a single line (16 pixels) at 4 bytes per pixel equals a
        // single 64-byte cache line" (docs/drivers/panfrost/tiling.rst).
        m_line(uint32_t(p.integer("line_bytes", 64, "B", "cache line, a power of two (Mali: 64 B, Mesa panfrost docs)",
                                  16, 4096))),
        // guess: 4 ways.
        m_ways(uint32_t(p.integer("ways", 4, "ways", "associativity (guess)", 1, 64))),
        m_layout(p.choice("layout", "tiled", {"tiled", "linear"},
                          "texture memory layout: tiled (Arm 16x16 u-interleaved, Mesa panfrost) or linear rows") ==
                         "tiled"
                     ? TextureLayout::tiled
                     : TextureLayout::linear),
        // 0: no L2, every L1 miss reads DRAM (an upper bound). Presets give the L2 share textures get (guesses).
        m_l2_size(uint64_t(p.integer("l2_bytes", 0, "B", "shared L2 serving the texture caches' misses, 0 = none", 0,
                                     int64_t(1) << 34))),
        // guess: 8 ways.
        m_l2_ways(uint32_t(p.integer("l2_ways", 8, "ways", "L2 associativity (guess)", 1, 64))) {
    if (p.describe_mode()) return;
    if ((m_line & (m_line - 1)) != 0)
      throw InputError("texture.line_bytes", "must be a power of two, got " + std::to_string(m_line));
    if (m_size % (uint64_t(m_line) * m_ways) != 0)
      throw InputError("texture.size_bytes", "must be a multiple of line_bytes x ways = " +
                                                 std::to_string(uint64_t(m_line) * m_ways) + ", got " +
                                                 std::to_string(m_size));
    m_sets = m_size / (uint64_t(m_line) * m_ways);
    if (m_l2_size % (uint64_t(m_line) * m_l2_ways) != 0)
      throw InputError("texture.l2_bytes", "must be a multiple of line_bytes x l2_ways = " +
                                               std::to_string(uint64_t(m_line) * m_l2_ways) + ", got " +
                                               std::to_string(m_l2_size));
    m_l2_sets = m_l2_size / (uint64_t(m_line) * m_l2_ways);
  }

  TextureCacheConfig config() const override { return {true, m_line, m_layout}; }

  TextureCacheStats replay(const std::vector<std::span<const uint64_t>>& tiles,
                           const std::vector<uint32_t>& core_of_tile, uint32_t cores,
                           const ForBlocks& for_blocks, const TextureLineLabels* labels) const override {
    // Each core's L1 over its own tiles (in tile order), keeping each tile's misses in order: in
    // one array per core (a vector per tile cost a malloc and fresh pages per tile), tile t's
    // misses at [miss_begin[t], miss_end[t]) of its core's array; with labels, each miss's label
    // at the same place of the core's label array.
    std::vector<std::vector<uint64_t>> core_misses(cores);
    std::vector<std::vector<uint32_t>> core_miss_labels(labels ? cores : 0);
    std::vector<size_t> miss_begin(tiles.size(), 0), miss_end(tiles.size(), 0);
    std::vector<uint64_t> core_hits(cores, 0);
    // Each core's lines, the most its misses can be: its arrays reserved once (grown by doubling,
    // they were copied again and again: a fifth of a captured frame's replay instructions, callgrind).
    std::vector<size_t> core_lines(cores, 0);
    for (size_t t = 0; t < tiles.size(); ++t)
      if (core_of_tile.at(t) < cores) core_lines[core_of_tile[t]] += tiles[t].size();
    for_blocks(cores, [&](uint32_t core) {
      LruCache l1(m_sets, m_ways);
      std::vector<uint64_t>& misses = core_misses[core];
      misses.reserve(core_lines[core]);
      if (labels) core_miss_labels[core].reserve(core_lines[core]);
      // Counted in a local: the cores' counters share a cache line, and incrementing them in place
      // from several threads made the replay slower on two threads than on one.
      uint64_t hits = 0;
      for (size_t t = 0; t < tiles.size(); ++t) {
        if (core_of_tile.at(t) != core) continue;
        miss_begin[t] = misses.size();
        if (labels) hits += labelled_l1(l1, tiles[t], labels->tiles.at(t), misses, core_miss_labels[core]);
        else hits += l1.replay(tiles[t], [&](uint64_t line) { misses.push_back(line); });
        miss_end[t] = misses.size();
      }
      core_hits[core] = hits;
    });
    TextureCacheStats s;
    for (uint64_t h : core_hits) s.hits += h;
    // The shared L2 sees the misses tile after tile, as one pass over the tiles in order would.
    LruCache l2(std::max<uint64_t>(m_l2_sets, 1), m_l2_ways);
    uint64_t dram_lines = 0;
    if (labels) s.dram_bytes_by_label.assign(labels->count, 0);
    for (size_t t = 0; t < tiles.size(); ++t) {
      const uint32_t core = core_of_tile[t];
      const std::span<const uint64_t> misses(core_misses[core].data() + miss_begin[t], miss_end[t] - miss_begin[t]);
      const uint32_t* miss_labels = labels ? core_miss_labels[core].data() + miss_begin[t] : nullptr;
      s.misses += misses.size();
      if (m_l2_sets == 0) {  // no L2: straight to DRAM
        dram_lines += misses.size();
        if (labels)
          for (size_t m = 0; m < misses.size(); ++m) s.dram_bytes_by_label.at(miss_labels[m]) += m_line;
        continue;
      }
      const uint64_t l2_hits = l2.replay(misses, [&](const uint64_t& line) {
        if (labels) s.dram_bytes_by_label.at(miss_labels[&line - misses.data()]) += m_line;
      });
      s.l2_hits += l2_hits;
      s.l2_misses += misses.size() - l2_hits;
      dram_lines += misses.size() - l2_hits;
    }
    s.dram_bytes = dram_lines * m_line;
    return s;
  }

  // One tile's lines through a core's L1, each miss kept with its run's label; returns the hits.
  template <class Cache>  // LruCache, declared below
  static uint64_t labelled_l1(Cache& l1, std::span<const uint64_t> lines, std::span<const TextureLineRun> runs,
                              std::vector<uint64_t>& misses, std::vector<uint32_t>& miss_labels) {
    // Run by run (a line takes the first run from the current one whose end is past it), rather
    // than testing the runs at every line: a captured frame's runs are long.
    uint64_t hits = 0;
    size_t i = 0;
    for (const TextureLineRun& run : runs) {
      const size_t end = std::max(i, std::min<size_t>(run.end, lines.size()));
      const std::span<const uint64_t> run_lines = lines.subspan(i, end - i);
      hits += l1.replay(run_lines, [&](uint64_t line) {
        misses.push_back(line);
        miss_labels.push_back(run.label);
      });
      i = end;
    }
    if (i < lines.size()) throw std::logic_error("texture replay: a line past its tile's last labelled run");
    return hits;
  }

 private:
  uint64_t m_size;
  uint32_t m_line, m_ways;
  TextureLayout m_layout;
  uint64_t m_l2_size;
  uint32_t m_l2_ways;
  uint64_t m_sets = 1, m_l2_sets = 0;

  // A set-associative cache with LRU replacement; each set keeps its lines most recently used first.
  class LruCache {
   public:
    LruCache(uint64_t sets, uint32_t ways)
        : m_sets(sets), m_sets_power_of_two((sets & (sets - 1)) == 0), m_ways(ways), m_lines(sets * ways, kEmpty) {}
    // Each of `lines` in order through the cache (hit or not, it becomes the most recently used line
    // of its set), on_miss(line) after a miss (the element of `lines`, so that its index is known);
    // returns the hits. The presets' 4 ways unrolled (L1), 8 with the count known at compile time
    // (L2). The count is tested once a call, and the cache's fields are held in locals over the
    // lines: on_miss stores, which may alias them, and they were loaded again at every line.
    template <class OnMiss>
    uint64_t replay(std::span<const uint64_t> lines, OnMiss&& on_miss) {
      if (m_ways == 4) return replay_ways<4>(lines, on_miss);
      if (m_ways == 8) return replay_ways<8>(lines, on_miss);
      return replay_ways<0>(lines, on_miss);
    }

   private:
    // kWays: m_ways, or 0 where it is known at run time only.
    template <uint32_t kWays, class OnMiss>
    uint64_t replay_ways(std::span<const uint64_t> lines, OnMiss& on_miss) {
      const uint32_t ways = kWays ? kWays : m_ways;
      uint64_t* const sets = m_lines.data();
      const uint64_t set_count = m_sets, set_mask = m_sets - 1;
      const bool sets_power_of_two = m_sets_power_of_two;
      uint64_t hits = 0;
      for (const uint64_t& line : lines) {
        const uint64_t set_index = sets_power_of_two ? line & set_mask : line % set_count;
        if (access_set<kWays>(sets + set_index * ways, ways, line)) ++hits;
        else on_miss(line);
      }
      return hits;
    }
    // `line` through `set` (its set, `ways` lines most recently used first): whether it hit.
    template <uint32_t kWays>
    [[gnu::always_inline]] static bool access_set(uint64_t* set, uint32_t ways, uint64_t line) {
      if (set[0] == line) return true;  // the most recently used line (a bilinear footprint's other line): nothing moves
      if constexpr (kWays == 4) {
        // The search and the shift of the ways before the hit unrolled, way by way: a hit in way 1
        // or 2 moves the ways before it; a hit in way 3 or a miss (evicting way 3) moves all three.
        const uint64_t s0 = set[0], s1 = set[1];
        if (s1 == line) {
          set[1] = s0;
          set[0] = line;
          return true;
        }
        const uint64_t s2 = set[2];
        if (s2 == line) {
          set[2] = s1;
          set[1] = s0;
          set[0] = line;
          return true;
        }
        const bool hit = set[3] == line;
        set[3] = s2;
        set[2] = s1;
        set[1] = s0;
        set[0] = line;
        return hit;
      }
      uint32_t w = 1;
      while (w < ways && set[w] != line) ++w;
      const bool hit = w < ways;
      // A miss evicts the last way: the least recently used line of a full set, or an empty way
      // (ways fill from the front, so shifting every way moves the same lines as shifting up to
      // the first empty one, and leaves the same empty ways behind).
      if (!hit) w = ways - 1;
      // A plain loop over these few ways: std::move_backward became a memmove call per access.
      for (uint32_t k = w; k > 0; --k) set[k] = set[k - 1];
      set[0] = line;
      return hit;
    }

    static constexpr uint64_t kEmpty = ~uint64_t(0);  // a free way (no line address is all ones)
    uint64_t m_sets;
    bool m_sets_power_of_two;
    uint32_t m_ways;
    std::vector<uint64_t> m_lines;
  };
};

const Registrar<TextureModel> footprint_registrar(
    "texture", "footprint", "unique texels (blocks) touched per pass x bytes per texel (block), as the nominal ledger",
    [](Params&) { return std::make_unique<FootprintTexture>(); });
const Registrar<TextureModel> cache_registrar(
    "texture", "cache", "a set-associative LRU texture cache per shader core; DRAM bytes = misses x line",
    [](Params& p) { return std::make_unique<CacheTexture>(p); });

}  // namespace
}  // namespace tbdr::models
