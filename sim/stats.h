// Per-pass counters and the DRAM ledger: plain structs with units, defined once through X-macros
// so the text, JSON and CSV writers in tools/ cannot drift (tools/doc/design.md "Design rules": stats).
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
  X(param_buffer_flushes, "incremental renders: the parameter buffer was full (param_buffer)") \
  X(param_buffer_flush_store_bytes, "bytes the flushes stored, in attachment_store")          \
  X(param_buffer_flush_load_bytes, "bytes reloaded after the flushes, in attachment_load")    \
  X(fragments, "pixels with at least one covered sample")                                     \
  X(fragments_shaded, "fragment program invocations")                                         \
  X(samples_passed, "samples passing the depth and stencil tests")                            \
  X(clear_pixels, "pixels cleared by mid-pass clears")                                      \
  X(texel_fetches, "material-texture texel fetches (bilinear: 4 per sample)")                \
  X(texture_cache_hits, "texture cache line accesses that hit (texture=cache)")             \
  X(texture_cache_misses, "texture cache line accesses that missed (read from the L2, or DRAM without one)") \
  X(texture_l2_hits, "texture cache misses the shared L2 served (texture.l2_bytes > 0)")      \
  X(texture_l2_misses, "texture cache misses the shared L2 missed: lines read from DRAM")

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
  X(framebuffer_depth)          \
  X(buffer)

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

// X(name, description). Cycle breakdown of a hardware pass. Fragment figures are busy cycles
// summed over every tile (all cores together); `fragment` in CycleStats is the slowest core.
#define TBDR_CYCLE_BREAKDOWN(X)                                                     \
  X(vertex, "vertex shading (geometry)")                                            \
  X(primitive_setup, "primitive assembly, clipping, culling (geometry)")             \
  X(binning, "tile-list writes (geometry)")                                          \
  X(geometry_dram, "DRAM time of the geometry phase's bytes")                       \
  X(render_vertex, "vertex shading again while rendering the bins (geometry=binning_pass)") \
  X(load, "tile-buffer fill from DRAM")                                              \
  X(triangle_setup, "triangle set-up of tile-list entries")                          \
  X(raster, "quads rasterized and depth/stencil tested")                             \
  X(alu, "shader ALU")                                                               \
  X(texture, "texture sampling")                                                     \
  X(tile_read, "tile-memory reads (input attachments)")                              \
  X(varying, "varying interpolation")                                                \
  X(dependency_stall, "per-pixel dependency stalls on tile-memory reads")            \
  X(pixel, "fragment output, blending included")                                     \
  X(blend, "blending (part of pixel)")                                               \
  X(resolve, "inline resolves")                                                      \
  X(store, "tile-buffer write-back to DRAM")                                         \
  X(fragment_dram, "DRAM time of the fragment phase's bytes")

struct CycleBreakdown {
#define TBDR_FIELD(name, description) double name = 0;
  TBDR_CYCLE_BREAKDOWN(TBDR_FIELD)
#undef TBDR_FIELD
  CycleBreakdown& operator+=(const CycleBreakdown& o) {
#define TBDR_ADD(name, description) name += o.name;
    TBDR_CYCLE_BREAKDOWN(TBDR_ADD)
#undef TBDR_ADD
    return *this;
  }
};

// A pass's time: geometry on the vertex/compute queue, fragment on the fragment queue, each
// max(compute, its DRAM time) (models/README.md "Sources: time"), and where the scheduler placed them.
struct CycleStats {
  double geometry = 0, fragment = 0, total = 0;  // total = fragment_end - geometry_start
  CycleBreakdown breakdown;
};

struct ScheduleStats {
  double geometry_start = 0, geometry_end = 0, fragment_start = 0, fragment_end = 0;
  // Geometry (binning) cycles that ran while earlier passes' fragment work was running: hidden
  // behind rendering (scheduler=two_queue, or bv_br's concurrent binning) instead of in series.
  double binning_overlap = 0;
};

struct EnergyStats {
  double dram_joules = 0, tile_buffer_joules = 0, total_joules = 0;
};

// X(name, description). One draw's share of its render pass's work (PassStats::draw_stats): each
// field sums over the pass's draws to the pass's own figure (tools/doc/reports.md "Per-draw costs" says which).
#define TBDR_DRAW_COUNTERS(X)                                                                  \
  X(vertices, "vertex shader invocations")                                                     \
  X(primitives_in, "triangles assembled")                                                      \
  X(primitives_culled, "triangles removed by culling, zero area or clipping")                  \
  X(primitives_clipped, "triangles that crossed the near plane or the guard band")             \
  X(primitives, "screen triangles after clipping and culling")                                 \
  X(tile_list_entries, "tile-list entries of its triangles (flat lists; 0 under hierarchical)") \
  X(triangle_setups, "tile-list entries and per-tile triangles set up in the tiles")           \
  X(fragments, "pixels with at least one covered sample")                                      \
  X(quads_rasterized, "2x2 quads rasterized, per triangle")                                    \
  X(fragments_shaded, "fragment program invocations")                                          \
  X(quads_shaded, "2x2 quads with a shaded fragment, per triangle")                            \
  X(written_samples, "color samples written")                                                  \
  X(blended_samples, "color samples written with blending")                                    \
  X(texel_fetches, "material-texture texel fetches")                                           \
  X(vertex_read_bytes, "DRAM vertex: attribute and index bytes read")                          \
  X(tile_list_write_bytes, "DRAM tile_list: bytes binning wrote (flat lists)")                  \
  X(tile_list_read_bytes, "DRAM tile_list: bytes the tiles read (flat lists)")                 \
  X(texture_read_bytes, "DRAM texture: lines its fetches missed in every cache (texture=cache)")

