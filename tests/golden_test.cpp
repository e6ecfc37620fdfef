// Golden images: every bundled trace run through the CLI under the reference preset must give
// the committed PNGs (tests/golden/, made by tools/update_goldens) pixel for pixel. A mismatch
// writes a diff image (differing pixels red, the rest dimmed) into the build's test-scratch.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace {

struct Decoded {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

Decoded decode(const fs::path& p) {
  Decoded d;
  int channels = 0;
  uint8_t* pixels = stbi_load(p.string().c_str(), &d.width, &d.height, &channels, 4);
  if (pixels) {
    d.rgba.assign(pixels, pixels + size_t(d.width) * d.height * 4);
    stbi_image_free(pixels);
  }
  return d;
}

std::set<std::string> pngs_in(const fs::path& dir) {
  std::set<std::string> names;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".png") names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST(Golden, EveryBundledTraceMatchesItsGoldenImages) {
  const fs::path golden_root = fs::path(TBDR_SOURCE_DIR) / "tests/golden";
  const fs::path scratch = fs::path(TBDR_BINARY_DIR) / "test-scratch/golden";
  fs::remove_all(scratch);
  size_t compared = 0;
  for (const char* folder : {"default", "features", "savers"}) {
    for (const auto& e : fs::directory_iterator(fs::path(TBDR_SOURCE_DIR) / "traces" / folder)) {
      if (e.path().extension() != ".json") continue;
      const std::string name = std::string(folder) + "_" + e.path().stem().string();
      SCOPED_TRACE(name);
      const fs::path out = scratch / name;
      const std::string cmd = "'" + std::string(TBDR_BINARY_DIR) + "/tbdrsim' run '" + e.path().string() +
                              "' --preset reference --quiet --out '" + out.string() + "'";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
      const std::set<std::string> expected = pngs_in(golden_root / name), actual = pngs_in(out);
      ASSERT_FALSE(expected.empty()) << "no goldens: run tools/update_goldens";
      EXPECT_EQ(actual, expected);
      for (const std::string& png : expected) {
        if (!actual.count(png)) continue;
        const Decoded want = decode(golden_root / name / png), got = decode(out / png);
        ASSERT_FALSE(want.rgba.empty()) << png;
        ASSERT_EQ(want.width, got.width) << png;
        ASSERT_EQ(want.height, got.height) << png;
        size_t differing = 0;
        std::vector<uint8_t> diff(want.rgba.size());
        for (size_t i = 0; i < want.rgba.size(); i += 4) {
          const bool same = std::equal(&want.rgba[i], &want.rgba[i] + 4, &got.rgba[i]);
          differing += same ? 0 : 1;
          diff[i] = same ? want.rgba[i] / 4 : 255;
          diff[i + 1] = same ? want.rgba[i + 1] / 4 : 0;
          diff[i + 2] = same ? want.rgba[i + 2] / 4 : 0;
          diff[i + 3] = 255;
        }
        if (differing) {
          const fs::path diff_path = scratch / (name + "_diff_" + png);
          stbi_write_png(diff_path.string().c_str(), want.width, want.height, 4, diff.data(), want.width * 4);
          ADD_FAILURE() << png << ": " << differing << " pixels differ; diff image " << diff_path;
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10u);
}
