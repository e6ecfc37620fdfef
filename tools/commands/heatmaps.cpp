// Heatmap rendering: viridis cells upscaled by nearest neighbour, a title and a legend drawn with
// stb_easy_font's quads, and the same grids as CSV.
#include "tools/commands/heatmaps.h"

#include <stb/stb_easy_font.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace tbdr {
namespace {

// matplotlib's viridis (Stefan van der Walt and Nathaniel Smith, 2015; matplotlib/_cm_listed.py):
// every 8th entry of its 256-entry table and the last, 8-bit; linear between them the 256 entries
// come back within 2 LSB.
constexpr uint8_t kViridisAnchors[33][3] = {
    {68, 1, 84},     {71, 13, 96},    {72, 24, 106},   {72, 35, 116},   {71, 45, 123},   {69, 55, 129},
    {66, 64, 134},   {62, 73, 137},   {59, 82, 139},   {55, 91, 141},   {51, 99, 141},   {47, 107, 142},
    {44, 114, 142},  {41, 122, 142},  {38, 130, 142},  {35, 137, 142},  {33, 145, 140},  {31, 152, 139},
    {31, 160, 136},  {34, 167, 133},  {40, 174, 128},  {50, 182, 122},  {63, 188, 115},  {78, 195, 107},
    {94, 201, 98},   {112, 207, 87},  {132, 212, 75},  {152, 216, 62},  {173, 220, 48},  {194, 223, 35},
    {216, 226, 25},  {236, 229, 27},  {253, 231, 37}};

constexpr uint8_t kBackground = 32, kText = 240;
constexpr uint32_t kFontScale = 2, kTitleBand = 24, kLegendBand = 48, kMinWidth = 400;

void put_rgb(Png& png, uint32_t x, uint32_t y, const std::array<uint8_t, 3>& rgb) {
  if (x >= png.width || y >= png.height) return;
  std::copy(rgb.begin(), rgb.end(), &png.pixels[(size_t(y) * png.width + x) * 3]);
}

// Draws `text` with its top-left corner at (x0, y0), stb_easy_font's quads scaled by kFontScale.
void draw_text(Png& png, const std::string& text, uint32_t x0, uint32_t y0) {
  std::vector<char> buffer(text.size() * 64 * 16 + 64);
  std::string copy = text;
  const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buffer.data(), int(buffer.size()));
  for (int q = 0; q < quads; ++q) {
    float corner[4][2];
    for (int v = 0; v < 4; ++v) std::memcpy(corner[v], buffer.data() + (size_t(q) * 4 + v) * 16, sizeof corner[v]);
    const uint32_t qx0 = uint32_t(corner[0][0] * kFontScale), qy0 = uint32_t(corner[0][1] * kFontScale);
    const uint32_t qx1 = uint32_t(corner[2][0] * kFontScale), qy1 = uint32_t(corner[2][1] * kFontScale);
    for (uint32_t y = qy0; y < qy1; ++y)
      for (uint32_t x = qx0; x < qx1; ++x) put_rgb(png, x0 + x, y0 + y, {kText, kText, kText});
  }
}

uint32_t text_width(const std::string& text) {
  std::string copy = text;
  return uint32_t(stb_easy_font_width(copy.data())) * kFontScale;
}

// Whole numbers with thousands separators (the documents' and the HTML report's style), others
// with three significant digits.
std::string legend_number(double v) {
  if (v != std::floor(v) || std::fabs(v) >= 1e15) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  const std::string digits = grouped_digits(uint64_t(std::fabs(v)));
  return v < 0 ? "-" + digits : digits;
}

