// The textured, vertex_color and captured programs' fragments in raster_simple's row groups (raster_detail,
// included by sim/raster*.cpp only): four textured or vertex_color ones interpolated together (the textured
// ones given their bilinear texels too); a captured one's same-pixel footprint reads without the texel
// values it never uses.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "sim/raster_setup.h"
#include "sim/texture_fetch.h"

namespace tbdr::raster_detail {

#if defined(__SSE2__)
// Four doubles, one a fragment of a row group: one AVX register where the build has AVX, two SSE2
// halves otherwise. Either way each lane takes the same IEEE operation, so the same values.
struct Doubles4 {
#if defined(__AVX__)
  __m256d v;
  static Doubles4 of(__m128d lo, __m128d hi) { return {_mm256_set_m128d(hi, lo)}; }
  static Doubles4 all(double d) { return {_mm256_set1_pd(d)}; }
  friend Doubles4 operator+(Doubles4 a, Doubles4 b) { return {_mm256_add_pd(a.v, b.v)}; }
  friend Doubles4 operator*(Doubles4 a, Doubles4 b) { return {_mm256_mul_pd(a.v, b.v)}; }
  friend Doubles4 operator/(Doubles4 a, Doubles4 b) { return {_mm256_div_pd(a.v, b.v)}; }
  __m128 to_floats() const { return _mm256_cvtpd_ps(v); }
#else
  __m128d lo, hi;
  static Doubles4 of(__m128d l, __m128d h) { return {l, h}; }
  static Doubles4 all(double d) { return {_mm_set1_pd(d), _mm_set1_pd(d)}; }
  friend Doubles4 operator+(Doubles4 a, Doubles4 b) { return {_mm_add_pd(a.lo, b.lo), _mm_add_pd(a.hi, b.hi)}; }
  friend Doubles4 operator*(Doubles4 a, Doubles4 b) { return {_mm_mul_pd(a.lo, b.lo), _mm_mul_pd(a.hi, b.hi)}; }
  friend Doubles4 operator/(Doubles4 a, Doubles4 b) { return {_mm_div_pd(a.lo, b.lo), _mm_div_pd(a.hi, b.hi)}; }
  __m128 to_floats() const { return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)); }
#endif
};

// std::floor of four floats (exact either way).
[[gnu::always_inline]] inline __m128 floor4(__m128 f) {
#if defined(__SSE4_1__)
  return _mm_floor_ps(f);
#else
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, f);
  for (float& lane : lanes) lane = std::floor(lane);
  return _mm_load_ps(lanes);
#endif
}

// ShadingSetup::interpolate for a row group's four fragments at barycentrics (l0, l1, l2) (lanes 0, 1 in
// `*_lo`, 2, 3 in `*_hi`): weights l * (1 / w), their sum from 0, and varyings 0 .. kCount - 1 of the
// vertices (`var[k][c]`: vertex k's varying c in every lane, vertex_varyings) each its weighted sum
// over the sum, rounded to float (`out[c]`: varying c, a lane a fragment).
template <int kCount>
[[gnu::always_inline]] inline void interpolate_lanes(const Doubles4 (&inv_w)[3], const Doubles4 (&var)[3][kCount], __m128d l0_lo,
                                                     __m128d l0_hi, __m128d l1_lo, __m128d l1_hi, __m128d l2_lo,
                                                     __m128d l2_hi, __m128 (&out)[kCount]) {
  const Doubles4 w0 = Doubles4::of(l0_lo, l0_hi) * inv_w[0], w1 = Doubles4::of(l1_lo, l1_hi) * inv_w[1],
                 w2 = Doubles4::of(l2_lo, l2_hi) * inv_w[2];
  const Doubles4 sum = ((Doubles4::all(0.0) + w0) + w1) + w2;
  for (int c = 0; c < kCount; ++c) {
    const Doubles4 weighted =
        ((w0 * var[0][c]) + (w1 * var[1][c])) + (w2 * var[2][c]);
    out[c] = (weighted / sum).to_floats();
  }
}

// A triangle's vertex varyings 0 .. kCount - 1 as doubles in every lane, once a triangle: a row
// group's interpolation converted and broadcast each of them again (18 a group for `textured`).
template <int kCount>
inline void vertex_varyings(const float* const (&var)[3], Doubles4 (&out)[3][kCount]) {
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < kCount; ++c) out[k][c] = Doubles4::all(double(var[k][c]));
}