struct DrawCounters {
#define TBDR_FIELD(name, description) uint64_t name = 0;
  TBDR_DRAW_COUNTERS(TBDR_FIELD)
#undef TBDR_FIELD
  DrawCounters& operator+=(const DrawCounters& o) {
#define TBDR_ADD(name, description) name += o.name;
    TBDR_DRAW_COUNTERS(TBDR_ADD)
#undef TBDR_ADD
    return *this;
  }
  bool operator==(const DrawCounters&) const = default;
};

// One draw of a render pass and what it cost. `work`: the shader work its shaded quads carry, four
// lanes a quad (the draw's cost fields x 4 x quads_shaded), which the cost models price into
// `cycles` (its share of the pass's breakdown: triangle_setup, raster, alu, texture, tile_read,
// varying, pixel, blend; the rest belongs to the pass: loads, stores, resolves, stalls).
struct DrawStats {
  uint32_t subpass = 0, index = 0;   // index: the draw's place in its subpass's `draws`
  std::string name, event;           // event: a capture's event id (draw name "event_<EID>"), else empty
  DrawCounters counters;
  double alu_work = 0, texture_work = 0, tile_read_work = 0, varying_work = 0, vertex_alu_work = 0;
  CycleBreakdown cycles;
  // Another hardware pass's share of the same draw: counts and work added (cycles are priced after).
  void add_share(const DrawStats& part) {
    counters += part.counters;
    alu_work += part.alu_work;
    texture_work += part.texture_work;
    tile_read_work += part.tile_read_work;
    varying_work += part.varying_work;
    vertex_alu_work += part.vertex_alu_work;
  }
  // The draw's fragment cycles: the sum of its units' cycles (triangle set-up, raster, alu,
  // texture, tile reads, varyings, pixel), the figure "top draws" ranks by.
  double fragment_cycles() const {
    return cycles.triangle_setup + cycles.raster + cycles.alu + cycles.texture + cycles.tile_read + cycles.varying +
           cycles.pixel;
  }
  // Its DRAM bytes: vertex reads, tile-list writes and reads, texture lines (texture=cache).
  uint64_t dram_bytes() const {
    return counters.vertex_read_bytes + counters.tile_list_write_bytes + counters.tile_list_read_bytes +
           counters.texture_read_bytes;
  }
};

// One hardware pass of an API render pass: a group of subpasses run tile by tile together.
struct HardwarePassStats {
  uint32_t first_subpass = 0, last_subpass = 0;
  uint32_t tile_width = 0, tile_height = 0;
  std::string tile_reason;
  uint64_t tiles = 0;
  // T^2 x sum(bytes x samples): models/README.md "Sources: tile-buffer working set"
  uint64_t working_set_bytes_per_tile = 0;
  DramLedger dram, dram_nominal;
  CycleStats cycles;
  ScheduleStats schedule;
  uint64_t tile_buffer_bytes = 0;           // on-chip traffic, for energy
  // The bytes of `dram` the geometry phase moves (its vertex fetch and tile-list writes, as its
  // geometry_dram time counts them); the fragment phase moves the rest. For the trace-events file.
  uint64_t geometry_dram_bytes = 0;
  bool direct = false;                      // rendered directly to DRAM (direct kind)
  bool binned = false;                      // tiled: a binning pass (visibility stream) before its tiles
  std::string direct_reason;
  // Per tile, for heatmaps: the grid and each tile's cycles and DRAM bytes, physical (after AFBC,
  // TE and empty-tile elimination) and nominal. A tile's bytes are its attachment loads, stores
  // and resolves (direct passes: framebuffer-cache traffic) and its tile-list reads; a 16x16 AFBC
  // block across tiles is shared by pixel count. Per pass only, in no tile: vertex, tile-list
  // writes, texture and image_sample bytes (tools/doc/reports.md "HTML report and heatmaps").
  uint32_t grid_cols = 0, grid_rows = 0;
  int32_t grid_first_col = 0, grid_first_row = 0;
  std::vector<double> tile_cycles;
  std::vector<uint64_t> tile_dram_bytes, tile_dram_nominal_bytes;
  // binning=hierarchical only (empty otherwise): tile-list entries written at each hierarchy level
  // (level L: bins of 2^L x 2^L tiles), 4 B each (traces/README.md "Parameter buffer").
  std::vector<uint64_t> tile_list_level_entries;
  // texture=cache: per draw of the render pass, the DRAM bytes of the texture lines its fetches
  // missed in every cache (their sum is the texture category's bytes); empty otherwise.
  std::vector<uint64_t> texture_dram_bytes_by_draw;
};

