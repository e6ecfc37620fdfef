// The tiles stage: every tile of one render of a hardware pass, on the pass's threads: its tile
// buffer loaded, its events run (clears, the draws' listed primitives, resolves), stored; one
// TileResult per tile with the functional facts only (what was rasterized, shaded, moved).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "models/registry.h"
#include "sim/framebuffer_cache.h"
#include "sim/geometry.h"
#include "sim/pass/plan.h"
#include "sim/pass/texture_streams.h"
#include "sim/pass/tile_buffer.h"
#include "sim/programs.h"

namespace tbdr {

// One tile's functional result, the record costing reads (it never rasterizes again): the work
// the tile's fragments, clears, resolves, loads and stores amount to (HSR applied by the hsr
// model), and the DRAM bytes the tile moved.
struct TileResult {
  models::TileWork work;
  uint64_t dram_bytes = 0;
  uint64_t empty_saved_bytes = 0;  // loads and stores empty-tile elimination skipped (nominal only)
};

// One render of a hardware pass, as its tiles see it.
struct TileRender {
  const PassSetup* setup = nullptr;
  const HardwarePassPlan* plan = nullptr;
  TileBufferInput buffer;            // where each attachment is loaded from and stored to
  bool empty_tiles_eliminated = false;  // an empty tile skips eligible loads and stores
  uint32_t event_begin = 0, event_end = 0;  // the plan's events this render runs
  const ScreenPrims* prims = nullptr;
  FramebufferCache* cache = nullptr;  // direct rendering: every target access goes through it
  // Per-tile draws (VK_QCOM_tile_shading) of a binned render: per draw of the pass, its primitives
  // [first, second) in `prims`, which every tile runs (they are in no tile's list; empty for other
  // draws), and how many they are. Null in a whole-area render, whose list holds every primitive.
  const std::vector<std::pair<uint32_t, uint32_t>>* per_tile_prims = nullptr;
  uint32_t per_tile_primitives = 0;
};

// One tile to run: its pixels and its list of primitives (indices into TileRender::prims, in
// submission order).
struct TileInput {
  Rect rect;
  const uint32_t* list = nullptr;
  const uint32_t* list_end = nullptr;
};

// What the tiles of a hardware pass produced besides their TileResults, merged over workers and
// renders (integer sums and bitset ORs: the order does not matter).
struct TilesOutput {
  DramLedger dram;
  PassCounters counters;
  Footprints footprints;  // sampled texels and image texels (nominal texture and image bytes)
  uint64_t texture_repeats = 0;  // folded repeat fetches (texture cache hits)
  AttachmentBlocks blocks;       // what the API's loads and stores moved, for the savers
  // Texture line streams under a cache model: one per tile of each render, render after render.
  TextureLineStreams texture_lines;
  // Per draw of the pass (PassSetup::draws), every render together: what the tiles did with it.
  std::vector<DrawCounters> draws;
  // Per texture line stream: its lines in runs by draw (the replay's labels, for per-draw bytes).
  std::vector<std::vector<models::TextureLineRun>> texture_runs;
  void reset(const Trace& trace, size_t attachments);
};

struct TileStageOptions {
  uint32_t threads = 1;
  std::vector<uint16_t>* overdraw = nullptr;  // per-pixel rasterized fragments over the framebuffer
  TileWorkerTimes* times = nullptr;           // when set, the workers' times are added here (--time)
};

// Runs tiles [0, count) of a render, tile t described by tile(t), on up to options.threads
// threads; results are indexed by tile and do not depend on the thread count.
std::vector<TileResult> run_tiles(const TileRender& render, uint32_t count, const std::function<TileInput(uint32_t)>& tile,
                                  ImageStore& store, const models::ModelSet& models, const TileStageOptions& options,
                                  TilesOutput& out);

}  // namespace tbdr
