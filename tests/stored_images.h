// Test support: an ImageSink that keeps a copy of every image a run stores, and an exact pixel
// comparison, shared by the tests that check a change moves bytes and never pixels.
#pragma once

#include <map>
#include <string>

#include "sim/pipeline.h"
#include "sim/surface.h"

namespace tbdr {

// Every stored image of a run, keyed "f<frame>/<pass>/<slot>/<image>", copied out of the callback.
struct StoredImages : ImageSink {
  std::map<std::string, Surface> images;
  void stored(const StoredImage& image) override {
    images["f" + std::to_string(image.frame) + "/" + image.pass_name + "/" + image.slot + "/" + image.image_name] =
        *image.surface;
  }
};

// Same format, size, samples and every channel of every sample, bit for bit.
inline bool same_pixels(const Surface& a, const Surface& b) {
  return a.format == b.format && a.width == b.width && a.height == b.height && a.samples == b.samples &&
         a.color == b.color && a.depth == b.depth && a.stencil == b.stencil;
}

}  // namespace tbdr
