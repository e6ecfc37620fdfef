// Surface allocation, initial contents and resolved reads.
#include "sim/surface.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "sim/format.h"
#include "sim/parallel.h"

namespace tbdr {

Surface::Surface(Format f, uint32_t w, uint32_t h, uint32_t s) : Surface(unset(f, w, h, s)) {
  std::fill(color.begin(), color.end(), Vec4::Zero());
  std::fill(depth.begin(), depth.end(), 0.0f);
}

Surface Surface::unset(Format f, uint32_t w, uint32_t h, uint32_t s) {
  Surface out;
  out.format = f;
  out.width = w;
  out.height = h;
  out.samples = s;
  const size_t n = size_t(w) * h * s;
  const FormatInfo& info = format_info(f);
  if (info.channels > 0) out.color.resize(n);
  if (info.has_depth) out.depth.resize(n);
  if (info.has_stencil) out.stencil.assign(n, 0);
  return out;
}

void Surface::reshape(Format f, uint32_t w, uint32_t h, uint32_t s) {
  format = f;
  width = w;
  height = h;
  samples = s;
  const size_t n = size_t(w) * h * s;
  const FormatInfo& info = format_info(f);
  const size_t old_color = color.size(), old_depth = depth.size();
  color.resize(info.channels > 0 ? n : 0);
  depth.resize(info.has_depth ? n : 0);
  stencil.resize(info.has_stencil ? n : 0);
  if (color.size() > old_color) std::fill(color.begin() + ptrdiff_t(old_color), color.end(), Vec4::Zero());
  if (depth.size() > old_depth) std::fill(depth.begin() + ptrdiff_t(old_depth), depth.end(), 0.0f);
}

Vec4 Surface::resolved_color(uint32_t x, uint32_t y) const {
  Vec4 sum = Vec4::Zero();
  for (uint32_t s = 0; s < samples; ++s) sum += color[index(x, y, s)];
  return quantize_color(format, sum / float(samples));
}

uint32_t mip_extent(uint32_t base, uint32_t mip) { return std::max(1u, base >> mip); }

namespace {

// Zeroes `bytes` from `begin` (16-byte aligned, a multiple of 4 bytes) with non-temporal stores where
// it can (SSE2 MOVNTPS): a surface is zeroed whole before the tiles write it, so nothing reads these
// lines from the caches, and an ordinary store first reads each line in.
void zero_streaming(char* begin, size_t bytes) {
#if defined(__SSE2__)
  if (reinterpret_cast<uintptr_t>(begin) % 16 == 0) {
    const size_t vectors = bytes / 16;
    float* const out = reinterpret_cast<float*>(begin);
    const __m128 zero = _mm_setzero_ps();
    size_t i = 0;
    // A 64-byte line a step: a vector a step took 4 instructions each 16 bytes (callgrind).
    for (; i + 4 <= vectors; i += 4) {
      _mm_stream_ps(out + 4 * i, zero);
      _mm_stream_ps(out + 4 * i + 4, zero);
      _mm_stream_ps(out + 4 * i + 8, zero);
      _mm_stream_ps(out + 4 * i + 12, zero);
    }
    for (; i < vectors; ++i) _mm_stream_ps(out + 4 * i, zero);
    std::memset(begin + vectors * 16, 0, bytes - vectors * 16);
    return;
  }
#endif
  std::memset(begin, 0, bytes);
}

// Zeroes every surface's color and depth in chunks of 256 KiB taken by `threads` threads (each
// chunk's pages are touched first by the thread that zeroes them). A surface on a region mapped anew
// already reads as zeros: its chunks are only mapped (populate_fresh_pages), not written. Left
// untouched instead, a surface nobody writes (a DONT_CARE depth) came back in the next run as a kept
// region whose zeroing then took its page faults (bench/README.md, "First run: the host's faults").
void zero_surfaces(std::vector<Surface*>& surfaces, uint32_t threads) {
  constexpr size_t kChunkBytes = size_t(1) << 18;
  struct Chunk { char* begin; size_t bytes; bool fresh; };
  std::vector<Chunk> chunks;
  auto add = [&](void* data, size_t bytes) {
    const bool fresh = huge_pages_fresh(data, bytes);
    for (size_t at = 0; at < bytes; at += kChunkBytes)
      chunks.push_back({static_cast<char*>(data) + at, std::min(kChunkBytes, bytes - at), fresh});
  };
  for (Surface* s : surfaces) {
    add(s->color.data(), s->color.size() * sizeof(Vec4));
    add(s->depth.data(), s->depth.size() * sizeof(float));
  }
  std::atomic<size_t> next{0};
  const uint32_t blocks = uint32_t(std::max<size_t>(1, std::min<size_t>(threads, chunks.size() / 4)));
  // All-zero bytes are Vec4::Zero() and 0.0f (IEEE 754).
  for_blocks(blocks, [&](uint32_t) {
    for (size_t c = next++; c < chunks.size(); c = next++) {
      if (chunks[c].fresh) populate_fresh_pages(chunks[c].begin, chunks[c].bytes);
      else zero_streaming(chunks[c].begin, chunks[c].bytes);
    }
  });
#if defined(__SSE2__)
  _mm_sfence();  // the streaming stores drained before the tiles read or write these surfaces
#endif
}

// What a pass does first to the surface (image, mip, layer) of `width` x `height`: reads it
// (conservatively: any use the rules below do not prove harmless), writes every sample of its color
// or depth aspect before anything reads it, or neither.
enum class FirstUse { none, read, written };

bool binds_image(const Program& program, int32_t image) {
  for (const Binding& b : program.bindings)
    if (b.is_image && b.resource_index == image) return true;
  return false;
}

// A render pass writes a surface whole when it is one attachment that no aspect loads (the tile
// buffer's load then reads nothing of it: tile_buffer.cpp load_by_op; empty-tile elimination, which
// leaves an image as it was, needs LOAD), that a subpass references (else no load or store runs) and
// whose color or depth aspect is stored over a render area covering it: every tile's store writes
// its rect's samples (store_by_op). A stencil aspect is not in question: ImageStore zeroes it always.
// Sampling the image in the same pass, a second attachment of it, or a store of only its stencil
// (the savers and the image output read the surface) count as reads.
FirstUse render_pass_use(const Pass& pass, const ImageDesc& desc, int32_t image, uint32_t mip, uint32_t layer,
                         uint32_t width, uint32_t height) {
  for (const Subpass& sp : pass.subpasses)
    for (const Draw& draw : sp.draws)
      if (binds_image(draw.program, image)) return FirstUse::read;
  int32_t found = kUnused;
  for (size_t i = 0; i < pass.attachments.size(); ++i) {
    const Attachment& a = pass.attachments[i];
    if (a.image != image || a.mip != mip || a.layer != layer) continue;
    if (found != kUnused) return FirstUse::read;
    found = int32_t(i);
  }
  if (found == kUnused) return FirstUse::none;
  const Attachment& a = pass.attachments[size_t(found)];
  const FormatInfo& info = format_info(desc.format);
  const bool main = info.channels > 0 || info.has_depth;
  if ((main && a.load == LoadOp::load) || (info.has_stencil && a.stencil_load == LoadOp::load)) return FirstUse::read;
  bool referenced = false;
  for (const Subpass& sp : pass.subpasses)
    for (const std::vector<int32_t>* list : {&sp.color, &sp.input, &sp.resolve})
      referenced = referenced || std::find(list->begin(), list->end(), found) != list->end() ||
                   sp.depth == found || sp.depth_resolve == found;
  const Rect area = pass.render_area.value_or(Rect{0, 0, width, height});
  const bool covers = area.x == 0 && area.y == 0 && area.width == width && area.height == height;
  if (main && referenced && covers && a.store == StoreOp::store) return FirstUse::written;
  const bool stores = (main && a.store == StoreOp::store) || (info.has_stencil && a.stencil_store == StoreOp::store);
  return stores ? FirstUse::read : FirstUse::none;
}

FirstUse pass_use(const Pass& pass, const ImageDesc& desc, int32_t image, uint32_t mip, uint32_t layer,
                  uint32_t width, uint32_t height) {
  if (pass.type == PassType::barrier) return FirstUse::none;  // layouts and signatures only
  if (pass.type == PassType::render) return render_pass_use(pass, desc, image, mip, layer, width, height);
  // Copies, blits, resolves and compute: any reference of the image, written or read, counts as a read.
  for (const std::vector<ImageRef>* refs : {&pass.reads, &pass.writes})
    for (const ImageRef& r : *refs)
      if (r.image == image) return FirstUse::read;
  return binds_image(pass.program, image) ? FirstUse::read : FirstUse::none;
}

// Whether the surface's zeros can be seen: false when its initial contents cover it, or when the
// first pass (in frame order) that does something to it writes it whole, or when no pass reads it.
bool zeros_visible(const Trace& trace, int32_t image, uint32_t mip, uint32_t layer) {
  const ImageDesc& desc = trace.images[size_t(image)];
  const uint32_t width = mip_extent(desc.width, mip), height = mip_extent(desc.height, mip);
  for (const ImageContents& c : desc.contents)
    if (c.mip == mip && c.layer == layer && c.pixels.size() == size_t(width) * height) return false;
  for (const Frame& frame : trace.frames)
    for (const Pass& pass : frame.passes) {
      const FirstUse use = pass_use(pass, desc, image, mip, layer, width, height);
      if (use != FirstUse::none) return use == FirstUse::read;
    }
  return false;
}

}  // namespace

ImageStore::ImageStore(const Trace& trace, uint32_t threads) : ImageStore(trace.images, threads, &trace) {}

ImageStore::ImageStore(const std::vector<ImageDesc>& images, uint32_t threads, const Trace* trace) {
  m_images.reserve(images.size());
  for (const ImageDesc& desc : images) {
    ImageSurfaces surfaces;
    surfaces.layers = desc.array_layers;
    for (uint32_t mip = 0; mip < desc.mip_levels; ++mip)
      for (uint32_t layer = 0; layer < desc.array_layers; ++layer)
        surfaces.levels.push_back(Surface::unset(desc.format, mip_extent(desc.width, mip),
                                                 mip_extent(desc.height, mip), desc.samples));
    m_images.push_back(std::move(surfaces));
  }
  std::vector<Surface*> zeroed;
  for (size_t i = 0; i < m_images.size(); ++i)
    for (size_t level = 0; level < m_images[i].levels.size(); ++level) {
      const uint32_t mip = uint32_t(level / images[i].array_layers), layer = uint32_t(level % images[i].array_layers);
      if (!trace || zeros_visible(*trace, int32_t(i), mip, layer)) zeroed.push_back(&m_images[i].levels[level]);
    }
  zero_surfaces(zeroed, threads);
  for (size_t i = 0; i < images.size(); ++i)
    for (const ImageContents& contents : images[i].contents)
      write_contents(m_images[i].levels[contents.mip * images[i].array_layers + contents.layer], contents);
}

void write_contents(Surface& s, const ImageContents& contents) {
  // A single-sample color image in one call, its pixels in the contents' order (quantize_colors:
  // RGBA8 four channels at once; a quantize_color call a pixel, a libm nearbyint a channel, was a
  // captured frame's largest cost).
  if (s.samples == 1 && s.has_color() && !s.has_depth() && !s.has_stencil()) {
    quantize_colors(s.format, contents.pixels.data(), s.color.data(), size_t(s.width) * s.height);
    return;
  }
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
