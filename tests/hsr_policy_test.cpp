// The HSR policies of models/hsr decide which fragments sim/'s tile loop shades: every registered
// `hsr` implementation's policy, run by TileWorkTracker over a hand-written fragment stream of one
// 2x2 tile, gives the counts worked out by hand below from that policy's rule.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/frame.h"
#include "sim/tile_work.h"

namespace tbdr {
namespace {

// One 2x2 tile (one quad), pixels 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1); draw 0 costs 1 ALU cycle a
// lane, draw 1 (blended, so never an occluder) 10. In primitive order:
//   prim 0, draw 0: every pixel, passes the early test, occludes         (issued 1, 2, 3, 4)
//   prim 1, draw 0: pixels 0 and 1, passes, occludes                      (issued 5, 6)
//   prim 2, draw 1: pixel 0, passes, cannot occlude, blends               (issued 7)
//   prim 3, draw 0: pixel 2, rasterized, fails the early test
// Each fragment that passes writes one color sample.
void run_stack(TileWorkTracker& tracker) {
  tracker.visit_hsr([&](auto t) {
    auto fragment = [&](uint32_t prim, uint32_t draw, int32_t x, int32_t y, bool passes, bool occludes) {
      t.rasterized(prim, draw, x, y);
      if (!passes) return;
      t.candidate(prim, draw, x, y, occludes);
      t.color_written(draw == 1);
    };
    for (int32_t pixel = 0; pixel < 4; ++pixel) fragment(0, 0, pixel % 2, pixel / 2, true, true);
    fragment(1, 0, 0, 0, true, true);
    fragment(1, 0, 1, 0, true, true);
    fragment(2, 1, 0, 0, true, false);
    fragment(3, 0, 0, 1, false, false);
  });
}

struct Expected {
  uint64_t shaded, quads_shaded, written;
  double alu;  // 4 lanes x the draw's cost per shaded (primitive, quad) pair
};

// none: all 8 rasterized, 4 pairs (1 + 1 + 10 + 1) x 4 = 52 ALU, the 7 passing write.
// early_z: the 7 passing, pairs of prims 0-2: 48 ALU.
// deferred: prim 1 kills prim 0 at pixels 0 and 1; prim 2 (no occluder) has prim 1's pixel 0
//   shaded, then itself; the tile end shades prim 1 at pixel 1 and prim 0 at 2 and 3: 5 shaded,
//   5 written (the killed fragments' colors never count).
// fpk (window 64): prim 1 is issued 4 after prim 0 at each pixel, within the window: as deferred.
// fpk window 3: 4 > 3, prim 0 at pixels 0 and 1 has left the window and is shaded: 7, as early_z.
const std::map<std::string, Expected> k_expected = {
    {"none", {8, 4, 7, 52}}, {"early_z", {7, 3, 7, 48}}, {"deferred", {5, 3, 5, 48}}, {"fpk", {5, 3, 5, 48}}};

// The reference configuration with `sets` applied, and a tracker over the stack's two draws
// (opaque: alu 1, blended: alu 10) under its hsr model. Not movable: the tracker points at the draws.
struct StackTracker {
  explicit StackTracker(const std::vector<std::string>& sets) : models(configured(sets)) {
    opaque.cost.alu = 1;
    blended.cost.alu = 10;
    tracker.begin_pass(models.hsr->policy(), {&opaque, &blended});
  }
  StackTracker(const StackTracker&) = delete;
  // One 2x2 tile of the stack.
  models::TileWork run_tile() {
    tracker.begin_tile(Rect{0, 0, 2, 2}, 1);
    run_stack(tracker);
    return tracker.end_tile();
  }
  static models::ModelSet configured(const std::vector<std::string>& sets) {
    models::Configuration config = models::Configuration::reference();
    for (const std::string& s : sets) config.apply(s);
    return models::build_models(config);
  }
  models::ModelSet models;
  Draw opaque, blended;
  TileWorkTracker tracker;
};

models::TileWork run_policy(const std::vector<std::string>& sets) { return StackTracker(sets).run_tile(); }

void expect_counts(const models::TileWork& w, const Expected& e) {
  EXPECT_EQ(w.fragments_rasterized, 8u);
  EXPECT_EQ(w.quads_rasterized, 4u);
  EXPECT_EQ(w.fragments_shaded, e.shaded);
  EXPECT_EQ(w.quads_shaded, e.quads_shaded);
  EXPECT_EQ(w.written_samples, e.written);
  EXPECT_EQ(w.blended_samples, 1u);
  EXPECT_DOUBLE_EQ(w.alu_cycles, e.alu);
}

TEST(TimingHsr, EveryRegisteredPolicyDecidesWhatAHandComputedStackShades) {
  // A new implementation needs its line in k_expected.
  std::vector<std::string> expected_names;
  for (const auto& [name, e] : k_expected) expected_names.push_back(name);
  EXPECT_EQ(models::registered_implementations("hsr"), expected_names);
  for (const std::string& name : models::registered_implementations("hsr")) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(k_expected.count(name));
    expect_counts(run_policy({"hsr=" + name}), k_expected.at(name));
  }
  SCOPED_TRACE("fpk window 3");
  expect_counts(run_policy({"hsr=fpk", "hsr.window=3"}), Expected{7, 3, 7, 48});
  SCOPED_TRACE("fpk window 4");
  expect_counts(run_policy({"hsr=fpk", "hsr.window=4"}), k_expected.at("fpk"));
}

// A tile's waiting fragments never leak into the next tile: the same stack twice, same counts.
TEST(TimingHsr, EachTileStartsWithNothingWaiting) {
  for (const auto& [name, e] : k_expected) {
    SCOPED_TRACE(name);
    StackTracker stack({"hsr=" + name});
    for (int tile = 0; tile < 2; ++tile) expect_counts(stack.run_tile(), e);
  }
}

}  // namespace
}  // namespace tbdr
