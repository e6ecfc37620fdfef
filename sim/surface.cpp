// Surface allocation, initial contents and resolved reads.
#include "sim/surface.h"

#include <algorithm>

namespace tbdr {

Surface::Surface(Format f, uint32_t w, uint32_t h, uint32_t s) : format(f), width(w), height(h), samples(s) {
  const size_t n = size_t(w) * h * s;
  const FormatInfo& info = format_info(f);
  // Memory that was never written reads as zero: a fixed choice so every path agrees.
  if (info.channels > 0) color.assign(n, Vec4::Zero());
  if (info.has_depth) depth.assign(n, 0.0f);
  if (info.has_stencil) stencil.assign(n, 0);
}

void Surface::reshape(Format f, uint32_t w, uint32_t h, uint32_t s) {
  format = f;
  width = w;
  height = h;
  samples = s;
  const size_t n = size_t(w) * h * s;
  const FormatInfo& info = format_info(f);
  color.resize(info.channels > 0 ? n : 0);
  depth.resize(info.has_depth ? n : 0);
  stencil.resize(info.has_stencil ? n : 0);
}

Vec4 Surface::resolved_color(uint32_t x, uint32_t y) const {
  Vec4 sum = Vec4::Zero();
  for (uint32_t s = 0; s < samples; ++s) sum += color[index(x, y, s)];
  return quantize_color(format, sum / float(samples));
}

uint32_t mip_extent(uint32_t base, uint32_t mip) { return std::max(1u, base >> mip); }

ImageStore::ImageStore(const std::vector<ImageDesc>& images) {
  m_images.reserve(images.size());
  for (const ImageDesc& desc : images) {
    ImageSurfaces surfaces;
    surfaces.layers = desc.array_layers;
    for (uint32_t mip = 0; mip < desc.mip_levels; ++mip)
      for (uint32_t layer = 0; layer < desc.array_layers; ++layer)
        surfaces.levels.emplace_back(desc.format, mip_extent(desc.width, mip), mip_extent(desc.height, mip),
                                     desc.samples);
    for (const ImageContents& contents : desc.contents)
      write_contents(surfaces.levels[contents.mip * desc.array_layers + contents.layer], contents);
    m_images.push_back(std::move(surfaces));
  }
}

void write_contents(Surface& s, const ImageContents& contents) {
  for (uint32_t y = 0; y < s.height; ++y)
    for (uint32_t x = 0; x < s.width; ++x) {
      const Vec4& p = contents.pixels[size_t(y) * s.width + x];
      for (uint32_t sample = 0; sample < s.samples; ++sample) {
        const size_t i = s.index(x, y, sample);
        if (s.has_color()) s.color[i] = quantize_color(s.format, p);
        if (s.has_depth()) s.depth[i] = quantize_depth(s.format, p[0]);
        if (s.has_stencil()) s.stencil[i] = uint8_t(std::clamp(p[1], 0.0f, 255.0f));
      }
    }
}

Surface& ImageStore::surface(int32_t image, uint32_t mip, uint32_t layer) {
  ImageSurfaces& s = m_images.at(size_t(image));
  return s.levels.at(size_t(mip) * s.layers + layer);
}

const Surface& ImageStore::surface(int32_t image, uint32_t mip, uint32_t layer) const {
  const ImageSurfaces& s = m_images.at(size_t(image));
  return s.levels.at(size_t(mip) * s.layers + layer);
}

}  // namespace tbdr
