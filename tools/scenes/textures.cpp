// make_scenes' procedural textures (textures.h): integer-hash grain, floor tiles and wood.
#include "tools/scenes/textures.h"

#include <cmath>

#include "tools/scenes/common.h"

namespace tbdr::scenes {

uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

int grain(int x, int y, int salt, int amplitude) {
  return int(hash32(uint32_t(x) * 73856093u ^ uint32_t(y) * 19349663u ^ uint32_t(salt) * 83492791u) %
             uint32_t(2 * amplitude + 1)) - amplitude;
}

// 128x128 floor tiles: 4 x 4 tiles of 32 px with 2 px grout, each tile its own shade, per-texel grain.
std::vector<uint8_t> floor_tile_texels() {
  constexpr int kCell = 32;
  return procedural_texels([](int x, int y) {
    const bool grout = x % kCell < 2 || y % kCell < 2;
    const int shade = int(hash32(uint32_t((y / kCell) * 4 + x / kCell) + 7u) % 40u) - 20;
    const int g = grain(x, y, 1, 6);
    return grout ? std::array<int, 3>{70 + g, 66 + g, 60 + g} : std::array<int, 3>{196 + shade + g, 182 + shade + g, 160 + shade + g};
  });
}

// 128x128 wood: rings along x bent by a slow wave, with fine grain.
std::vector<uint8_t> wood_texels() {
  constexpr int kSize = 128;
  return procedural_texels([](int x, int y) {
    const double ring = 0.5 + 0.5 * std::sin((x + 6.0 * std::sin(y * 2.0 * kPi / kSize)) * 2.0 * kPi / 16.0);
    const int g = grain(x, y, 2, 8);
    return std::array<int, 3>{int(150 + 50 * ring) + g, int(96 + 36 * ring) + g, int(52 + 20 * ring) + g};
  });
}

}  // namespace tbdr::scenes
