// Per-pass counters and the DRAM ledger: plain structs with units, defined once through X-macros
// so the text, JSON and CSV writers in tools/ cannot drift (architecture.md "Stats").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tbdr {

// X(name, description). Counts of work in one API pass.
#define TBDR_PASS_COUNTERS(X)                                                                \
  X(draws, "draws submitted")                                                                \
  X(vertices, "vertex shader invocations (unique vertices per draw and instance)")           \
  X(primitives_in, "triangles assembled")                                                    \
  X(primitives_culled, "triangles removed by culling, zero area or clipping")                \
  X(primitives_clipped, "triangles that crossed the near plane or the guard band")          \
  X(primitives, "screen triangles after clipping and culling (binned)")                       \
  X(tiles, "tiles over the render area")                                                      \
  X(empty_tiles, "tiles whose list is empty")                                                 \
  X(tile_list_entries, "tile-list entries written by binning")                                \
  X(fragments, "pixels with at least one covered sample")                                     \
  X(fragments_shaded, "fragment program invocations")                                         \
  X(samples_passed, "samples passing the depth and stencil tests")                            \
  X(clear_pixels, "pixels cleared by mid-pass clears")

// X(name). DRAM traffic categories, in report order (traces/README.md).
#define TBDR_DRAM_CATEGORIES(X) \
  X(attachment_load)            \
  X(attachment_store)           \
  X(image_sample)               \
  X(texture)                    \
  X(vertex)                     \
  X(tile_list)                  \
  X(resolve)                    \
  X(framebuffer_color)          \
  X(framebuffer_depth)

enum class DramCategory {
#define TBDR_ENUM(name) name,
  TBDR_DRAM_CATEGORIES(TBDR_ENUM)
#undef TBDR_ENUM
};
constexpr size_t kDramCategoryCount = 0
#define TBDR_COUNT(name) +1
    TBDR_DRAM_CATEGORIES(TBDR_COUNT)
#undef TBDR_COUNT
    ;
const char* dram_category_name(DramCategory c);

struct Traffic {
  uint64_t read_bytes = 0, write_bytes = 0;
  Traffic& operator+=(const Traffic& o) { read_bytes += o.read_bytes; write_bytes += o.write_bytes; return *this; }
  Traffic& operator-=(const Traffic& o) { read_bytes -= o.read_bytes; write_bytes -= o.write_bytes; return *this; }
  bool operator==(const Traffic&) const = default;
};

struct DramLedger {
  std::array<Traffic, kDramCategoryCount> by_category{};
  Traffic& operator[](DramCategory c) { return by_category[static_cast<size_t>(c)]; }
  const Traffic& operator[](DramCategory c) const { return by_category[static_cast<size_t>(c)]; }
  Traffic total() const {
    Traffic t;
    for (const auto& c : by_category) t += c;
    return t;
  }
  DramLedger& operator+=(const DramLedger& o) {
    for (size_t i = 0; i < kDramCategoryCount; ++i) by_category[i] += o.by_category[i];
    return *this;
  }
  DramLedger& operator-=(const DramLedger& o) {
    for (size_t i = 0; i < kDramCategoryCount; ++i) by_category[i] -= o.by_category[i];
    return *this;
  }
  bool operator==(const DramLedger&) const = default;
};

struct PassCounters {
#define TBDR_FIELD(name, description) uint64_t name = 0;
  TBDR_PASS_COUNTERS(TBDR_FIELD)
#undef TBDR_FIELD
  PassCounters& operator+=(const PassCounters& o) {
#define TBDR_ADD(name, description) name += o.name;
    TBDR_PASS_COUNTERS(TBDR_ADD)
#undef TBDR_ADD
    return *this;
  }
  PassCounters& operator-=(const PassCounters& o) {
#define TBDR_SUB(name, description) name -= o.name;
    TBDR_PASS_COUNTERS(TBDR_SUB)
#undef TBDR_SUB
    return *this;
  }
  bool operator==(const PassCounters&) const = default;
};

// One hardware pass of an API render pass: a group of subpasses run tile by tile together.
struct HardwarePassStats {
  uint32_t first_subpass = 0, last_subpass = 0;
  uint32_t tile_width = 0, tile_height = 0;
  std::string tile_reason;
  uint64_t tiles = 0;
  uint64_t working_set_bytes_per_tile = 0;  // domain.md section 4: T^2 x sum(bytes x samples)
  DramLedger dram, dram_nominal;
};

struct MergeStats {
  bool merged = true;                 // every subpass in one hardware pass
  std::vector<std::string> reasons;   // one per refused merge
};

struct PassStats {
  std::string name;
  std::string type;           // render, compute, copy, blit, resolve, barrier
  uint32_t tile_width = 0, tile_height = 0;  // 0 for passes without tiles
  std::string tile_reason;    // the tiling model's explanation
  PassCounters counters;
  DramLedger dram;            // physical: what the modeled GPU moves
  DramLedger dram_nominal;    // domain.md section 7: full uncompressed transfers, footprints
  // Render passes only: the merge decision and its hardware passes (their ledgers sum to the
  // pass's own, apart from vertex traffic, which is counted once per API pass).
  MergeStats merge;
  std::vector<HardwarePassStats> hardware_passes;
  uint64_t working_set_bytes_per_tile = 0;  // the largest of its hardware passes
};

struct FrameStats {
  std::vector<PassStats> passes;
  PassCounters counters;      // sums over the frame's passes
  DramLedger dram, dram_nominal;
};

struct RunStats {
  std::vector<FrameStats> frames;
  PassCounters counters;
  DramLedger dram, dram_nominal;
};

// Fills the frame and run sums from the per-pass figures (one place for totals).
void accumulate_totals(RunStats& run);

}  // namespace tbdr