// The `textured` program (shade_fragment: the bilinear sample of level 0 times the vertex color
// times the tint) over a row group: ShadingSetup::interpolate's varyings and sample_filtered's texel
// coordinates and weights for four fragments at once, the same operations per lane as those take
// per fragment (so the same floats), then each fragment's fetches recorded and filtered in order.
class TexturedGroups {
 public:
  // Whether `program` takes this path: textured, one bilinear level-0 material texture (no mipmaps,
  // so no derivatives).
  static bool applies(const CompiledProgram& program) {
    const SamplerBinding& s = program.samplers[0];
    return program.kind == CompiledProgram::Kind::textured && !program.uv_derivatives && !program.discard &&
           s.texture && !s.image && s.texels && s.filter == Filter::bilinear;
  }

  // Once a triangle, `setup` initialized.
  void init(const ShadingSetup& setup, const CompiledProgram& program) {
    const SamplerBinding& s = program.samplers[0];
    for (int k = 0; k < 3; ++k) m_inv_w[k] = Doubles4::all(double(setup.inv_w[k]));
    vertex_varyings(setup.var, m_var);
    m_texels = s.texels;
    m_width = s.texel_width;
    m_size_x = float(s.texel_width);
    m_size_y = float(s.texel_height);
    m_height = int32_t(s.texel_height);
    m_address = s.address;
    const int32_t w = int32_t(s.texel_width), h = int32_t(s.texel_height);
    m_repeat_masks = s.address == AddressMode::repeat && (w & (w - 1)) == 0 && (h & (h - 1)) == 0;
    m_mask_x = _mm_set1_epi32(w - 1);
    m_mask_y = _mm_set1_epi32(h - 1);
    m_tint = _mm_loadu_ps(program.color.data());
    m_record.emplace(s);
  }

  // The group's four fragments at barycentrics (l0, l1, l2) (lanes 0, 1 in `*_lo`, 2, 3 in `*_hi`).
  [[gnu::always_inline]] void prepare(__m128d l0_lo, __m128d l0_hi, __m128d l1_lo, __m128d l1_hi, __m128d l2_lo,
                                      __m128d l2_hi) {
    __m128 varying[6];
    interpolate_lanes(m_inv_w, m_var, l0_lo, l0_hi, l1_lo, l1_hi, l2_lo, l2_hi, varying);
    _MM_TRANSPOSE4_PS(varying[0], varying[1], varying[2], varying[3]);
    for (int j = 0; j < 4; ++j) _mm_store_ps(m_color[j], varying[j]);
    texel_coordinates(varying[4], m_size_x, int32_t(m_width), m_mask_x, m_x0, m_x1, m_a, m_not_a);
    texel_coordinates(varying[5], m_size_y, m_height, m_mask_y, m_y0, m_y1, m_b, m_not_b);
  }

  // Lane j's color (the fragment's fetches recorded): sample_filtered's bilinear filter, then the
  // products with the vertex color and the tint, as shade_fragment's textured case takes them.
  [[gnu::always_inline]] __m128 shade(int j) {
    const int32_t x0 = m_x0[j], x1 = m_x1[j], y0 = m_y0[j], y1 = m_y1[j];
    m_record->add_bilinear(x0, x1, y0, y1);
    const Vec4* row0 = m_texels + size_t(y0) * m_width;
    const Vec4* row1 = m_texels + size_t(y1) * m_width;
    const __m128 t00 = _mm_loadu_ps(row0[x0].data()), t10 = _mm_loadu_ps(row0[x1].data());
    const __m128 t01 = _mm_loadu_ps(row1[x0].data()), t11 = _mm_loadu_ps(row1[x1].data());
    const __m128 a = _mm_set1_ps(m_a[j]), b = _mm_set1_ps(m_b[j]);
    const __m128 not_a = _mm_set1_ps(m_not_a[j]), not_b = _mm_set1_ps(m_not_b[j]);
    const __m128 filtered =
        _mm_add_ps(_mm_mul_ps(_mm_add_ps(_mm_mul_ps(t00, not_a), _mm_mul_ps(t10, a)), not_b),
                   _mm_mul_ps(_mm_add_ps(_mm_mul_ps(t01, not_a), _mm_mul_ps(t11, a)), b));
    return _mm_mul_ps(_mm_mul_ps(filtered, _mm_load_ps(m_color[j])), m_tint);
  }

