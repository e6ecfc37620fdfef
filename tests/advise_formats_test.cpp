// `tbdrsim advise`'s rule on render-target formats (tools/commands/advise_rules_formats.cpp), and the
// B10G11R11_UFLOAT format it proposes: a 64x64 RGBA16F target tonemapped into the swapchain.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/format.h"
#include "tests/advise_test_helpers.h"

namespace tbdr::advise {
namespace {

// `scene` renders a full-screen `flat` draw of `color` into the RGBA16F `hdr` and stores it; `post`
// reads it with `program` (binding `binding`) into the presented swapchain.
json hdr_trace(json color, const std::string& program, const std::string& binding) {
  json post = draw("full");
  post["program"] = {{"name", program}, {"bindings", {{binding, {{"image", "hdr"}}}}}};
  return trace_of({image("hdr", "RGBA16F", {"color_attachment", "sampled"}), image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
                  {pass("scene", {{{"image", "hdr"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "shader_read_only"}}},
                        {{{"color", {0}}, {"draws", {draw("full", color)}}}}),
                   pass("post", {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}}},
                        {{{"color", {0}}, {"draws", {post}}}})});
}

bool has_finding(const Advice& a, const std::string& rule) {
  for (const Finding& f : a.findings)
    if (f.rule == rule) return true;
  return false;
}

TEST(AdviseFormats, HdrTargetWhoseAlphaNothingReadsNarrowed) {
  // reference. hdr (RGBA16F, 8 B a pixel) is stored whole, 64 x 64 x 8 = 32,768 B of
  // attachment_store, and `tonemap` reads every texel at the same pixel, 32,768 B of image_sample.
  // tonemap's output alpha is 1 whatever hdr's: nothing reads hdr's alpha. As B10G11R11_UFLOAT
  // (4 B): 16,384 + 16,384 B. Saved: 16,384 B of each, 32,768 B. The color (2, 1, 0.5) is exact in
  // both formats, so the presented pixels stay the same.
  const TempTrace t(hdr_trace({2, 1, 0.5, 1}, "tonemap", "hdr"));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "narrow-target");
  EXPECT_EQ(f.id, "narrow-target:hdr");
  EXPECT_EQ(f.edit, json::array({{{"op", "replace"}, {"path", "/images/0/format"}, {"value", "B10G11R11_UFLOAT"}}}));
  EXPECT_EQ(f.verdict, Verdict::saves);
  EXPECT_TRUE(f.changes_images);  // the rule cannot prove the values fit 6 mantissa bits
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, false), 16384);
  EXPECT_EQ(saved(a, f, DramCategory::image_sample, false), 16384);
  EXPECT_EQ(saved_total(a, f, false), 32768);
  expect_same_images(t, f, "f0/swapchain");
  const Cli r = advise_cli(t.dir, "t.json --apply narrow-target -o edited.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Traffic before = a.before.dram.total(), after = price(read_json(t.dir / "edited.json"), t.dir, "reference", 1).dram.total();
  EXPECT_EQ(before.read_bytes + before.write_bytes - (after.read_bytes + after.write_bytes), 32768u);
}

TEST(AdviseFormats, TargetWhoseAlphaIsReadKeepsItsFormat) {
  // `copy` writes the texel's alpha into the swapchain; a blend reading destination alpha reads it too.
  EXPECT_FALSE(has_finding(run_advice(TempTrace(hdr_trace({2, 1, 0.5, 1}, "copy", "source"))), "narrow-target"));
  json blended = hdr_trace({2, 1, 0.5, 1}, "tonemap", "hdr");
  blended["frames"][0]["passes"][0]["subpasses"][0]["draws"][0]["state"]["blend"] = {
      {{"enable", true}, {"src_color", "one_minus_dst_alpha"}, {"dst_color", "one"}}};
  EXPECT_FALSE(has_finding(run_advice(TempTrace(blended)), "narrow-target"));
}

TEST(AdviseFormats, UnsignedElevenAndTenBitFloatsRound) {
  // Vulkan "Unsigned 11-Bit Floating-Point Numbers" (6 mantissa bits) and 10-bit (5): 1 + 2^-7 lies
  // half-way between 1 and 1 + 2^-6 and rounds to even (1); 1 + 3 x 2^-7 rounds up to 1 + 2^-5 in
  // red, and in blue (5 bits: steps of 2^-5) to 1 + 2^-5 too; negative values store 0; above the
  // largest finite value (2 - 2^-6) x 2^15 = 65,024 red stores it, blue its own 64,512; no alpha.
  const Format f = *parse_format("B10G11R11_UFLOAT");
  EXPECT_EQ(format_info(f).bytes_per_pixel, 4u);
  const float half_step = 1 + 1.0f / 128, three = 1 + 3.0f / 128;
  EXPECT_EQ(quantize_color(f, {half_step, three, three, 0.25f}), Eigen::Vector4f(1, 1 + 1.0f / 32, 1 + 1.0f / 32, 1));
  EXPECT_EQ(quantize_color(f, {-3, 1e6f, 1e6f, 0}), Eigen::Vector4f(0, 65024, 64512, 1));
}

}  // namespace
}  // namespace tbdr::advise
