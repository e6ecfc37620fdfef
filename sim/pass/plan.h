// The plan stage of a render pass: how its subpasses group into hardware passes (merge model),
// whether it renders directly (direct model), and for each hardware pass where every
// attachment's load comes from and its store goes to, its tile size and its per-tile events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/pass/setup.h"
#include "sim/sim_options.h"

namespace tbdr {

// Where an attachment's tile-buffer contents come from at the start of a tile...
enum class LoadSource {
  skip,          // no subpass of the hardware pass references it: nothing is loaded
  api,           // the API's loadOp (LOAD reads DRAM unless the image is transient)
  merge_spill,   // an earlier hardware pass of a refused merge stored it: read back from driver memory
  flush_reload,  // a parameter-buffer flush stored it: read back from driver memory
  direct_cache,  // direct rendering: the loadOp's pixels, CLEAR writes memory, LOAD reads on a miss
};
// ...and where they go at its end.
enum class StoreTarget {
  skip,          // not referenced: nothing is stored
  api,           // the API's storeOp (STORE writes DRAM unless the image is transient)
  merge_spill,   // a later hardware pass of a refused merge reads it: stored to driver memory
  flush_store,   // a parameter-buffer flush: every attachment to driver memory, for the next render
  direct_cache,  // direct rendering: written through the framebuffer cache already
};

struct AttachmentAccess {
  LoadSource load = LoadSource::skip;
  StoreTarget store = StoreTarget::skip;
  // An empty tile may skip this attachment's load and store (empty-tile elimination): the API
  // loads and stores it (LOAD and STORE of every aspect) and the pass has no mid-pass clears or
  // inline resolves. Applies only when the hardware pass renders at once (no flush).
  bool empty_tile_eligible = false;
};

// One step of a tile's work, in order: a mid-pass clear, a draw, a per-tile dispatch, a subpass's
// inline resolves.
struct TileEvent {
  enum Kind : uint8_t { clear, draw, dispatch, resolve } kind;
  uint32_t subpass;
  uint32_t index;  // clear: index in the subpass's clears; draw: index in PassSetup::draws; dispatch:
                   // index in the subpass's tile_dispatches
};

// A group of subpasses run tile by tile together, planned before any of its tiles runs.
struct HardwarePassPlan {
  uint32_t first_subpass = 0, last_subpass = 0;
  bool tiled = true;   // binned into tiles (TBDR); else one tile over the render area (IMR, direct)
  bool direct = false; // rendered directly through the framebuffer cache (direct model)
  std::string direct_reason;
  std::vector<AttachmentAccess> access;  // per attachment of the pass
  size_t draw_begin = 0, draw_end = 0;   // its draws in PassSetup::draws
  std::vector<TileEvent> events;
  std::vector<uint32_t> draw_event;      // per draw of the pass: its event (draws of this hardware pass)
  // Varying floats kept per screen vertex: what this hardware pass's programs read.
  int varying_stride = 4;
  models::TilingInput tiling_input;      // the attachments it holds in the tile buffer
  uint64_t working_set_bytes_per_pixel = 0;
  uint32_t tile_width = 0, tile_height = 0;
  std::string tile_reason;
};

// The merge model's grouping of the pass's subpasses (TBDR only: the IMR path draws the whole
// render pass at once, which gives the same pixels).
models::MergeDecision decide_merge(const PassSetup& setup, const models::ModelSet& models, RenderPath path);
// What the direct model compares for the pass.
models::DirectInput direct_input(const PassSetup& setup);

// Plans subpasses [first, last] as one hardware pass.
HardwarePassPlan plan_hardware_pass(const PassSetup& setup, const models::ModelSet& models, RenderPath path,
                                    uint32_t first, uint32_t last, const models::DirectDecision* direct);

// The access of one render of a tiled hardware pass (param_buffer): every render but the first
// reloads each attachment the flush stored, every render but the last stores each one for the
// next; empty-tile elimination applies only to a hardware pass rendered at once.
std::vector<AttachmentAccess> render_access(const HardwarePassPlan& plan, bool first_render, bool last_render);

}  // namespace tbdr