  // The fetch counters written back into the recorder (FetchRecorder::finish), at the triangle's end.
  void finish() const {
    if (m_record) m_record->finish();
  }

 private:
  Doubles4 m_inv_w[3];
  Doubles4 m_var[3][6];  // vertex_varyings: color, then uv
  // Set by init(); left unset before (a SimpleShading is made for every triangle, most never use it).
  const Vec4* m_texels;
  size_t m_width;
  int32_t m_height;
  float m_size_x, m_size_y;
  __m128 m_tint;
  __m128i m_mask_x, m_mask_y;
  AddressMode m_address;
  bool m_repeat_masks;
  std::optional<texture_detail::FetchRecorder> m_record;
  alignas(16) float m_color[4][4];
  alignas(16) int32_t m_x0[4], m_x1[4], m_y0[4], m_y1[4];
  alignas(16) float m_a[4], m_b[4], m_not_a[4], m_not_b[4];  // the weights and 1 less them

  // sample_filtered along one axis for four lanes: normalized `uv` times the level's `size`, less
  // half a texel; its floor (texel_floor: clamped to +-2^20 first) and the next texel, wrapped
  // (`extent` texels; `mask`: extent - 1, for repeat over power-of-two sizes); the weight of the next one, the
  // coordinate less its (unclamped) floor, and 1 less that weight (`not_weight`).
  [[gnu::always_inline]] void texel_coordinates(__m128 uv, float size, int32_t extent, __m128i mask, int32_t* first, int32_t* next,
                                                float* weight, float* not_weight) const {
    const __m128 s = _mm_sub_ps(_mm_mul_ps(uv, _mm_set1_ps(size)), _mm_set1_ps(0.5f));
    // std::clamp(s, lo, hi) keeps a NaN: min and max return their second operand on one.
    const __m128 clamped = _mm_min_ps(_mm_set1_ps(1048576.0f), _mm_max_ps(_mm_set1_ps(-1048576.0f), s));
    const __m128i i0 = _mm_cvttps_epi32(floor4(clamped));
    const __m128 w = _mm_sub_ps(s, floor4(s));
    _mm_store_ps(weight, w);
    _mm_store_ps(not_weight, _mm_sub_ps(_mm_set1_ps(1.0f), w));  // per lane the float 1 - w
    const __m128i i1 = _mm_add_epi32(i0, _mm_set1_epi32(1));
    if (m_repeat_masks) {
      _mm_store_si128(reinterpret_cast<__m128i*>(first), _mm_and_si128(i0, mask));
      _mm_store_si128(reinterpret_cast<__m128i*>(next), _mm_and_si128(i1, mask));
      return;
    }
    _mm_store_si128(reinterpret_cast<__m128i*>(first), i0);
    _mm_store_si128(reinterpret_cast<__m128i*>(next), i1);
    for (int j = 0; j < 4; ++j) {
      first[j] = texture_detail::wrap_if_outside(first[j], extent, m_address);
      next[j] = texture_detail::wrap_if_outside(next[j], extent, m_address);
    }
  }
};

// The `vertex_color` program (shade_full's inline case: ShadingSetup::vertex_color, the interpolated
// color times the tint) over a row group: the four fragments' weights and colors together, the same
// operations per lane as interpolated_vertex_color takes per fragment (so the same floats).
class VertexColorGroups {
 public:
  static bool applies(const CompiledProgram& program) { return program.kind == CompiledProgram::Kind::vertex_color; }

  // Once a triangle, `setup` initialized.
  void init(const ShadingSetup& setup, const CompiledProgram& program) {
    for (int k = 0; k < 3; ++k) m_inv_w[k] = Doubles4::all(double(setup.inv_w[k]));
    vertex_varyings(setup.var, m_var);
    m_tint = _mm_loadu_ps(program.color.data());
  }

