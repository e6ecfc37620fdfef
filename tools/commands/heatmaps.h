// Heatmaps of a run (`run --heatmaps`, the HTML report): per-tile cycles and DRAM bytes (physical
// and nominal) of every hardware pass, AFBC ratios and TE kills per 16x16 block, overdraw per pixel.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/stats.h"
#include "tools/commands/output.h"

namespace tbdr {

// One map: values row-major (width x height, top row first), what they are and their unit.
struct HeatmapGrid {
  std::vector<double> values;
  uint32_t width = 0, height = 0;
  uint32_t scale = 1;  // pixels per cell in the PNG
  std::string title, unit;
  std::string cell = "tile";  // what one value covers: "tile", "16x16 block" or "pixel"
};

// A map of a run, named by its file stem (f<frame>_p<pass>_<name>[_hw<h>|_att<a>]_heat_<map>).
struct NamedHeatmap {
  std::string stem;
  uint32_t frame = 0;
  size_t pass = 0;
  HeatmapGrid grid;
};

// Every map of `stats`, in frame, pass, hardware pass / attachment order.
std::vector<NamedHeatmap> run_heatmaps(const RunStats& stats);

// Adds each map of `stats` to `output` under `dir` as STEM.png and STEM.csv.
void write_heatmaps(const RunStats& stats, OutputFolder& output, const std::filesystem::path& dir);

// The map as RGB: the title above, the cells in viridis, and a legend below (the color ramp with
// the minimum at its left end and the maximum at its right, both with the unit).
Png heatmap_png(const HeatmapGrid& grid);

// The map as CSV: one line per row of cells, top row first, values comma-separated (integers as
// integers, other numbers in the shortest form that reads back to the same double).
std::string heatmap_csv(const HeatmapGrid& grid);

// A whole number with its thousands separated by commas ("19,123,456"), as the legends and the
// HTML report print figures.
std::string grouped_digits(uint64_t value);

// matplotlib's viridis colour map at t in [0, 1] (clamped), as 8-bit RGB.
std::array<uint8_t, 3> viridis(double t);

}  // namespace tbdr