void draw_legend(Png& png, double lo, double hi, const std::string& unit, uint32_t top) {
  const uint32_t margin = 8, bar_height = 14;
  for (uint32_t y = top + 6; y < top + 6 + bar_height; ++y)
    for (uint32_t x = margin; x + margin < png.width; ++x)
      put_rgb(png, x, y, viridis(double(x - margin) / std::max(1u, png.width - 2 * margin - 1)));
  const std::string lo_text = legend_number(lo) + " " + unit, hi_text = legend_number(hi) + " " + unit;
  const uint32_t text_top = top + 6 + bar_height + 6;
  draw_text(png, lo_text, margin, text_top);
  const uint32_t hi_width = text_width(hi_text);
  draw_text(png, hi_text, png.width > hi_width + margin ? png.width - hi_width - margin : 0, text_top);
}

std::string stem(uint32_t frame, size_t pass, const std::string& name) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "f%u_p%02zu_", frame, pass);
  std::string s = prefix;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return s;
}

template <class T>
HeatmapGrid grid_of(const std::vector<T>& values, uint32_t width, uint32_t height, uint32_t scale, std::string title,
                    std::string unit, std::string cell = "tile") {
  return HeatmapGrid{std::vector<double>(values.begin(), values.end()), width, height, scale, std::move(title),
                     std::move(unit), std::move(cell)};
}

// The per-tile maps of one hardware pass: cycles, physical and nominal DRAM bytes.
void add_hardware_pass_maps(const HardwarePassStats& hw, const std::string& hw_stem, const std::string& label,
                            std::vector<HeatmapGrid>& grids, std::vector<std::string>& stems) {
  if (hw.tile_cycles.size() != size_t(hw.grid_cols) * hw.grid_rows || hw.tile_cycles.empty()) return;
  // One cell per tile, upscaled so a 1080p frame of 16x16 tiles stays near full size.
  const uint32_t scale = std::max(1u, std::min(hw.tile_width, 64u));
  const uint32_t cols = hw.grid_cols, rows = hw.grid_rows;
  grids.push_back(grid_of(hw.tile_cycles, cols, rows, scale, label + ": busy cycles per tile", "cycles"));
  stems.push_back(hw_stem + "_heat_cycles");
  grids.push_back(grid_of(hw.tile_dram_bytes, cols, rows, scale, label + ": DRAM bytes per tile, physical", "B"));
  stems.push_back(hw_stem + "_heat_dram_bytes");
  grids.push_back(grid_of(hw.tile_dram_nominal_bytes, cols, rows, scale, label + ": DRAM bytes per tile, nominal", "B"));
  stems.push_back(hw_stem + "_heat_dram_nominal_bytes");
}

// Per 16x16 block of each stored image: AFBC ratio (physical / raw) and TE kills.
void add_attachment_maps(const AttachmentStats& a, const std::string& att_stem, const std::string& label,
                         std::vector<HeatmapGrid>& grids, std::vector<std::string>& stems) {
  if (a.block_ratio.empty()) return;
  if (a.compressed) {
    std::vector<double> ratio(a.block_ratio.begin(), a.block_ratio.end());
    for (double& r : ratio) r = r < 0 ? 0.0 : r;  // blocks not stored show as 0
    grids.push_back(grid_of(ratio, a.block_cols, a.block_rows, 4, label + ": AFBC ratio per 16x16 block", "of raw",
                            "16x16 block"));
    stems.push_back(att_stem + "_heat_afbc_ratio");
  }
  if (a.te_checked) {
    grids.push_back(grid_of(a.block_kills, a.block_cols, a.block_rows, 4, label + ": TE kills per 16x16 block", "kills",
                            "16x16 block"));
    stems.push_back(att_stem + "_heat_te_kills");
  }
}

}  // namespace