// One attachment of a render pass under the bandwidth savers (report `attachments[]`).
struct AttachmentStats {
  uint32_t attachment = 0;
  std::string image, format;
  uint64_t store_raw_bytes = 0, store_bytes = 0;  // uncompressed vs physical (after AFBC and TE)
  uint64_t load_raw_bytes = 0, load_bytes = 0;
  // Saver eligibility: code tests the flags; the strings are report text only ("compressed" /
  // "checked", else the model's reason).
  bool compressed = false;                        // stored AFBC-compressed
  std::string compression;
  uint64_t te_blocks = 0, te_blocks_killed = 0, te_bytes_saved = 0;
  bool te_checked = false;                        // stores checked by transaction elimination
  std::string write_elim;
  uint64_t empty_tile_bytes_saved = 0;            // loads and stores skipped in empty tiles
  // Where the stored pixels come from: "simulated", or the attachment's `contents` ("captured"
  // from a real program's capture, else "given").
  std::string pixels = "simulated";
  // Per 16x16 block of the image (heatmaps only, SimOptions::overdraw): the last store's AFBC
  // ratio (physical / raw; -1 where not stored) and TE kills.
  uint32_t block_cols = 0, block_rows = 0;
  std::vector<float> block_ratio;
  std::vector<uint16_t> block_kills;
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
  DramLedger dram_nominal;    // full uncompressed transfers, footprints: models/README.md "Sources: the DRAM ledger"
  // Render passes only: the merge decision and its hardware passes (their ledgers sum to the
  // pass's own, apart from vertex traffic, which is counted once per API pass).
  MergeStats merge;
  std::vector<HardwarePassStats> hardware_passes;
  uint64_t working_set_bytes_per_tile = 0;  // the largest of its hardware passes
  std::vector<AttachmentStats> attachments;  // render passes: per attachment, savers included
  std::vector<DrawStats> draw_stats;          // render passes: per draw, in submission order
  CycleStats cycles;          // its hardware passes together
  ScheduleStats schedule;     // first geometry start to last fragment end
  EnergyStats energy;
  // Draws whose fragments cannot occlude, per cause (a draw may count under several).
  uint64_t hsr_disabled_blending = 0, hsr_disabled_discard = 0, hsr_disabled_shader_depth_write = 0,
           hsr_disabled_tile_read = 0;
  // Overdraw: rasterized fragments per pixel over the framebuffer (for heatmaps; empty for
  // passes without raster).
  uint32_t overdraw_width = 0, overdraw_height = 0;
  std::vector<uint16_t> overdraw;
};

struct FrameStats {
  std::vector<PassStats> passes;
  double frame_cycles = 0;    // the last fragment end of the frame's schedule
  double steady_frame_cycles = 0;  // its period when repeated back to back (frames overlapping; pipeline.cpp)
  double clock_mhz = 0;       // of the configuration, for milliseconds
  EnergyStats energy;
  PassCounters counters;      // sums over the frame's passes
  DramLedger dram, dram_nominal;
};

// One frame on the present timeline (sim/present.cpp), milliseconds from the first submission.
struct FramePresentStats {
  double gpu_ms = 0, submit_ms = 0, ready_ms = 0;
  bool shown = false;                    // false: replaced before reaching the screen (mailbox)
  double present_ms = 0, latency_ms = 0;  // shown frames only: on screen, and on screen - submit
};

// The run's present timeline (the `display` kind): models/README.md "display".
struct PresentStats {
  std::string mode;
  double refresh_hz = 0;
  uint32_t swapchain_images = 0;
  std::string images_from;                // "trace" or "display.images"
  std::vector<FramePresentStats> frames;  // one per frame of the trace
  uint64_t shown = 0, dropped = 0;
  double mean_latency_ms = 0, max_latency_ms = 0;
  // Intervals between consecutive shown frames' presents: mean, population standard deviation
  // (the frame-pacing jitter) and the largest; 0 with fewer than two shown frames.
  double mean_interval_ms = 0, jitter_ms = 0, max_interval_ms = 0;
  double span_ms = 0;  // the first submission to the last frame on screen (or ready, if dropped)
};

// Sustained power (the `power` kind): models/README.md "power".
struct PowerStats {
  double energy_per_frame_joules = 0, frames_per_second = 0, watts = 0, sustained_watts = 0;
  bool within_budget = true;
  double budget_frames_per_second = 0;
};

struct RunStats {
  std::vector<FrameStats> frames;
  PassCounters counters;
  DramLedger dram, dram_nominal;
  PresentStats present;
  PowerStats power;
};

// Fills the frame and run sums from the per-pass figures (one place for totals).
void accumulate_totals(RunStats& run);

}  // namespace tbdr
