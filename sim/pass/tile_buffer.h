// The tile-buffer stage: a tile's attachments loaded from where the plan's AttachmentAccess says,
// cleared and resolved mid-pass, and stored to where it says, with the DRAM bytes each moves.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/pass/plan.h"
#include "sim/pass/setup.h"
#include "sim/stats.h"
#include "sim/surface.h"

namespace tbdr {

// Driver-owned memory of a render pass, allocated before tiles run on several threads: a refused
// merge's spill (the intermediate contents live there between hardware passes, so the image
// itself changes only by the API's store op) and a parameter-buffer flush's store (separate from
// the image: a DONT_CARE store must leave the image unchanged).
struct DriverMemory {
  std::vector<Surface> spill, flush;  // per attachment; width 0 until allocated
  // Allocates what `access` reads or writes (merge_spill, flush_reload, flush_store).
  void prepare(const PassSetup& setup, const std::vector<AttachmentAccess>& access);
};

// Per attachment, what the API's loads and stores moved, for the savers: pixels per 16x16 block
// of the image (the savers' grid; empty: none), and the bytes empty-tile elimination skipped.
struct AttachmentBlocks {
  std::vector<std::vector<uint32_t>> stored, loaded;
  std::vector<uint64_t> empty_saved_load, empty_saved_store;
  void reset(size_t attachments);
  void add(const AttachmentBlocks& other);  // integer sums: any order gives the same
};

// One render of a hardware pass as the tile buffer sees it.
struct TileBufferInput {
  const PassSetup* setup = nullptr;
  const std::vector<AttachmentAccess>* access = nullptr;  // render_access() of this render
  DriverMemory* memory = nullptr;
};

// One worker's tile buffer: a surface per attachment covering the tile's pixels, and what its
// loads and stores moved.
struct TileBuffer {
  std::vector<Surface> surfaces;
  DramLedger dram;
  AttachmentBlocks blocks;
  uint64_t resolve_pixels = 0;   // of the current tile's inline resolves
  uint64_t cleared_samples = 0;  // of the current tile's mid-pass clears (TileWork::cleared_samples)

  // Fills every accessed attachment of `rect`; `empty`: the tile has no primitive, so attachments
  // eligible for empty-tile elimination are neither read nor written.
  void load(const TileBufferInput& in, const Rect& rect, bool empty, PassCounters& counters);
  void store(const TileBufferInput& in, const Rect& rect, bool empty, PassCounters& counters);
  // A mid-pass clear (vkCmdClearAttachments or a subpass's clears) of the tile's part of its rects.
  void clear(const PassSetup& setup, const Subpass& sp, const MidPassClear& clear, const Rect& tile,
             PassCounters& counters);
  // The inline resolves at the end of a subpass (pResolveAttachments, depth/stencil resolve).
  void resolve(const Subpass& sp, const Rect& tile);
};

// Copies every sample of `src`'s pixels in `r` to `dst` at (dx, dy), of the color and depth
// aspects unless `main` is false and of the stencil aspect unless `stencil` is.
void copy_region(const Surface& src, const Rect& r, Surface& dst, int32_t dx = 0, int32_t dy = 0, bool main = true,
                 bool stencil = true);

}  // namespace tbdr
