// make_scenes' procedural textures: deterministic grain from an integer hash, and the tiled floor
// and wood textures that more than one scene family samples.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace tbdr::scenes {

// Integer hash (lowbias32) for deterministic texture grain.
uint32_t hash32(uint32_t x);
// A value in [-amplitude, amplitude], fixed by (x, y, salt).
int grain(int x, int y, int salt, int amplitude);

inline uint8_t clamp_byte(int v) { return uint8_t(std::clamp(v, 0, 255)); }

// A 128x128 opaque RGBA8 texture from `rgb(x, y)` (channel values clamped to 0..255).
template <class Fn>
std::vector<uint8_t> procedural_texels(Fn rgb) {
  constexpr int kSize = 128;
  std::vector<uint8_t> rgba(size_t(kSize * kSize * 4));
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      uint8_t* t = &rgba[size_t((y * kSize + x) * 4)];
      const std::array<int, 3> c = rgb(x, y);
      for (int i = 0; i < 3; ++i) t[i] = clamp_byte(c[size_t(i)]);
      t[3] = 255;
    }
  return rgba;
}

// 128x128 floor tiles: 4 x 4 tiles of 32 px with 2 px grout, each tile its own shade, per-texel grain.
std::vector<uint8_t> floor_tile_texels();
// 128x128 wood: rings along x bent by a slow wave, with fine grain.
std::vector<uint8_t> wood_texels();

}  // namespace tbdr::scenes
