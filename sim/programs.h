// Built-in fragment and compute programs: their parameter tables (for the trace reader's
// validation) and their evaluation per fragment (for sim/tile.cpp and the IMR path).
#pragma once

#include <cstdint>
#include <string>
#include <deque>
#include <vector>

#include "models/texture/texture.h"
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
// level: the "footprint" of models/README.md "Sources: the DRAM ledger". Bitsets, merged with OR, so the order of
// fragments (tiles, threads) never changes the count.
class Footprints {
 public:
  void reset(const Trace& trace);
  // ORs another worker's footprints into this one (the union is order-independent).
  void merge(const Footprints& other);
  // Per level of the texture: one bit per texel (block) of that level.
  std::vector<std::vector<uint64_t>>* texture_bits(int32_t texture) { return &m_textures.at(size_t(texture)); }
  std::vector<uint64_t>* image_bits(int32_t image, uint32_t mip, uint32_t layer, size_t texels);
  // Bytes: unique texels (blocks) x bytes per texel (block).
  uint64_t texture_bytes(const Trace& trace) const;
  uint64_t image_bytes(const Trace& trace) const;

  struct ImageLevel { int32_t image; uint32_t mip, layer; std::vector<uint64_t> bits; };
  const std::deque<ImageLevel>& image_levels() const { return m_images; }

 private:
  std::vector<std::vector<std::vector<uint64_t>>> m_textures;  // [texture][level]
  std::deque<ImageLevel> m_images;  // deque: handed-out bit pointers stay valid
};

// One worker's material-texture fetches, for the texture model: every texel fetch is counted, and
// under a cache model (models/texture) the line address of each fetch is appended to the current
// tile's stream, a fetch of the same line as the one before it counted as a repeat instead (it
// hits in any cache). Textures lie one after another in one address space, each starting on a
// 4 KiB boundary (a page; a guess at the driver's allocation), in `layout`, their levels one after
// another from level 0.
struct TextureRecorder {
  bool record_lines = false;
  uint32_t line_shift = 6;  // log2(line bytes)
  models::TextureLayout layout = models::TextureLayout::tiled;
  std::vector<std::vector<uint64_t>> base;  // [texture][level]: byte address of the level
  // [texture][level]: the level's shape and line blocks (programs.cpp set_line_blocks), worked out
  // once here: a mipmapped texture's sample above level 0 worked them out at every fetch.
  struct LevelLines {
    models::TextureLevelShape shape;
    uint8_t line_block_x = 0, line_block_y = 0;
  };
  std::vector<std::vector<LevelLines>> levels;
  uint64_t fetches = 0;        // texel fetches (block formats: one per texel, not per block)
  uint64_t repeats = 0;        // fetches of the line the previous fetch read
  std::vector<uint64_t> lines; // the current tile's line addresses
  uint64_t last_line = ~uint64_t(0);

  void configure(const Trace& trace, const models::TextureCacheConfig& config);
  void begin_tile() {
    lines.clear();
    last_line = ~uint64_t(0);
  }
};

// A texture level as the address rule sees it.
models::TextureLevelShape texture_level_shape(const Texture& texture, uint32_t level = 0);

// Builds texture.mips (mip: generate), levels 1 .. down to 1x1, level L+1 = max(1, floor(size_L / 2))
// per axis, from 8-bit codes (the RGBA8 a texture holds): code = (the 2x2 block's four codes + 2) / 4
// in integers, block texels beyond the level's last row/column clamped to it. tools/refrender
// uploads the same levels, computed by its own copy of this rule.
void generate_mip_chain(Texture& texture);

// One sampled resource of a program: a material texture or an image level.
struct SamplerBinding {
  const Texture* texture = nullptr;
  const Surface* image = nullptr;
  uint32_t texel_width = 0, texel_height = 0;
  uint32_t block_width = 1, block_height = 1;
  Filter filter = Filter::nearest;
  AddressMode address = AddressMode::repeat;
  std::vector<uint64_t>* footprint = nullptr;
  // Material textures: the level sampled (set per fetch for mipmapped ones), its texels, the
  // worker's fetch recorder, the level's byte address, and every level's footprint and address.
  const Vec4* texels = nullptr;
  TextureRecorder* recorder = nullptr;
  uint64_t base = 0;
  models::TextureLevelShape shape;
  std::vector<std::vector<uint64_t>>* level_footprints = nullptr;
  const std::vector<uint64_t>* level_bases = nullptr;
  const std::vector<TextureRecorder::LevelLines>* level_lines = nullptr;  // with level_bases
  // With lines recorded: log2 of the aligned blocks of elements that share a line (programs.cpp
  // set_line_blocks), 0 and 0 where each element is taken on its own.
  uint8_t line_block_x = 0, line_block_y = 0;
  bool at_uv = false;  // `captured`: sampled at the uv varying, not at the pixel (Binding::at_uv)
  bool bound() const { return texture || image; }
};