  // The group's four fragments at barycentrics (l0, l1, l2) (lanes 0, 1 in `*_lo`, 2, 3 in `*_hi`):
  // their four color varyings (interpolate_lanes) times the tint.
  [[gnu::always_inline]] void prepare(__m128d l0_lo, __m128d l0_hi, __m128d l1_lo, __m128d l1_hi, __m128d l2_lo,
                                      __m128d l2_hi) {
    __m128 channel[4];
    interpolate_lanes(m_inv_w, m_var, l0_lo, l0_hi, l1_lo, l1_hi, l2_lo, l2_hi, channel);
    _MM_TRANSPOSE4_PS(channel[0], channel[1], channel[2], channel[3]);
    for (int j = 0; j < 4; ++j) _mm_store_ps(m_color[j], _mm_mul_ps(channel[j], m_tint));
  }

  // Lane j's color.
  [[gnu::always_inline]] __m128 shade(int j) const { return _mm_load_ps(m_color[j]); }

 private:
  Doubles4 m_inv_w[3];  // set by init(), as the rest
  Doubles4 m_var[3][4];  // vertex_varyings: the color
  __m128 m_tint;
  alignas(16) float m_color[4][4];
};

// The `captured` program (shade_fragment: the stand-in's color, and the reads of every bound image or
// texture, for their footprints and cache lines only: the values are unused, so not read): a binding at
// the pixel takes fetch_at_pixel's texel, one at uv sample_filtered's texels (nearest or bilinear) at the
// interpolated uv varyings (ShadingSetup::interpolate's floats, interpolate_lanes). One FetchRecorder a
// binding for the triangle; their fetches in the order shade_fragment takes them, the line recorded
// last handed from one to the next (follow()).
class CapturedFetches {
 public:
  // The captured program whose recording bindings (if any) are on one recorder, and whose bindings at uv
  // are sampled at level 0 (no mipmapped texture: no derivatives).
  static bool applies(const CompiledProgram& program) {
    if (program.kind != CompiledProgram::Kind::captured || program.discard) return false;
    const TextureRecorder* recorder = nullptr;
    for (const SamplerBinding& s : program.samplers) {
      if (s.bound() && s.at_uv && program.uv_derivatives) return false;
      if (!s.bound() || !s.recorder) continue;
      if (recorder && s.recorder != recorder) return false;
      recorder = s.recorder;
    }
    return true;
  }

  // Once a triangle, `setup` initialized.
  void init(const ShadingSetup& setup, const CompiledProgram& program) {
    m_bound = 0;
    m_at_uv = false;
    m_at_pixel = false;
    for (const SamplerBinding& s : program.samplers) {
      if (!s.bound()) continue;
      Sampler& sampler = m_samplers[m_bound++];
      sampler.width = float(s.texel_width);
      sampler.height = float(s.texel_height);
      sampler.extent_x = int32_t(s.texel_width);
      sampler.extent_y = int32_t(s.texel_height);
      sampler.address = s.address;
      sampler.at_uv = s.at_uv;
      sampler.bilinear = s.filter != Filter::nearest;  // sample_filtered: anything but nearest is bilinear
      // A 1 x 1 level: every coordinate wraps to texel 0 under every address mode (a NaN's INT32_MIN
      // included), so its texels are set once here (captured frames bind 1 x 1 textures that stand in for
      // an unused sampler: SuperTux binds one in every draw).
      sampler.single_texel = sampler.extent_x == 1 && sampler.extent_y == 1;
      sampler.quad = s.at_uv && sampler.bilinear;
      sampler.repeats = false;
      if (sampler.single_texel) {
        sampler.row_ty = 0;
        for (int j = 0; j < 4; ++j) sampler.x0[j] = sampler.x1[j] = sampler.y0[j] = sampler.y1[j] = 0;
      }
      sampler.record.emplace(s);
      m_at_uv = m_at_uv || (s.at_uv && !sampler.single_texel);
      m_at_pixel = m_at_pixel || (!s.at_uv && !sampler.single_texel);
    }
    if (m_at_uv) {
      for (int k = 0; k < 3; ++k) m_inv_w[k] = Doubles4::all(double(setup.inv_w[k]));
      const float* const uv[3] = {setup.var[0] + 4, setup.var[1] + 4, setup.var[2] + 4};
      vertex_varyings(uv, m_uv_var);
    }
    if (m_bound) m_last_line = m_samplers[0].record->last_line();
    m_row_y = m_group_x = INT32_MIN;  // no row's texel rows nor group's columns worked out yet
    m_framebuffer_width = float(program.framebuffer_width);
    m_framebuffer_height = float(program.framebuffer_height);
    m_color = _mm_loadu_ps(program.color.data());
  }

