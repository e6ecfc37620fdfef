// Copies, blits, resolves and built-in compute programs over whole images in DRAM.
#include "sim/pass/transfer.h"

#include <algorithm>
#include <cmath>

#include "models/errors.h"
#include "sim/format.h"
#include "sim/pass/setup.h"

namespace tbdr {
namespace {

Rect whole(const Surface& s) { return Rect{0, 0, s.width, s.height}; }

// Sample 0 of a texel, clamped to the surface; depth/stencil read as (depth, stencil, 0, 1).
Vec4 texel(const Surface& s, int32_t x, int32_t y) {
  x = std::clamp<int32_t>(x, 0, int32_t(s.width) - 1);
  y = std::clamp<int32_t>(y, 0, int32_t(s.height) - 1);
  const size_t i = s.index(uint32_t(x), uint32_t(y), 0);
  if (s.has_color()) return s.color[i];
  return Vec4(s.has_depth() ? s.depth[i] : 0.0f, s.has_stencil() ? float(s.stencil[i]) : 0.0f, 0, 1);
}

void write_texel(Surface& s, uint32_t x, uint32_t y, uint32_t sample, const Vec4& v) {
  const size_t i = s.index(x, y, sample);
  if (s.has_color()) s.color[i] = quantize_color(s.format, v);
  if (s.has_depth()) s.depth[i] = quantize_depth(s.format, v[0]);
  if (s.has_stencil()) s.stencil[i] = uint8_t(std::clamp(v[1], 0.0f, 255.0f));
}

uint64_t image_bytes(const ImageDesc& image, uint64_t texel_count) {
  return image.transient ? 0 : texel_count * format_info(image.format).bytes_per_pixel * image.samples;
}

// vkCmdCopyImage: every sample both images have, converted to the destination's format.
void copy_pixels(const Surface& src, const Rect& sr, Surface& dst, const Rect& dr) {
  const uint32_t samples = std::min(src.samples, dst.samples);
  for (uint32_t y = 0; y < std::min(sr.height, dr.height); ++y)
    for (uint32_t x = 0; x < std::min(sr.width, dr.width); ++x)
      for (uint32_t s = 0; s < samples; ++s) {
        const size_t si = src.index(uint32_t(sr.x) + x, uint32_t(sr.y) + y, s);
        const size_t di = dst.index(uint32_t(dr.x) + x, uint32_t(dr.y) + y, s);
        if (src.has_color() && dst.has_color()) dst.color[di] = quantize_color(dst.format, src.color[si]);
        if (src.has_depth() && dst.has_depth()) dst.depth[di] = quantize_depth(dst.format, src.depth[si]);
        if (src.has_stencil() && dst.has_stencil()) dst.stencil[di] = src.stencil[si];
      }
}

// vkCmdResolveImage: the average of a color pixel's samples (sample 0 of depth/stencil).
void resolve_pixels(const Surface& src, const Rect& sr, Surface& dst, const Rect& dr) {
  for (uint32_t y = 0; y < std::min(sr.height, dr.height); ++y)
    for (uint32_t x = 0; x < std::min(sr.width, dr.width); ++x)
      write_texel(dst, uint32_t(dr.x) + x, uint32_t(dr.y) + y, 0,
                  src.has_color() ? src.resolved_color(uint32_t(sr.x) + x, uint32_t(sr.y) + y)
                                  : texel(src, sr.x + int32_t(x), sr.y + int32_t(y)));
}

// vkCmdBlitImage: each destination pixel samples the source region at its centre (Vulkan
// "Image Copies with Scaling"), nearest or linear; returns the unique source texels touched.
uint64_t blit_pixels(const Surface& src, const Rect& sr, Surface& dst, const Rect& dr, Filter filter) {
  std::vector<uint8_t> touched(size_t(src.width) * src.height, 0);
  auto fetch = [&](int32_t x, int32_t y) {
    x = std::clamp<int32_t>(x, sr.x, sr.x + int32_t(sr.width) - 1);
    y = std::clamp<int32_t>(y, sr.y, sr.y + int32_t(sr.height) - 1);
    touched[size_t(y) * src.width + size_t(x)] = 1;
    return texel(src, x, y);
  };
  for (uint32_t y = 0; y < dr.height; ++y)
    for (uint32_t x = 0; x < dr.width; ++x) {
      const float u = sr.x + (x + 0.5f) * float(sr.width) / float(dr.width);
      const float v = sr.y + (y + 0.5f) * float(sr.height) / float(dr.height);
      Vec4 value;
      if (filter == Filter::nearest) {
        value = fetch(int32_t(std::floor(u)), int32_t(std::floor(v)));
      } else {
        const float su = u - 0.5f, sv = v - 0.5f;
        const int32_t i0 = int32_t(std::floor(su)), j0 = int32_t(std::floor(sv));
        const float a = su - float(i0), b = sv - float(j0);
        value = (fetch(i0, j0) * (1 - a) + fetch(i0 + 1, j0) * a) * (1 - b) +
                (fetch(i0, j0 + 1) * (1 - a) + fetch(i0 + 1, j0 + 1) * a) * b;
      }
      for (uint32_t s = 0; s < dst.samples; ++s) write_texel(dst, uint32_t(dr.x) + x, uint32_t(dr.y) + y, s, value);
    }
  uint64_t unique = 0;
  for (uint8_t t : touched) unique += t;
  return unique;
}

// The downsample program: a 2x2 box filter into an image of half the size (rounded down, at
// least 1). Returns the texels the filter reads (traces/README.md `compute`): output (x, y) reads
// (2x + dx, 2y + dy), dx, dy in {0, 1}, from the region's origin, clamped to the image, so an odd
// region never reads its last column or row (3x3 -> 1x1 reads 2x2 texels).
uint64_t downsample(const Surface& in, const Rect& ir, Surface& out) {
  for (uint32_t y = 0; y < out.height; ++y)
    for (uint32_t x = 0; x < out.width; ++x) {
      Vec4 sum = Vec4::Zero();
      for (int32_t dy = 0; dy < 2; ++dy)
        for (int32_t dx = 0; dx < 2; ++dx) sum += texel(in, ir.x + int32_t(2 * x) + dx, ir.y + int32_t(2 * y) + dy);
      write_texel(out, x, y, 0, sum * 0.25f);
    }
  // The distinct columns read run from the origin to origin + 2 w - 1, clamped to the image; rows likewise.
  const uint64_t columns = std::min<uint64_t>(2 * uint64_t(out.width), uint64_t(in.width) - uint64_t(ir.x));
  const uint64_t rows = std::min<uint64_t>(2 * uint64_t(out.height), uint64_t(in.height) - uint64_t(ir.y));
  return columns * rows;
}

// The histogram program: a luminance histogram (Rec. 709 weights) of one texel per step block,
// normalized counts; returns the texels it read.
uint64_t histogram(const Surface& in, const Rect& ir, const ImageRef& in_ref, Surface& out) {
  uint64_t texels_read = 0;
  std::vector<double> bins(out.width, 0.0);
  for (uint32_t y = 0; y < ir.height; y += in_ref.step_y)
    for (uint32_t x = 0; x < ir.width; x += in_ref.step_x) {
      const Vec4 c = texel(in, ir.x + int32_t(x), ir.y + int32_t(y));
      const float luma = std::clamp(0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2], 0.0f, 1.0f);
      bins[std::min<size_t>(size_t(luma * float(out.width - 1)), out.width - 1)] += 1.0;
      ++texels_read;
    }
  for (uint32_t x = 0; x < out.width; ++x)
    for (uint32_t y = 0; y < out.height; ++y)
      write_texel(out, x, y, 0, Vec4(float(bins[x] / double(std::max<uint64_t>(texels_read, 1))), 0, 0, 1));
  return texels_read;
}

}  // namespace

