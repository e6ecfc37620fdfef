// The memory estimate of a simulation (tools/doc/cli.md "Memory budget"): each term from the rule of the
// structs that hold it, so a configuration over the budget is refused before it is allocated.
#include "sim/memory_estimate.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "models/errors.h"
#include "models/work.h"
#include "sim/format.h"
#include "sim/geometry.h"
#include "sim/programs.h"
#include "sim/surface.h"

namespace tbdr {
namespace {

constexpr uint64_t kSaturated = ~uint64_t(0);

uint64_t add(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? kSaturated : sum;
}
uint64_t mul(uint64_t a, uint64_t b) {
  uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? kSaturated : product;
}

// Host bytes per sample of a Surface (sim/surface.h): color as four floats, depth one float,
// stencil one byte.
uint64_t surface_sample_bytes(Format format) {
  const FormatInfo& info = format_info(format);
  if (!info.has_depth && !info.has_stencil) return sizeof(Vec4);
  return (info.has_depth ? sizeof(float) : 0) + (info.has_stencil ? 1 : 0);
}

uint64_t image_bytes(const ImageDesc& image) {
  uint64_t bytes = 0;
  for (uint32_t mip = 0; mip < image.mip_levels; ++mip) {
    const uint64_t pixels = mul(mip_extent(image.width, mip), mip_extent(image.height, mip));
    bytes = add(bytes, mul(mul(pixels, uint64_t(image.samples) * image.array_layers), surface_sample_bytes(image.format)));
  }
  return bytes;
}

// Every image's surfaces (sim/surface.h ImageStore): width x height x samples x layers x host bytes
// per sample, over every mip level.
MemoryTerm images_term(const Trace& trace) {
  MemoryTerm term{"images", "", 0};
  uint64_t largest = 0;
  for (const ImageDesc& image : trace.images) {
    const uint64_t bytes = image_bytes(image);
    term.bytes = add(term.bytes, bytes);
    if (bytes < largest && !term.cause.empty()) continue;
    largest = bytes;
    term.cause = "image " + image.name + " " + std::to_string(image.width) + "x" + std::to_string(image.height) + " x " +
                 std::to_string(image.samples) + " samples x " + std::to_string(image.array_layers) + " layers x " +
                 std::to_string(surface_sample_bytes(image.format)) + " B per sample";
  }
  if (trace.images.size() > 1) term.cause += " and " + std::to_string(trace.images.size() - 1) + " more";
  return term;
}

template <class T>
uint64_t vector_bytes(const std::vector<T>& v) {
  return mul(v.size(), sizeof(T));
}

// What the reader already holds: decoded texture levels, meshes and image contents.
MemoryTerm trace_data_term(const Trace& trace) {
  MemoryTerm term{"trace data", "decoded textures, meshes and image contents of " + trace.path, 0};
  for (const Texture& t : trace.textures) {
    term.bytes = add(term.bytes, vector_bytes(t.texels));
    for (const TextureLevel& level : t.mips) term.bytes = add(term.bytes, vector_bytes(level.texels));
  }
  for (const Mesh& m : trace.meshes)
    for (uint64_t b : {vector_bytes(m.positions), vector_bytes(m.colors), vector_bytes(m.uvs), vector_bytes(m.normals),
                       vector_bytes(m.indices)})
      term.bytes = add(term.bytes, b);
  for (const ImageDesc& image : trace.images)
    for (const ImageContents& c : image.contents) term.bytes = add(term.bytes, vector_bytes(c.pixels));
  return term;
}

// Vertices a draw sends down the pipeline: its index (or vertex) count x instances.
uint64_t draw_vertices(const Trace& trace, const Draw& draw) {
  uint64_t count = draw.index_count;
  if (count == 0 && draw.mesh >= 0 && size_t(draw.mesh) < trace.meshes.size()) {
    const Mesh& mesh = trace.meshes[size_t(draw.mesh)];
    const uint64_t all = mesh.indices.empty() ? mesh.positions.size() : mesh.indices.size();
    count = all > draw.first_index ? all - draw.first_index : 0;
  }
  return mul(count, draw.instance_count);
}

// The screen geometry of the largest render pass (sim/geometry.h ScreenPrims): per vertex its
// ScreenVertex and nine varyings, per primitive 33 B of record and one 4 B tile-list entry, with
// as many primitives as vertices (strips and fans; a list has a third). An upper bound for every
// param_buffer model: a fixed capacity bounds the modeled buffer, not the pass's screen vertices.
MemoryTerm geometry_term(const Trace& trace) {
  constexpr uint64_t kPerVertex = sizeof(ScreenVertex) + kVaryingCount * sizeof(float);
  constexpr uint64_t kPerPrimitive = 3 * 4 + 4 + 1 + 16 + 4;
  MemoryTerm term{"screen geometry", "", 0};
  for (const Frame& frame : trace.frames)
    for (const Pass& pass : frame.passes) {
      uint64_t vertices = 0;
      for (const Subpass& subpass : pass.subpasses)
        for (const Draw& draw : subpass.draws) vertices = add(vertices, draw_vertices(trace, draw));
      const uint64_t bytes = mul(vertices, kPerVertex + kPerPrimitive);
      if (bytes <= term.bytes) continue;
      term.bytes = bytes;
      term.cause = "pass " + pass.name + ": " + std::to_string(vertices) + " vertices x " +
                   std::to_string(kPerVertex + kPerPrimitive) + " B";
    }
  return term;
}

// A parameter the configuration resolved (models::ModelSet::resolved), or `fallback` when the
// chosen implementation does not read it.
uint64_t resolved_parameter(const nlohmann::json& resolved, const char* kind, const char* param, uint64_t fallback) {
  const nlohmann::json& params = resolved.value(kind, nlohmann::json::object()).value("params", nlohmann::json::object());
  const auto it = params.find(param);
  return it != params.end() && it->is_number() ? it->get<uint64_t>() : fallback;
}

// Tile buffer bytes per pixel of the render pass holding the most: its attachments' samples x host bytes.
uint64_t largest_tile_pixel_bytes(const Trace& trace) {
  uint64_t largest = 0;
  for (const Frame& frame : trace.frames)
    for (const Pass& pass : frame.passes) {
      uint64_t bytes = 0;
      for (const Attachment& a : pass.attachments)
        if (a.image >= 0 && size_t(a.image) < trace.images.size()) {
          const ImageDesc& image = trace.images[size_t(a.image)];
          bytes = add(bytes, mul(image.samples, surface_sample_bytes(image.format)));
        }
      largest = std::max(largest, bytes);
    }
  return largest;
}

// The largest tile, the most tiles a pass can have, and a bound on their pixels together (a grid
// of equal tiles overhangs the image by less than one tile per side): one tile of the largest image
// on the immediate-mode path; the fixed tiling's size; else (bins sized per pass: gmem_bins) the
// model's largest bin, and any count.
struct TileBound {
  uint64_t pixels = 0, count = 0, area = 0;
};
TileBound tile_bound(const Trace& trace, const nlohmann::json& resolved, const SimOptions& options) {
  uint64_t width = 1, height = 1;
  for (const ImageDesc& image : trace.images) {
    width = std::max<uint64_t>(width, image.width);
    height = std::max<uint64_t>(height, image.height);
  }
  if (options.path == RenderPath::imr) return {width * height, 1, width * height};
  const uint64_t w = resolved_parameter(resolved, "tiling", "width", 0);
  const uint64_t h = resolved_parameter(resolved, "tiling", "height", 0);
  if (w && h) {
    const uint64_t pixels = std::min(w, width) * std::min(h, height);
    const uint64_t count = ((width + w - 1) / w) * ((height + h - 1) / h);
    return {pixels, count, count * pixels};
  }
  const uint64_t max_w = std::min(width, resolved_parameter(resolved, "tiling", "max_width", width));
  const uint64_t max_h = std::min(height, resolved_parameter(resolved, "tiling", "max_height", height));
  return {max_w * max_h, kSaturated, (width + max_w) * (height + max_h)};
}

// Per worker (sim/pass/tiles.cpp TileWorker; a pass runs min(threads, tiles) of them): its tile
// buffer (its tile x the largest pass's bytes per pixel; all of them together at most the tiles'
// pixels) and its texture footprint bitsets (one bit per texel or block of every texture level).
MemoryTerm worker_term(const Trace& trace, const nlohmann::json& resolved, const SimOptions& options) {
  const TileBound tiles = tile_bound(trace, resolved, options);
  uint64_t footprint = 0;
  for (const Texture& t : trace.textures)
    for (uint32_t level = 0; level < t.level_count(); ++level) {
      const models::TextureLevelShape shape = texture_level_shape(t, level);
      footprint = add(footprint, (uint64_t(shape.elements_x) * shape.elements_y + 63) / 64 * 8);
    }
  const uint64_t workers = std::min<uint64_t>(std::max<uint32_t>(1, options.threads), tiles.count);
  const uint64_t tile_pixels = std::min(mul(workers, tiles.pixels), tiles.area);
  return {"worker threads",
          std::to_string(workers) + " workers (--threads, at most one per tile): " + std::to_string(tile_pixels) +
              " tile pixels x " + std::to_string(largest_tile_pixel_bytes(trace)) + " B and " + format_bytes(footprint) +
              " of texture footprints each",
          add(mul(tile_pixels, largest_tile_pixel_bytes(trace)), mul(workers, footprint))};
}

// texture=cache (models/texture/texture_impls.cpp): each cache keeps one 8 B tag per line; the
// shared L2's and one L1 per core of cores.count.
std::vector<MemoryTerm> texture_cache_terms(const nlohmann::json& resolved) {
  if (resolved.value("texture", nlohmann::json::object()).value("impl", "") != "cache") return {};
  const uint64_t line = std::max<uint64_t>(1, resolved_parameter(resolved, "texture", "line_bytes", 64));
  const uint64_t l2 = resolved_parameter(resolved, "texture", "l2_bytes", 0);
  const uint64_t l1 = resolved_parameter(resolved, "texture", "size_bytes", 0);
  const uint64_t cores = std::max<uint64_t>(1, resolved_parameter(resolved, "cores", "count", 1));
  const std::string per_line = " / texture.line_bytes " + std::to_string(line) + " x 8 B per line";
  return {{"texture L2 tags", "texture.l2_bytes " + std::to_string(l2) + per_line, l2 / line * 8},
          {"texture L1 tags",
           "texture.size_bytes " + std::to_string(l1) + per_line + " x cores.count " + std::to_string(cores),
           mul(l1 / line * 8, cores)}};
}

// write_elim on (sim/savers.h SaverState): each image keeps one 8 B signature per 16x16 block for every
// swapchain image it rotates (one set for other images), filled on its first stored pass.
std::vector<MemoryTerm> signature_terms(const Trace& trace, const nlohmann::json& resolved) {
  if (resolved.value("write_elim", nlohmann::json::object()).value("impl", "none") == "none") return {};
  MemoryTerm term{"TE signatures", "", 0};
  uint64_t largest = 0;
  for (const ImageDesc& image : trace.images) {
    const uint64_t blocks = mul((image.width + models::kSuperblockSize - 1) / models::kSuperblockSize,
                                (image.height + models::kSuperblockSize - 1) / models::kSuperblockSize);
    const uint64_t sets = std::max(1u, image.swapchain), bytes = mul(mul(sets, blocks), 8);
    term.bytes = add(term.bytes, bytes);
    if (bytes < largest && !term.cause.empty()) continue;
    largest = bytes;
    term.cause = "image " + image.name + " " + std::to_string(sets) + " swapchain images x " + std::to_string(blocks) +
                 " blocks of 16x16 x 8 B";
  }
  return {term};
}

}  // namespace

uint64_t MemoryEstimate::total() const {
  uint64_t sum = 0;
  for (const MemoryTerm& term : terms) sum = add(sum, term.bytes);
  return sum;
}

const MemoryTerm& MemoryEstimate::largest() const {
  return *std::max_element(terms.begin(), terms.end(),
                           [](const MemoryTerm& a, const MemoryTerm& b) { return a.bytes < b.bytes; });
}

nlohmann::json memory_estimate_inputs(const nlohmann::json& resolved) {
  // What tile_bound, texture_cache_terms and signature_terms read, kind by kind.
  static const std::pair<const char*, std::vector<const char*>> kRead[] = {
      {"tiling", {"width", "height", "max_width", "max_height"}},
      {"texture", {"line_bytes", "l2_bytes", "size_bytes"}},
      {"cores", {"count"}},
      {"write_elim", {}}};
  nlohmann::json inputs = nlohmann::json::object();
  for (const auto& [kind, params] : kRead) {
    const auto entry = resolved.find(kind);
    if (entry == resolved.end() || !entry->is_object()) continue;
    nlohmann::json& kept = inputs[kind] = nlohmann::json::object();
    if (const auto impl = entry->find("impl"); impl != entry->end()) kept["impl"] = *impl;
    const auto given = entry->find("params");
    if (given == entry->end() || !given->is_object()) continue;
    for (const char* param : params)
      if (const auto it = given->find(param); it != given->end()) kept["params"][param] = *it;
  }
  return inputs;
}

MemoryEstimate estimate_memory(const Trace& trace, const nlohmann::json& resolved, const SimOptions& options) {
  MemoryEstimate estimate;
  estimate.terms = {images_term(trace), trace_data_term(trace), geometry_term(trace),
                    worker_term(trace, resolved, options)};
  for (MemoryTerm& term : texture_cache_terms(resolved)) estimate.terms.push_back(std::move(term));
  for (MemoryTerm& term : signature_terms(trace, resolved)) estimate.terms.push_back(std::move(term));
  return estimate;
}

void check_memory_budget(const MemoryEstimate& estimate, uint64_t budget, const std::string& where) {
  if (estimate.total() <= budget) return;
  const MemoryTerm& largest = estimate.largest();
  throw InputError(where, "the configuration needs about " + format_bytes(estimate.total()) + ", most of it " +
                              largest.what + " " + format_bytes(largest.bytes) + " (" + largest.cause +
                              "), over the memory budget " + format_bytes(budget) +
                              " (tools/doc/cli.md \"Memory budget\"); raise it with --max-memory");
}

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = double(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace tbdr
