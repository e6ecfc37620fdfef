// Image comparison for `tbdrsim diff` and the reference-renderer tests: two PNGs of the same size,
// the fraction of identical pixels (every channel within a tolerance), max difference, PSNR, and a
// heat image of the differences.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tbdr {

struct ImageDiff {
  uint32_t width = 0, height = 0;
  uint64_t pixels = 0, identical = 0;  // identical: every channel (RGBA) within the tolerance
  int max_abs_diff = 0;                // over every channel, 0..255
  double mse = 0;                      // mean squared error over every channel, in 8-bit units
  double psnr = 0;                     // 10 log10(255^2 / mse) dB; infinity when the images are equal
  double identical_fraction() const { return pixels ? double(identical) / double(pixels) : 1.0; }
  double mismatch_fraction() const { return 1.0 - identical_fraction(); }
  std::vector<uint8_t> heat;           // RGBA8 heat image: black = equal, blue -> red -> yellow with the difference
};

// Decodes both images as 8-bit RGBA (grey expands to RGB, alpha 255). Throws InputError when a
// file cannot be read or the sizes differ.
ImageDiff diff_images(const std::filesystem::path& a, const std::filesystem::path& b, int tolerance = 1);
ImageDiff diff_pixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, uint32_t width, uint32_t height,
                      int tolerance = 1);

// "identical 99.873% (within 1 LSB), max diff 37, PSNR 48.12 dB"
std::string describe(const ImageDiff& d, int tolerance);

// `tbdrsim diff --json`'s figures: size, pixels, identical, identical_fraction, mismatch_fraction,
// max_abs_diff, mse, psnr_db (null when the images are equal: infinite) and the tolerance.
nlohmann::ordered_json diff_json(const ImageDiff& d, int tolerance);

// Writes the heat image as PNG (throws std::runtime_error on failure).
void write_heat_png(const ImageDiff& d, const std::filesystem::path& file);

}  // namespace tbdr