Rect run_transfer(const Trace& trace, ImageStore& store, const Pass& pass, PassStats& stats) {
  const ImageRef& src_ref = pass.reads.at(0);
  const ImageRef& dst_ref = pass.writes.at(0);
  const Surface& src = store.surface(src_ref.image, src_ref.mip, src_ref.layer);
  Surface& dst = store.surface(dst_ref.image, dst_ref.mip, dst_ref.layer);
  const ImageDesc& src_image = trace.images[size_t(src_ref.image)];
  const ImageDesc& dst_image = trace.images[size_t(dst_ref.image)];
  const Rect sr = src_ref.region.value_or(whole(src)), dr = dst_ref.region.value_or(whole(dst));
  const DramCategory read_cat = pass.type == PassType::resolve ? DramCategory::resolve : DramCategory::image_sample;
  const DramCategory write_cat = pass.type == PassType::resolve ? DramCategory::resolve : DramCategory::attachment_store;
  if (pass.type == PassType::blit) {
    const uint64_t unique = blit_pixels(src, sr, dst, dr, pass.blit_filter);
    stats.dram[read_cat].read_bytes += image_bytes(src_image, unique) / src_image.samples;
    stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(dr));
    return dr;
  }
  if (pass.type == PassType::copy) copy_pixels(src, sr, dst, dr);
  else resolve_pixels(src, sr, dst, dr);
  stats.dram[read_cat].read_bytes += image_bytes(src_image, pixels(sr));
  stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(sr));
  return dr;
}