  // The group's four fragments at barycentrics (l0, l1, l2) (lanes 0, 1 in `*_lo`, 2, 3 in `*_hi`):
  // their uv (varyings 4 and 5) and, for each binding at uv, its texels in every lane.
  [[gnu::always_inline]] void prepare(__m128d l0_lo, __m128d l0_hi, __m128d l1_lo, __m128d l1_hi, __m128d l2_lo,
                                      __m128d l2_hi) {
    if (!m_at_uv) return;
    __m128 uv[2];
    interpolate_lanes(m_inv_w, m_uv_var, l0_lo, l0_hi, l1_lo, l1_hi, l2_lo, l2_hi, uv);
    for (uint32_t k = 0; k < m_bound; ++k) {
      Sampler& s = m_samplers[k];
      if (!s.at_uv || s.single_texel) continue;
      // sample_filtered's coordinates: the texel under u * size (nearest), or the four around u * size - 1/2.
      lane_texels(_mm_mul_ps(uv[0], _mm_set1_ps(s.width)), s.bilinear, s.extent_x, s.address, s.x0, s.x1);
      lane_texels(_mm_mul_ps(uv[1], _mm_set1_ps(s.height)), s.bilinear, s.extent_y, s.address, s.y0, s.y1);
    }
  }

  // Lane j's fragment, at pixel (x, y): its fetches recorded, its color. The texel columns of the
  // bindings at the pixel are worked out for the group's four pixels at once, at its first lane shaded.
  [[gnu::always_inline]] __m128 shade(int j, int32_t x, int32_t y) {
    if (m_at_pixel && (x - j != m_group_x || y != m_row_y)) start_group(x - j, y);
    for (uint32_t k = 0; k < m_bound; ++k) {
      Sampler& s = m_samplers[k];
      s.record->follow(m_last_line);
      if (s.repeats) {  // a 1 x 1 level's texel again
        if (s.quad) s.record->repeat_bilinear();
        else s.record->repeat_add();
      } else {
        if (!s.at_uv) s.record->add(s.x0[j], s.row_ty);
        else if (s.quad) s.record->add_bilinear(s.x0[j], s.x1[j], s.y0[j], s.y1[j]);
        else s.record->add(s.x0[j], s.y0[j]);
        s.repeats = s.single_texel;
      }
      m_last_line = s.record->last_line();
    }
    return m_color;
  }

  // The texels at the pixel of the group at pixels (x0 .. x0 + 3, y), for the bindings at the pixel:
  // fetch_at_pixel's normalized pixel centre, texel and address mode, the same float operations per
  // lane (lane_texels); the texel rows, which depend on y only, once a row.
  void start_group(int32_t x0, int32_t y) {
    m_group_x = x0;
    if (y != m_row_y) {
      m_row_y = y;
      const float v = (float(y) + 0.5f) / m_framebuffer_height;
      for (uint32_t k = 0; k < m_bound; ++k) {
        Sampler& s = m_samplers[k];
        if (!s.single_texel)
          s.row_ty = texture_detail::wrap_if_outside(texture_detail::texel_floor(v * s.height), s.extent_y, s.address);
      }
    }
    const __m128 x = _mm_cvtepi32_ps(_mm_add_epi32(_mm_set1_epi32(x0), _mm_setr_epi32(0, 1, 2, 3)));
    const __m128 u = _mm_div_ps(_mm_add_ps(x, _mm_set1_ps(0.5f)), _mm_set1_ps(m_framebuffer_width));
    for (uint32_t k = 0; k < m_bound; ++k) {
      Sampler& s = m_samplers[k];
      if (!s.at_uv && !s.single_texel)
        lane_texels(_mm_mul_ps(u, _mm_set1_ps(s.width)), false, s.extent_x, s.address, s.x0, nullptr);
    }
  }

