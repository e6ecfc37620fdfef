// A draw's depth bias (DRAW state `depth_bias`, Vulkan spec "Depth Bias": o = m x slope + r x constant,
// clamped) in the rasterizer's depth test and the stored depth, each value worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "sim/pipeline.h"
#include "tests/configured_models.h"
#include "tests/stored_images.h"

using nlohmann::json;

namespace tbdr {
namespace {

// A quad over the whole 64x64 target in clip space (w = 1) whose depth runs from z_left at x = -1 to
// z_right at x = 1: framebuffer z = z_left + (z_right - z_left) x (x + 0.5) / 64 at pixel x.
json quad_mesh(const std::string& name, double z_left, double z_right) {
  json positions = json::array();
  const double corners[4][3] = {{-1, -1, z_left}, {1, -1, z_right}, {-1, 1, z_left}, {1, 1, z_right}};
  for (int k : {0, 1, 2, 1, 3, 2}) positions.insert(positions.end(), {corners[k][0], corners[k][1], corners[k][2], 1.0});
  return {{"name", name}, {"topology", "triangle_list"}, {"position_components", 4}, {"positions", positions}};
}

json flat_draw(const std::string& mesh, const json& color, const json& bias) {
  json state = {{"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
  if (!bias.is_null()) state["depth_bias"] = bias;
  return {{"name", mesh}, {"mesh", mesh}, {"transform", {{"clip_space", true}}}, {"state", state},
          {"program", {{"name", "flat"}, {"params", {{"color", color}}}}}};
}

// One pass: color (RGBA8) and depth (`depth_format`, cleared to 1) stored, `draws` in order.
json pass_trace(const std::string& depth_format, const json& meshes, const json& draws) {
  json pass = {{"name", "pass0"},
               {"attachments", json::array({{{"image", "color"}, {"load", "clear"}, {"store", "store"}},
                                            {{"image", "depth"}, {"load", "clear"}, {"store", "store"},
                                             {"clear", {{"depth", 1.0}, {"stencil", 0}}}}})},
               {"subpasses", json::array({{{"color", {0}}, {"depth", 1}, {"draws", draws}}})}};
  return {{"format", "tbdrsim-trace"}, {"version", 1},
          {"images", json::array({{{"name", "color"}, {"format", "RGBA8"}, {"width", 64}, {"height", 64},
                                   {"usage", {"color_attachment"}}},
                                  {{"name", "depth"}, {"format", depth_format}, {"width", 64}, {"height", 64},
                                   {"usage", {"depth_stencil_attachment"}}}})},
          {"meshes", meshes},
          {"frames", json::array({{{"passes", json::array({pass})}}})}};
}

StoredImages run_trace(const json& trace) {
  StoredImages stored;
  const Trace t = read_trace_text(trace.dump(), ".", "bias.json");
  simulate(t, configured_models("reference", {}), SimOptions{}, &stored);
  return stored;
}

const Surface& stored(const StoredImages& images, const std::string& key) {
  const auto it = images.images.find(key);
  if (it == images.images.end()) {
    std::string keys;
    for (const auto& [k, s] : images.images) keys += k + " ";
    ADD_FAILURE() << key << " not stored; stored: " << keys;
    static const Surface none;
    return none;
  }
  return it->second;
}

// The plane's slope: dz/dx = (0.75 - 0.25) / 64 pixels = 1/128, dz/dy = 0, so m = 1/128. D32F's r at
// z up to 0.75 (exponent -1) is 2^(-1 - 23) = 2^-24.
float biased_depth(const json& bias, uint32_t x) {
  const StoredImages images =
      run_trace(pass_trace("D32F", json::array({quad_mesh("ramp", 0.25, 0.75)}),
                           json::array({flat_draw("ramp", {1, 0, 0, 1}, bias)})));
  const Surface& depth = stored(images, "f0/pass0/att1/depth");
  return depth.depth.empty() ? NAN : depth.depth[depth.index(x, 7, 0)];
}

TEST(DepthBias, SlopeConstantAndClampAsVulkanSays) {
  for (const uint32_t x : {0u, 21u, 63u}) {
    const double z = 0.25 + 0.5 * (x + 0.5) / 64;
    EXPECT_NEAR(biased_depth(nullptr, x), z, 1e-7) << x;
    // slope 2: o = 2 / 128 = 1/64
    EXPECT_NEAR(biased_depth({{"slope", 2.0}}, x), z + 1.0 / 64, 1e-7) << x;
    // constant 4: o = 4 x 2^-24 = 2^-22
    EXPECT_NEAR(biased_depth({{"constant", 4.0}}, x), z + std::ldexp(1.0, -22), 1e-7) << x;
    // clamped: min(1/64, 0.01), and max(-1/64, -0.01) for a negative clamp
    EXPECT_NEAR(biased_depth({{"slope", 2.0}, {"clamp", 0.01}}, x), z + 0.01, 1e-7) << x;
    EXPECT_NEAR(biased_depth({{"slope", -2.0}, {"clamp", -0.01}}, x), z - 0.01, 1e-7) << x;
  }
}

// A decal drawn over a surface at the same depth: `less` fails everywhere without a bias; with
// constant -1 on D16 (r = 2^-16) the decal's depth 0.5 - 2^-16 stores as code 32767 below the
// surface's 32768 (round(0.5 x 65535)), so it passes and its color wins.
TEST(DepthBias, ANegativeConstantPutsADecalInFront) {
  const json meshes = json::array({quad_mesh("surface", 0.5, 0.5), quad_mesh("decal", 0.5, 0.5)});
  for (const bool biased : {false, true}) {
    const json decal_bias = biased ? json{{"constant", -1.0}} : json(nullptr);
    const StoredImages images = run_trace(pass_trace(
        "D16", meshes, json::array({flat_draw("surface", {1, 0, 0, 1}, nullptr), flat_draw("decal", {0, 0, 1, 1}, decal_bias)})));
    const Surface& color = stored(images, "f0/pass0/att0/color");
    ASSERT_FALSE(color.color.empty());
    EXPECT_EQ(color.color[color.index(10, 10, 0)][2], biased ? 1.0f : 0.0f);
    EXPECT_EQ(color.color[color.index(10, 10, 0)][0], biased ? 0.0f : 1.0f);
  }
}

TEST(DepthBias, ReaderNamesABadField) {
  json trace = pass_trace("D16", json::array({quad_mesh("q", 0.5, 0.5)}),
                          json::array({flat_draw("q", {1, 0, 0, 1}, {{"offset", 1.0}})}));
  try {
    read_trace_text(trace.dump(), ".", "bias.json");
    ADD_FAILURE() << "an unknown depth_bias key was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("depth_bias"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tbdr
