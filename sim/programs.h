// Built-in fragment and compute programs: their parameter tables (for the trace reader's
// validation) and their evaluation per fragment (for sim/tile.cpp and the IMR path).
#pragma once

#include <cstdint>
#include <string>
#include <deque>
#include <vector>

#include "sim/frame.h"

namespace tbdr {

struct ProgramParamInfo {
  const char* name;
  uint32_t size;                // number of floats
  std::vector<float> defaults;  // `size` values
};

struct ProgramInfo {
  const char* name;
  bool compute;                              // a compute program (compute passes) or a fragment program
  std::vector<ProgramParamInfo> params;
  std::vector<const char*> bindings;         // binding slots the program requires
  std::vector<const char*> optional_bindings = {};  // binding slots it may take
  uint32_t input_attachments = 0;            // subpass input attachments it reads (subpassLoad)
};

// nullptr when no built-in program has that name.
const ProgramInfo* find_program(const std::string& name);
std::vector<std::string> program_names(bool compute);

}  // namespace tbdr

namespace tbdr {

class ImageStore;
struct Surface;

// Unique texels (or compressed blocks) touched in one pass, per texture and per sampled image
// level: the "footprint" of domain.md section 7. Bitsets, merged with OR, so the order of
// fragments (tiles, threads) never changes the count.
class Footprints {
 public:
  void reset(const Trace& trace);
  std::vector<uint64_t>* texture_bits(int32_t texture) { return &m_textures.at(size_t(texture)); }
  std::vector<uint64_t>* image_bits(int32_t image, uint32_t mip, uint32_t layer, size_t texels);
  // Bytes: unique texels (blocks) x bytes per texel (block).
  uint64_t texture_bytes(const Trace& trace) const;
  uint64_t image_bytes(const Trace& trace) const;

 private:
  struct ImageLevel { int32_t image; uint32_t mip, layer; std::vector<uint64_t> bits; };
  std::vector<std::vector<uint64_t>> m_textures;
  std::deque<ImageLevel> m_images;  // deque: handed-out bit pointers stay valid
};

// A draw's program resolved once per pass: parameters and bindings looked up, so shading a
// fragment does no name lookups.
struct CompiledProgram {
  enum class Kind { flat, vertex_color, textured } kind = Kind::flat;
  Vec4 color = Vec4::Ones();  // flat color, or tint
  float alpha_cutoff = 0.5f;
  bool discard = false;
  // textured
  const Texture* texture = nullptr;
  const Surface* image = nullptr;
  uint32_t texel_width = 0, texel_height = 0;
  uint32_t block_width = 1, block_height = 1;
  Filter filter = Filter::nearest;
  AddressMode address = AddressMode::repeat;
  std::vector<uint64_t>* footprint = nullptr;
};

CompiledProgram compile_program(const Trace& trace, const Draw& draw, const ImageStore& images, Footprints& footprints);

// Evaluates the fragment program with perspective-corrected varyings (color rgba, uv).
// Returns false when the fragment is discarded.
bool shade_fragment(const CompiledProgram& program, const float* varyings, Vec4& color);

}  // namespace tbdr
