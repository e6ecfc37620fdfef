// Passes without tiles: copies, blits and resolves between images (vkCmdCopyImage,
// vkCmdBlitImage, vkCmdResolveImage) and the built-in compute programs, with their DRAM bytes.
#pragma once

#include <set>
#include <string>

#include "sim/frame.h"
#include "sim/stats.h"
#include "sim/surface.h"

namespace tbdr {

// A copy, blit or resolve pass: writes its destination and counts the bytes (traces/README.md
// "DRAM ledger"); returns the destination region it wrote.
Rect run_transfer(const Trace& trace, ImageStore& store, const Pass& pass, PassStats& stats);

// A compute pass running a built-in program (downsample, histogram): reads count as sampled
// footprints, writes as attachment stores; returns the region written. Throws InputError naming
// `where` for a missing image or an unknown program.
Rect run_compute(const Trace& trace, ImageStore& store, const Pass& pass, const std::string& where, PassStats& stats);

// The DRAM traffic of dispatches reading and writing `read` and `written` (indices into
// Trace::buffers): each buffer once at its size, none in tile memory (VK_QCOM_tile_memory_heap
// memory is GMEM, not DRAM); traces/README.md "DRAM ledger", `buffer`.
Traffic buffer_traffic(const Trace& trace, const std::set<int32_t>& read, const std::set<int32_t>& written);

}  // namespace tbdr