  // The fetch counters written back (FetchRecorder::finish), at the triangle's end.
  void finish() {
    for (uint32_t k = 0; k < m_bound; ++k) {
      m_samplers[k].record->follow(m_last_line);
      m_samplers[k].record->finish();
    }
  }

 private:
  struct Sampler {
    float width, height;  // set by init(), as the rest
    int32_t extent_x, extent_y;
    AddressMode address;
    bool at_uv, bilinear;
    bool single_texel;  // a 1 x 1 level: texel (0, 0) at every fragment
    bool quad;  // at uv and bilinear: add_bilinear's four texels (else add's one)
    bool repeats;  // single_texel, its texel recorded once: the recorder repeats it (repeat_add, repeat_bilinear)
    int32_t row_ty;  // the texel row of row m_row_y's fragments (a binding at the pixel)
    std::optional<texture_detail::FetchRecorder> record;
    // A binding at uv: each lane's texels (prepare); one at the pixel: each lane's column in x0
    // (start_group).
    alignas(16) int32_t x0[4], x1[4], y0[4], y1[4];
  };
  Sampler m_samplers[kMaxProgramSamplers];
  uint32_t m_bound = 0;

  // Along one axis, four lanes' texel coordinates of a binding at uv, `f` the coordinate times the
  // level's size: texel_floor(f) (nearest) into `first`, or texel_floor(f - 1/2) and the texel after
  // it (bilinear) into `first` and `next`; each wrapped as wrap_if_outside does, into [0, extent).
  // The same float operations per lane as sample_filtered's (texel_floor's clamp keeps a NaN, as
  // TexturedGroups::texel_coordinates's does; its conversion then gives INT32_MIN, as the scalar one).
  [[gnu::always_inline]] static void lane_texels(__m128 f, bool bilinear, int32_t extent, AddressMode address,
                                                 int32_t* first, int32_t* next) {
    if (bilinear) f = _mm_sub_ps(f, _mm_set1_ps(0.5f));
    const __m128 clamped = _mm_min_ps(_mm_set1_ps(1048576.0f), _mm_max_ps(_mm_set1_ps(-1048576.0f), f));
    const __m128i i0 = _mm_cvttps_epi32(floor4(clamped));
    store_wrapped(i0, extent, address, first);
    if (bilinear) store_wrapped(_mm_add_epi32(i0, _mm_set1_epi32(1)), extent, address, next);
  }
  // Four lanes' texel coordinates, wrapped: those inside [0, extent) as they are (most), the others
  // clamped together (clamp_to_edge: a sprite's bilinear texels at its edges) or one by one.
  [[gnu::always_inline]] static void store_wrapped(__m128i i, int32_t extent, AddressMode address, int32_t* out) {
    _mm_store_si128(reinterpret_cast<__m128i*>(out), i);
    const __m128i outside = _mm_or_si128(_mm_cmplt_epi32(i, _mm_setzero_si128()), _mm_cmpgt_epi32(i, _mm_set1_epi32(extent - 1)));
    if (!_mm_movemask_epi8(outside)) return;
#if defined(__SSE4_1__)
    if (address == AddressMode::clamp_to_edge) {  // wrap's std::clamp(i, 0, extent - 1), four lanes at once
      const __m128i clamped = _mm_min_epi32(_mm_max_epi32(i, _mm_setzero_si128()), _mm_set1_epi32(extent - 1));
      _mm_store_si128(reinterpret_cast<__m128i*>(out), clamped);
      return;
    }
#endif
    for (int j = 0; j < 4; ++j) out[j] = texture_detail::wrap_if_outside(out[j], extent, address);
  }

  bool m_at_uv = false;  // a binding at uv (more than one texel): prepare() interpolates uv
  bool m_at_pixel = false;  // a binding at the pixel (likewise): start_group() works out its texels
  int32_t m_group_x;  // the first pixel of the group whose texels at the pixel the samplers hold
  Doubles4 m_inv_w[3];
  Doubles4 m_uv_var[3][2];  // vertex_varyings of the uv (varyings 4 and 5)
  uint64_t m_last_line;  // the line the bindings' fetches recorded last
  int32_t m_row_y;       // the pixel row whose texel rows the samplers hold
  float m_framebuffer_width, m_framebuffer_height;
  __m128 m_color;
};
#endif

}  // namespace tbdr::raster_detail
