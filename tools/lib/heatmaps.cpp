// Heatmap rendering: a blue -> green -> yellow -> red ramp, nearest upscaling of per-tile grids,
// and a legend strip with the minimum and maximum printed in a 3x5 pixel digit font.
#include "tools/lib/heatmaps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tbdr {
namespace {

// Piecewise-linear ramp through blue, cyan, green, yellow, red: ordered by hue so larger values
// read as warmer.
void ramp(double t, uint8_t* rgb) {
  static const double stops[5][3] = {{0, 0, 160}, {0, 170, 220}, {40, 190, 60}, {240, 220, 0}, {220, 30, 30}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int i = std::min(3, int(t));
  const double f = t - i;
  for (int c = 0; c < 3; ++c) rgb[c] = uint8_t(std::lround(stops[i][c] * (1 - f) + stops[i + 1][c] * f));
}

// 3x5 digit glyphs (bit 2 = left column), for legend numbers: digits, '.', 'e', '+', '-'.
const char* glyph(char c) {
  switch (c) {
    case '0': return "\x07\x05\x05\x05\x07";
    case '1': return "\x02\x06\x02\x02\x07";
    case '2': return "\x07\x01\x07\x04\x07";
    case '3': return "\x07\x01\x07\x01\x07";
    case '4': return "\x05\x05\x07\x01\x01";
    case '5': return "\x07\x04\x07\x01\x07";
    case '6': return "\x07\x04\x07\x05\x07";
    case '7': return "\x07\x01\x01\x01\x01";
    case '8': return "\x07\x05\x07\x05\x07";
    case '9': return "\x07\x05\x07\x01\x07";
    case '.': return "\x00\x00\x00\x00\x02";
    case 'e': return "\x00\x07\x07\x04\x07";
    case '+': return "\x00\x02\x07\x02\x00";
    case '-': return "\x00\x00\x07\x00\x00";
    default: return "\x00\x00\x00\x00\x00";
  }
}

void draw_text(Png& png, const std::string& text, uint32_t x0, uint32_t y0, uint32_t size) {
  for (size_t k = 0; k < text.size(); ++k) {
    const char* g = glyph(text[k]);
    for (uint32_t row = 0; row < 5; ++row)
      for (uint32_t col = 0; col < 3; ++col) {
        if (!((g[row] >> (2 - col)) & 1)) continue;
        for (uint32_t dy = 0; dy < size; ++dy)
          for (uint32_t dx = 0; dx < size; ++dx) {
            const uint32_t x = x0 + uint32_t(k) * 4 * size + col * size + dx, y = y0 + row * size + dy;
            if (x >= png.width || y >= png.height) continue;
            uint8_t* p = &png.pixels[(size_t(y) * png.width + x) * 3];
            p[0] = p[1] = p[2] = 255;
          }
      }
  }
}

std::string number(double v) {
  char buf[32];
  // Ratios (small values) keep two decimals; counts and cycles print whole.
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1e6 ? "%.3g" : std::fabs(v) < 10 ? "%.2f" : "%.0f", v);
  return buf;
}

std::string stem(uint32_t frame, size_t pass, const std::string& name) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "f%u_p%02zu_", frame, pass);
  std::string s = prefix;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return s;
}

void add_png(OutputFolder& output, const std::filesystem::path& path, const Png& png) {
  const std::vector<uint8_t> bytes = encode_png(png);
  output.add_file(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace

Png heatmap_png(const std::vector<double>& values, uint32_t width, uint32_t height, uint32_t scale) {
  const uint32_t legend = 40;
  Png png;
  png.channels = 3;
  png.width = std::max(width * scale, 160u);
  png.height = height * scale + legend;
  png.pixels.assign(size_t(png.width) * png.height * 3, 0);
  double lo = 0, hi = 0;
  if (!values.empty()) {
    lo = *std::min_element(values.begin(), values.end());
    hi = *std::max_element(values.begin(), values.end());
  }
  const double span = hi > lo ? hi - lo : 1.0;
  for (uint32_t y = 0; y < height * scale; ++y)
    for (uint32_t x = 0; x < width * scale; ++x)
      ramp((values[size_t(y / scale) * width + x / scale] - lo) / span, &png.pixels[(size_t(y) * png.width + x) * 3]);
  // Legend: the ramp across the width, then the minimum at the left and the maximum at the right.
  for (uint32_t y = height * scale + 4; y < height * scale + 16; ++y)
    for (uint32_t x = 0; x < png.width; ++x) ramp(double(x) / std::max(1u, png.width - 1), &png.pixels[(size_t(y) * png.width + x) * 3]);
  const std::string lo_text = number(lo), hi_text = number(hi);
  draw_text(png, lo_text, 2, height * scale + 20, 3);
  const uint32_t hi_width = uint32_t(hi_text.size()) * 12;
  draw_text(png, hi_text, png.width > hi_width + 2 ? png.width - hi_width - 2 : 0, height * scale + 20, 3);
  return png;
}

void write_heatmaps(const RunStats& stats, OutputFolder& output, const std::filesystem::path& dir) {
  for (uint32_t f = 0; f < stats.frames.size(); ++f) {
    const FrameStats& frame = stats.frames[f];
    for (size_t p = 0; p < frame.passes.size(); ++p) {
      const PassStats& pass = frame.passes[p];
      const std::string base = stem(f, p, pass.name);
      for (size_t h = 0; h < pass.hardware_passes.size(); ++h) {
        const HardwarePassStats& hw = pass.hardware_passes[h];
        if (hw.tile_cycles.size() != size_t(hw.grid_cols) * hw.grid_rows || hw.tile_cycles.empty()) continue;
        // One map pixel per tile, upscaled so a 1080p frame of 16x16 tiles stays near full size.
        const uint32_t scale = std::max(1u, std::min(hw.tile_width, 64u));
        std::vector<double> bytes(hw.tile_dram_bytes.begin(), hw.tile_dram_bytes.end());
        const std::string hw_stem = base + "_hw" + std::to_string(h);
        add_png(output, dir / (hw_stem + "_heat_cycles.png"), heatmap_png(hw.tile_cycles, hw.grid_cols, hw.grid_rows, scale));
        add_png(output, dir / (hw_stem + "_heat_dram_bytes.png"), heatmap_png(bytes, hw.grid_cols, hw.grid_rows, scale));
      }
      // Per 16x16 block of each stored image: AFBC ratio (physical / raw) and TE kills.
      for (const AttachmentStats& a : pass.attachments) {
        if (a.block_ratio.empty()) continue;
        const std::string att = base + "_att" + std::to_string(a.attachment);
        if (a.compressed) {
          std::vector<double> ratio(a.block_ratio.begin(), a.block_ratio.end());
          for (double& r : ratio) r = r < 0 ? 0.0 : r;  // blocks not stored show as 0
          add_png(output, dir / (att + "_heat_afbc_ratio.png"), heatmap_png(ratio, a.block_cols, a.block_rows, 4));
        }
        if (a.te_checked) {
          std::vector<double> kills(a.block_kills.begin(), a.block_kills.end());
          add_png(output, dir / (att + "_heat_te_kills.png"), heatmap_png(kills, a.block_cols, a.block_rows, 4));
        }
      }
      if (!pass.overdraw.empty()) {
        std::vector<double> overdraw(pass.overdraw.begin(), pass.overdraw.end());
        add_png(output, dir / (base + "_heat_overdraw.png"),
                heatmap_png(overdraw, pass.overdraw_width, pass.overdraw_height, 1));
      }
    }
  }
}

}  // namespace tbdr
