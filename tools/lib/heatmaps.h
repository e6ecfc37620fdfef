// Heatmap images of a run (`run --heatmaps`): per-tile cycles and DRAM bytes of every hardware
// pass, and rasterized fragments per pixel (overdraw) of every render pass, each with a legend.
#pragma once

#include "sim/stats.h"
#include "tools/lib/output.h"

namespace tbdr {

// Adds the heatmap PNGs of `stats` to `output` (names carry frame, pass and map).
void write_heatmaps(const RunStats& stats, OutputFolder& output, const std::filesystem::path& dir);

// A map of values (row-major, width x height) as RGB with a legend strip below it: a color
// ramp from the minimum (left) to the maximum (right) with both values printed. Exposed for tests.
Png heatmap_png(const std::vector<double>& values, uint32_t width, uint32_t height, uint32_t scale);

}  // namespace tbdr
