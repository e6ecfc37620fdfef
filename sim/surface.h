// The simulated contents of images in DRAM: one Surface per (image, mip, layer), with every
// sample. Tile buffers load from and store to these; the IMR path draws into copies of them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/frame.h"
#include "sim/huge_pages.h"

namespace tbdr {

// Pixels of one mip level / layer: index (y * width + x) * samples + sample.
// Color formats fill `color` (already quantized to the format); depth/stencil formats fill
// `depth` and/or `stencil`.
struct Surface {
  Format format = Format::RGBA8;
  uint32_t width = 0, height = 0, samples = 1;
  // Unset when grown (UninitializedHugePageAllocator): the constructor and reshape() zero what
  // they add themselves, and ImageStore zeroes its surfaces on the run's threads.
  std::vector<Vec4, UninitializedHugePageAllocator<Vec4>> color;
  std::vector<float, UninitializedHugePageAllocator<float>> depth;
  std::vector<uint8_t> stencil;

  Surface() = default;
  // Every sample zero (memory that was never written reads as zero: a fixed choice so every path agrees).
  Surface(Format f, uint32_t w, uint32_t h, uint32_t s);
  // The same size and aspects with color and depth unset, for a caller that zeroes them (ImageStore).
  static Surface unset(Format f, uint32_t w, uint32_t h, uint32_t s);
  // Gives this surface the constructor's format, size and aspects while keeping its storage (a
  // tile buffer reused from tile to tile): the samples' values are left unspecified, for a
  // caller that writes every one of them (grown elements are zero, as they always were).
  void reshape(Format f, uint32_t w, uint32_t h, uint32_t s);
  size_t index(uint32_t x, uint32_t y, uint32_t sample) const {
    return (size_t(y) * width + x) * samples + sample;
  }
  bool has_color() const { return !color.empty(); }
  bool has_depth() const { return !depth.empty(); }
  bool has_stencil() const { return !stencil.empty(); }
  // The average of a pixel's samples (what an inline resolve or a PNG of a multisampled image shows).
  Vec4 resolved_color(uint32_t x, uint32_t y) const;
};

uint32_t mip_extent(uint32_t base, uint32_t mip);

// Writes `contents` (pixels of the surface's size) into every sample of `s`, quantized to its format.
void write_contents(Surface& s, const ImageContents& contents);

// Every image's surfaces, created from the trace's ImageDesc (initial contents applied).
class ImageStore {
 public:
  // Zeroing the surfaces (tens of MB for a 1080p frame's Vec4 colors) runs on `threads` threads.
  // With `trace` (whose images `images` are), a surface whose zeros no pass can see is left as
  // allocated (surface.cpp zeros_visible: the first pass to use it writes it whole, or none reads it).
  explicit ImageStore(const std::vector<ImageDesc>& images, uint32_t threads = 1, const Trace* trace = nullptr);
  ImageStore(const Trace& trace, uint32_t threads);
  Surface& surface(int32_t image, uint32_t mip, uint32_t layer);
  const Surface& surface(int32_t image, uint32_t mip, uint32_t layer) const;

 private:
  struct ImageSurfaces {
    uint32_t layers = 1;
    std::vector<Surface> levels;  // mip * layers + layer
  };
  std::vector<ImageSurfaces> m_images;
};

}  // namespace tbdr