struct PointLight {
  Eigen::Vector3f position = Eigen::Vector3f::Zero(), color = Eigen::Vector3f::Zero();
  float radius = 0;  // 0: off
};

constexpr uint32_t kMaxProgramSamplers = 3;
constexpr uint32_t kMaxInputAttachments = 4;

// A draw's program resolved once per pass: parameters and bindings looked up, so shading a
// fragment does no name lookups. samplers[] follow the program's binding slots in table order
// (required slots first, then optional ones).
struct CompiledProgram {
  enum class Kind { flat, vertex_color, lit, textured, gbuffer, deferred_light, deferred_light_sampled, downsample_2x2,
                    upsample_add, tonemap, copy, mix, composite, captured };
  Kind kind = Kind::flat;
  Vec4 color = Vec4::Ones();  // flat color, or tint
  float alpha_cutoff = 0.5f;
  bool discard = false;
  SamplerBinding samplers[kMaxProgramSamplers];
  float scalar[2] = {1, 0};   // intensity / exposure, bloom_strength / weight
  Mat4 inv_view_proj = Mat4::Identity();
  PointLight lights[4];
  Eigen::Vector3f ambient = Eigen::Vector3f::Zero();
  Eigen::Vector3f light_direction = Eigen::Vector3f(0, 0, 1), light_color = Eigen::Vector3f::Zero();  // lit: toward the light
  uint32_t framebuffer_width = 1, framebuffer_height = 1;
  uint32_t input_attachments = 0;  // how many subpass inputs the program reads
  bool uv_derivatives = false;     // a bound texture is mipmapped: the rasterizer supplies uv derivatives
};

// The built-in program kind of a program name (flat for an unknown name, which trace validation
// rejects before any program runs).
CompiledProgram::Kind program_kind(const std::string& name);
// Varyings per vertex a program reads, from the front of (color rgba, uv, world normal xyz): the
// G-buffer and lit programs all 9, textured and captured ones color and uv (6; captured reads the
// uvs when a binding samples at them), vertex_color color (4), every other
// one none (it reads the pixel position, images and parameters).
int varyings_read(CompiledProgram::Kind kind);

// A `light_direction` parameter (x, y, z) made unit length, as the lit program uses it ((0, 0, 1) for a
// zero vector); tools/refrender normalizes it the same way.
Eigen::Vector3f unit_light_direction(const float* xyz);

// `framebuffer_*`: the pass's attachment size, for pixel-centre positions. `recorder` (may be
// null) receives the material-texture fetches.
CompiledProgram compile_program(const Trace& trace, const Draw& draw, const ImageStore& images, Footprints& footprints,
                                uint32_t framebuffer_width, uint32_t framebuffer_height,
                                TextureRecorder* recorder = nullptr);

// What the rasterizer hands a fragment program.
struct FragmentInput {
  const float* varyings = nullptr;  // kVaryingCount perspective-corrected values: color rgba, uv, normal
  int32_t x = 0, y = 0;             // framebuffer pixel
  Vec4 inputs[kMaxInputAttachments];  // subpass input attachments at this pixel (depth in .x)
  // uv derivatives of the fragment's 2x2 quad (CompiledProgram::uv_derivatives): uv at the quad's
  // top-right pixel centre minus its top-left, and bottom-left minus top-left.
  bool has_derivatives = false;
  float du_dx = 0, dv_dx = 0, du_dy = 0, dv_dy = 0;
};

// Evaluates the fragment program; writes one color per output slot (`slots` of them).
// Returns false when the fragment is discarded.
bool shade_fragment(const CompiledProgram& program, const FragmentInput& in, Vec4* outputs, uint32_t slots);

}  // namespace tbdr