namespace {

// A captured dispatch: writes the captured levels; every read and write region counts once
// (traces/README.md `compute`, the captured program's footprint).
Rect run_captured_compute(const Trace& trace, ImageStore& store, const Pass& pass, PassStats& stats) {
  auto region_bytes = [&](const ImageRef& ref) {
    const Surface& s = store.surface(ref.image, ref.mip, ref.layer);
    return image_bytes(trace.images[size_t(ref.image)], pixels(ref.region.value_or(whole(s))));
  };
  for (const ImageRef& r : pass.reads) stats.dram[DramCategory::image_sample].read_bytes += region_bytes(r);
  for (const ImageRef& w : pass.writes) {
    if (w.contents) write_contents(store.surface(w.image, w.mip, w.layer), *w.contents);
    stats.dram[DramCategory::attachment_store].write_bytes += region_bytes(w);
  }
  if (pass.writes.empty()) return Rect{};
  const ImageRef& w = pass.writes[0];
  return w.region.value_or(whole(store.surface(w.image, w.mip, w.layer)));
}

}  // namespace

Traffic buffer_traffic(const Trace& trace, const std::set<int32_t>& read, const std::set<int32_t>& written) {
  auto bytes = [&](const std::set<int32_t>& buffers) {
    uint64_t sum = 0;
    for (const int32_t b : buffers) sum += trace.buffers[size_t(b)].tile_memory ? 0 : trace.buffers[size_t(b)].size;
    return sum;
  };
  Traffic t;
  t.read_bytes = bytes(read);
  t.write_bytes = bytes(written);
  return t;
}

Rect run_compute(const Trace& trace, ImageStore& store, const Pass& pass, const std::string& where, PassStats& stats) {
  // The buffers the dispatch binds (traces/README.md `compute`): each counted once per pass.
  stats.dram[DramCategory::buffer] +=
      buffer_traffic(trace, {pass.buffer_reads.begin(), pass.buffer_reads.end()},
                     {pass.buffer_writes.begin(), pass.buffer_writes.end()});
  const std::string& program = pass.program.name;
  if (program == "captured_compute") return run_captured_compute(trace, store, pass, stats);
  if (pass.reads.empty() || pass.writes.empty())
    throw InputError(where, "compute program " + program + " needs one read and one write image");
  const ImageRef& in_ref = pass.reads[0];
  const ImageRef& out_ref = pass.writes[0];
  const Surface& in = store.surface(in_ref.image, in_ref.mip, in_ref.layer);
  Surface& out = store.surface(out_ref.image, out_ref.mip, out_ref.layer);
  const Rect ir = in_ref.region.value_or(whole(in));
  uint64_t texels_read = 0;
  if (program == "downsample") texels_read = downsample(in, ir, out);
  else if (program == "histogram") texels_read = histogram(in, ir, in_ref, out);
  else throw InputError(where + "/program/name", "unknown compute program " + program);
  const ImageDesc& in_image = trace.images[size_t(in_ref.image)];
  const ImageDesc& out_image = trace.images[size_t(out_ref.image)];
  stats.dram[DramCategory::image_sample].read_bytes += image_bytes(in_image, texels_read) / in_image.samples;
  stats.dram[DramCategory::attachment_store].write_bytes += image_bytes(out_image, uint64_t(out.width) * out.height);
  return whole(out);
}

}  // namespace tbdr
