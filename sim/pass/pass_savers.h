// The savers stage of a hardware pass: AFBC sizes and transaction-elimination kills of what its
// tiles loaded and stored, empty-tile savings, and compressed sampled reads; the physical ledger
// is the nominal one with these applied.
#pragma once

#include <cstdint>
#include <vector>

#include "models/registry.h"
#include "sim/pass/plan.h"
#include "sim/pass/tile_buffer.h"
#include "sim/programs.h"
#include "sim/savers.h"

namespace tbdr {

struct SaverContext {
  const PassSetup* setup = nullptr;
  const models::ModelSet* models = nullptr;
  SaverState* savers = nullptr;  // per image, carried from pass to pass and frame to frame
  ImageStore* store = nullptr;
  uint32_t frame = 0;            // picks the swapchain image's signature set
  bool block_maps = false;       // keep per-block AFBC ratios and TE kills (heatmaps)
  uint32_t threads = 1;
};

// Before the tiles: the AFBC sizes of the superblocks the API's LOADs will read, from the pixels
// before this hardware pass overwrites them (apply_savers sizes the loads after the tiles ran).
void size_compressed_loads(const SaverContext& ctx, const HardwarePassPlan& plan,
                           const std::vector<AttachmentStats>& attachments);

// After the tiles: the physical bytes of eligible attachments' loads and stores (and sampled
// reads of compressed images) replace the raw ones in `physical`. Stores are sized on the
// image's own 16x16 blocks once the pass has stored them, whatever the tile size: AFBC from the
// pixels, TE against the image's signatures (per swapchain image in rotation). block_deltas[a][b]
// receives attachment a's physical minus raw bytes of its loads and stores in 16x16 block b (for
// the per-tile heatmaps; empty where the attachment moved nothing).
void apply_savers(const SaverContext& ctx, const AttachmentBlocks& blocks, const Footprints& footprints,
                  std::vector<AttachmentStats>& attachments, DramLedger& physical,
                  std::vector<std::vector<int64_t>>& block_deltas);

}  // namespace tbdr
