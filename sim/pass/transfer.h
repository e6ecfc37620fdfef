// Passes without tiles: copies, blits and resolves between images (vkCmdCopyImage,
// vkCmdBlitImage, vkCmdResolveImage) and the built-in compute programs, with their DRAM bytes.
#pragma once

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

}  // namespace tbdr