std::vector<NamedHeatmap> run_heatmaps(const RunStats& stats) {
  std::vector<NamedHeatmap> maps;
  for (uint32_t f = 0; f < stats.frames.size(); ++f)
    for (size_t p = 0; p < stats.frames[f].passes.size(); ++p) {
      const PassStats& pass = stats.frames[f].passes[p];
      const std::string base = stem(f, p, pass.name);
      const std::string label = "frame " + std::to_string(f) + " pass " + std::to_string(p) + " " + pass.name;
      std::vector<HeatmapGrid> grids;
      std::vector<std::string> stems;
      for (size_t h = 0; h < pass.hardware_passes.size(); ++h)
        add_hardware_pass_maps(pass.hardware_passes[h], base + "_hw" + std::to_string(h),
                               label + " hw" + std::to_string(h), grids, stems);
      for (const AttachmentStats& a : pass.attachments)
        add_attachment_maps(a, base + "_att" + std::to_string(a.attachment),
                            label + " attachment " + std::to_string(a.attachment), grids, stems);
      if (!pass.overdraw.empty()) {
        grids.push_back(grid_of(pass.overdraw, pass.overdraw_width, pass.overdraw_height, 1,
                                label + ": fragments rasterized per pixel", "fragments", "pixel"));
        stems.push_back(base + "_heat_overdraw");
      }
      for (size_t i = 0; i < grids.size(); ++i) maps.push_back(NamedHeatmap{stems[i], f, p, std::move(grids[i])});
    }
  return maps;
}

void write_heatmaps(const RunStats& stats, OutputFolder& output, const std::filesystem::path& dir) {
  for (const NamedHeatmap& map : run_heatmaps(stats)) {
    const std::vector<uint8_t> png = encode_png(heatmap_png(map.grid));
    output.add_file(dir / (map.stem + ".png"), std::string(png.begin(), png.end()));
    output.add_file(dir / (map.stem + ".csv"), heatmap_csv(map.grid));
  }
}

std::string grouped_digits(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::array<uint8_t, 3> viridis(double t) {
  const double position = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * 255.0;
  const int index = std::min(254, int(position));
  // Anchor k sits at table entry 8k, the last at 255.
  const int k = std::min(31, index / 8);
  const double first = 8.0 * k, last = k == 31 ? 255.0 : 8.0 * (k + 1);
  const double f = (position - first) / (last - first);
  std::array<uint8_t, 3> rgb;
  for (int c = 0; c < 3; ++c)
    rgb[c] = uint8_t(std::lround(kViridisAnchors[k][c] * (1 - f) + kViridisAnchors[k + 1][c] * f));
  return rgb;
}

Png heatmap_png(const HeatmapGrid& grid) {
  const uint32_t map_width = grid.width * grid.scale, map_height = grid.height * grid.scale;
  Png png;
  png.channels = 3;
  png.width = std::max({map_width, kMinWidth, text_width(grid.title) + 16});
  png.height = kTitleBand + map_height + kLegendBand;
  png.pixels.assign(size_t(png.width) * png.height * 3, kBackground);
  draw_text(png, grid.title, 8, 4);
  double lo = 0, hi = 0;
  if (!grid.values.empty()) {
    lo = *std::min_element(grid.values.begin(), grid.values.end());
    hi = *std::max_element(grid.values.begin(), grid.values.end());
  }
  const double span = hi > lo ? hi - lo : 1.0;
  for (uint32_t y = 0; y < map_height; ++y)
    for (uint32_t x = 0; x < map_width; ++x)
      put_rgb(png, x, kTitleBand + y, viridis((grid.values[size_t(y / grid.scale) * grid.width + x / grid.scale] - lo) / span));
  draw_legend(png, lo, hi, grid.unit, kTitleBand + map_height);
  return png;
}

std::string heatmap_csv(const HeatmapGrid& grid) {
  std::string out;
  char buf[64];
  for (uint32_t y = 0; y < grid.height; ++y) {
    for (uint32_t x = 0; x < grid.width; ++x) {
      const double v = grid.values[size_t(y) * grid.width + x];
      const std::to_chars_result r = v == std::floor(v) && std::fabs(v) < 1e15
                                         ? std::to_chars(buf, buf + sizeof buf, int64_t(v))
                                         : std::to_chars(buf, buf + sizeof buf, v);
      if (x) out += ',';
      out.append(buf, r.ptr);
    }
    out += '\n';
  }
  return out;
}

}  // namespace tbdr
