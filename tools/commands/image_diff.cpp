// Pixel comparison of two PNGs (tbdrsim diff, tests/refrender_test.cpp).
#include "tools/commands/image_diff.h"

#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "models/errors.h"
#include "models/input_file.h"
#include "tools/commands/output.h"

namespace tbdr {

namespace {

// A regular file of bounded size (a FIFO would block stb_image), whose header's sides are checked
// before decoding: any image `run` writes (sides up to 16384, traces/README.md "Limits") can be compared,
// a 1 MB PNG declaring 30000 x 8000 pixels cannot allocate 960 MB.
std::vector<uint8_t> load_rgba(const std::filesystem::path& file, uint32_t* w, uint32_t* h) {
  const std::vector<uint8_t> bytes = read_input_bytes(file, InputLimits::kImageFileBytes);
  const auto* encoded = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int length = int(bytes.size());
  int width = 0, height = 0, channels = 0;
  if (stbi_info_from_memory(encoded, length, &width, &height, &channels) &&
      (uint32_t(width) > InputLimits::kImageSide || uint32_t(height) > InputLimits::kImageSide))
    throw InputError(file.string(), "image of " + std::to_string(width) + " x " + std::to_string(height) +
                                        " pixels; each side must be at most " + std::to_string(InputLimits::kImageSide));
  stbi_uc* data = stbi_load_from_memory(encoded, length, &width, &height, &channels, 4);
  if (!data) throw InputError(file.string(), std::string("cannot read image: ") + stbi_failure_reason());
  std::vector<uint8_t> pixels(data, data + size_t(width) * size_t(height) * 4);
  stbi_image_free(data);
  *w = uint32_t(width);
  *h = uint32_t(height);
  return pixels;
}

}  // namespace

ImageDiff diff_pixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, uint32_t width, uint32_t height,
                      int tolerance) {
  ImageDiff d;
  d.width = width;
  d.height = height;
  d.pixels = uint64_t(width) * height;
  d.heat.assign(size_t(d.pixels) * 4, 0);
  uint64_t squared = 0;
  for (size_t i = 0; i < d.pixels; ++i) {
    int worst = 0;
    for (int k = 0; k < 4; ++k) {
      const int diff = std::abs(int(a[i * 4 + size_t(k)]) - int(b[i * 4 + size_t(k)]));
      worst = std::max(worst, diff);
      squared += uint64_t(diff * diff);
    }
    d.max_abs_diff = std::max(d.max_abs_diff, worst);
    if (worst <= tolerance) ++d.identical;
    // Heat: within tolerance black; beyond it blue (small) through red to yellow (255).
    uint8_t* h = &d.heat[i * 4];
    h[3] = 255;
    if (worst > tolerance) {
      const float t = std::sqrt(float(worst) / 255.0f);
      h[0] = uint8_t(std::clamp(t * 2.0f, 0.0f, 1.0f) * 255);
      h[1] = uint8_t(std::clamp(t * 2.0f - 1.0f, 0.0f, 1.0f) * 255);
      h[2] = uint8_t(std::clamp(1.0f - t * 2.0f, 0.0f, 1.0f) * 255);
    }
  }
  d.mse = d.pixels ? double(squared) / double(d.pixels * 4) : 0.0;
  d.psnr = d.mse > 0 ? 10.0 * std::log10(255.0 * 255.0 / d.mse) : INFINITY;
  return d;
}

ImageDiff diff_images(const std::filesystem::path& a, const std::filesystem::path& b, int tolerance) {
  uint32_t wa = 0, ha = 0, wb = 0, hb = 0;
  const std::vector<uint8_t> pa = load_rgba(a, &wa, &ha);
  const std::vector<uint8_t> pb = load_rgba(b, &wb, &hb);
  if (wa != wb || ha != hb)
    throw InputError(b.string(), "size " + std::to_string(wb) + "x" + std::to_string(hb) + " differs from " +
                                     a.filename().string() + "'s " + std::to_string(wa) + "x" + std::to_string(ha));
  return diff_pixels(pa, pb, wa, ha, tolerance);
}

std::string describe(const ImageDiff& d, int tolerance) {
  char line[240];
  char psnr[32];
  if (std::isinf(d.psnr)) std::snprintf(psnr, sizeof psnr, "inf");
  else std::snprintf(psnr, sizeof psnr, "%.2f", d.psnr);
  std::snprintf(line, sizeof line, "identical %.3f%% (within %d LSB; %llu of %llu pixels differ), max diff %d, PSNR %s dB",
                100.0 * d.identical_fraction(), tolerance, (unsigned long long)(d.pixels - d.identical),
                (unsigned long long)d.pixels, d.max_abs_diff, psnr);
  return line;
}

void write_heat_png(const ImageDiff& d, const std::filesystem::path& file) {
  // Staged and renamed like a run's outputs (its folders created), so a failure leaves nothing.
  Png png;
  png.width = d.width;
  png.height = d.height;
  png.pixels = d.heat;
  const std::vector<uint8_t> bytes = encode_png(png);
  OutputFolder output(file.parent_path(), false);
  output.add_file(file, std::string(bytes.begin(), bytes.end()));
  output.commit();
}

nlohmann::ordered_json diff_json(const ImageDiff& d, int tolerance) {
  nlohmann::ordered_json out;
  out["width"] = d.width;
  out["height"] = d.height;
  out["pixels"] = d.pixels;
  out["identical"] = d.identical;
  out["tolerance"] = tolerance;
  out["identical_fraction"] = d.identical_fraction();
  out["mismatch_fraction"] = d.mismatch_fraction();
  out["max_abs_diff"] = d.max_abs_diff;
  out["mse"] = d.mse;
  out["psnr_db"] = std::isfinite(d.psnr) ? nlohmann::ordered_json(d.psnr) : nlohmann::ordered_json();
  return out;
}

}  // namespace tbdr
