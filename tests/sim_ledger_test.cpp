// Tests of the DRAM ledger on traces built in code: attachment load/store bytes, vertex and tile-list
// bytes, exact.
#include "tests/sim_test_common.h"

namespace tbdr {
namespace {

// ---- 4. attachment load/store bytes -----------------------------------------------------------

// traces/README.md: LOAD reads and STORE writes render-area pixels x bpp x samples, whatever the
// tile size (partial tiles included); a transient image never touches DRAM. 1920 x 1080 x 4 B =
// 8,294,400 B; half the width, 4,147,200 B. The render area at x = 950 starts mid-tile for every
// tile size tested. A depth/stencil attachment moves whole when either aspect loads (stores).
TEST(SimLedger, AttachmentLoadStoreBytes) {
  Trace trace;
  const int32_t color = add_image(trace, Format::RGBA8, 1920, 1080);
  const int32_t transient = add_image(trace, Format::RGBA8, 1920, 1080, 1, true);
  const int32_t depth = add_image(trace, Format::D32F, 1920, 1080);
  const int32_t depth_stencil = add_image(trace, Format::D24S8, 1920, 1080);
  const int32_t quad = add_rect(trace, 0, 0, 1920, 1080, 1920, 1080);
  struct Case {
    const char* name;
    int32_t image;
    LoadOp load;
    StoreOp store;
    std::optional<Rect> area;
    uint64_t read, write;
    LoadOp stencil_load = LoadOp::dont_care;
    StoreOp stencil_store = StoreOp::dont_care;
  };
  const Case cases[] = {
      {"load_store", color, LoadOp::load, StoreOp::store, std::nullopt, 8294400, 8294400},
      {"clear_dont_care", color, LoadOp::clear, StoreOp::dont_care, std::nullopt, 0, 0},
      {"clear_store", color, LoadOp::clear, StoreOp::store, std::nullopt, 0, 8294400},
      {"load_dont_care", color, LoadOp::load, StoreOp::dont_care, std::nullopt, 8294400, 0},
      // VK_ATTACHMENT_LOAD_OP_NONE reads nothing; storeOp NONE writes nothing (models/README.md
      // "Sources: render passes and load/store ops").
      {"none_store", color, LoadOp::none, StoreOp::store, std::nullopt, 0, 8294400},
      {"load_none", color, LoadOp::load, StoreOp::none, std::nullopt, 8294400, 0},
      {"transient", transient, LoadOp::load, StoreOp::store, std::nullopt, 0, 0},
      {"half", color, LoadOp::load, StoreOp::store, Rect{0, 0, 960, 1080}, 4147200, 4147200},
      {"half_unaligned", color, LoadOp::load, StoreOp::store, Rect{950, 0, 960, 1080}, 4147200, 4147200},
      {"depth", depth, LoadOp::load, StoreOp::store, std::nullopt, 8294400, 8294400},
      // Only the stencil aspect is loaded and stored: the whole 4 B D24S8 pixel moves.
      {"stencil_only", depth_stencil, LoadOp::dont_care, StoreOp::dont_care, std::nullopt, 8294400, 8294400,
       LoadOp::load, StoreOp::store},
  };
  Frame frame;
  for (const Case& c : cases) {
    Subpass sp = c.image == depth || c.image == depth_stencil ? color_subpass({}, 0) : color_subpass({0});
    // A full-screen draw in one pass: drawing does not change the attachment traffic.
    if (std::string(c.name) == "clear_store") sp.draws = {flat_draw(quad, Vec4(1, 0, 0, 1))};
    Attachment a = attachment(c.image, c.load, c.store);
    a.stencil_load = c.stencil_load;
    a.stencil_store = c.stencil_store;
    frame.passes.push_back(render_pass(c.name, {a}, {sp}, c.area));
  }
  trace.frames = {frame};
  for (const char* tile : {"16x16", "32x32", "24x40"}) {
    SCOPED_TRACE(tile);
    const RunStats run = simulate(trace, make_models(tile), SimOptions{}, nullptr);
    for (size_t i = 0; i < std::size(cases); ++i) {
      SCOPED_TRACE(cases[i].name);
      const DramLedger& dram = pass_stats(run, uint32_t(i)).dram;
      EXPECT_EQ(dram[DramCategory::attachment_load], (Traffic{cases[i].read, 0}));
      EXPECT_EQ(dram[DramCategory::attachment_store], (Traffic{0, cases[i].write}));
      for (DramCategory other : {DramCategory::image_sample, DramCategory::texture, DramCategory::resolve,
                                 DramCategory::framebuffer_color, DramCategory::framebuffer_depth})
        EXPECT_EQ(dram[other], Traffic{}) << dram_category_name(other);
    }
  }
}

// ---- 5. vertex and tile-list bytes --------------------------------------------------------------

// Worked by hand from traces/README.md on a 64x64 target with 16x16 tiles (4x4 = 16 tiles):
//
// pass 0: one triangle, 3 object-space positions (stride 12 B), 16-bit indices {0,1,2}, vertices at
//   pixels (2.5,2.5) (30.5,4.5) (5.5,20.5): bounding box x 2..30, y 2..20 -> tiles cols 0-1 x rows
//   0-1 = 4 entries. vertex read = 3*12 + 3*2 = 42. Record = 3 x 16 B = 48 (no varyings).
//   tile_list write = 48 + 4*4 = 64; read = 4 * (4 + 48) = 208.
// pass 1: a full-screen quad: 4 vertices with position (12) + color (16) + uv (8) = 36 B, 32-bit
//   indices {0,1,2, 2,1,3}: vertex read = 4*36 + 6*4 = 168. Two triangles, each covering all 16
//   tiles: 32 entries. Record = 3 x (16 + 4 x 6 varyings) = 120. tile_list write = 2*120 + 32*4 =
//   368; read = 32 * (4 + 120) = 3968.
// pass 2: non-indexed, 3 clip-space positions (4 components, 16 B): vertex read = 48. Vertices at
//   (17.5,17.5) (25.5,18.5) (20.5,28.5): one tile (col 1, row 1). tile_list write 48 + 4 = 52,
//   read 52.
// pass 3: pass 0's draw with instance_count 2 ("per draw and instance"): vertex read 2 * 42 = 84;
//   2 primitives, 8 entries: tile_list write = 2*48 + 8*4 = 128; read = 8 * (4 + 48) = 416.
TEST(SimLedger, VertexAndTileListBytes) {
  const uint32_t kSize = 64;
  Trace trace;
  const int32_t target = add_image(trace, Format::RGBA8, kSize, kSize);
  auto object_space = [&](double px, double py) {
    Vec4 c = pixel_to_clip(px, py, kSize, kSize);
    c[3] = 1;
    return c;
  };
  Mesh small;
  small.positions = {object_space(2.5, 2.5), object_space(30.5, 4.5), object_space(5.5, 20.5)};
  small.indices = {0, 1, 2};
  small.index_bits = 16;
  const int32_t small_mesh = add_mesh(trace, small);
  Mesh quad;
  quad.positions = {object_space(0, 0), object_space(64, 0), object_space(0, 64), object_space(64, 64)};
  quad.colors.assign(4, Vec4(0.5f, 0.5f, 0.5f, 1));
  quad.uvs.assign(4, Vec2(0, 0));
  quad.indices = {0, 1, 2, 2, 1, 3};
  quad.index_bits = 32;
  const int32_t quad_mesh = add_mesh(trace, quad);
  Mesh clip;
  clip.position_components = 4;
  clip.positions = {pixel_to_clip(17.5, 17.5, kSize, kSize), pixel_to_clip(25.5, 18.5, kSize, kSize),
                    pixel_to_clip(20.5, 28.5, kSize, kSize)};
  const int32_t clip_mesh = add_mesh(trace, clip);

  Frame frame;
  const int32_t meshes[] = {small_mesh, quad_mesh, clip_mesh, small_mesh};
  for (int32_t mesh : meshes) {
    Draw d;
    d.mesh = mesh;
    d.instance_count = frame.passes.size() == 3 ? 2 : 1;
    d.transform.clip_space = mesh == clip_mesh;
    Subpass sp = color_subpass({0});
    sp.draws = {d};
    frame.passes.push_back(render_pass("p" + std::to_string(frame.passes.size()),
                                       {attachment(target, LoadOp::clear, StoreOp::store)}, {sp}));
  }
  trace.frames = {frame};
  const RunStats run = simulate(trace, make_models(), SimOptions{}, nullptr);
  struct Expected {
    uint64_t entries, vertex_read, list_write, list_read;
  };
  const Expected expected[] = {{4, 42, 64, 208}, {32, 168, 368, 3968}, {1, 48, 52, 52}, {8, 84, 128, 416}};
  for (uint32_t p = 0; p < 4; ++p) {
    SCOPED_TRACE("pass " + std::to_string(p));
    const PassStats& s = pass_stats(run, p);
    EXPECT_EQ(s.tile_width, 16u);
    EXPECT_EQ(s.counters.tiles, 16u);
    EXPECT_EQ(s.counters.tile_list_entries, expected[p].entries);
    EXPECT_EQ(s.dram[DramCategory::vertex], (Traffic{expected[p].vertex_read, 0}));
    EXPECT_EQ(s.dram[DramCategory::tile_list], (Traffic{expected[p].list_read, expected[p].list_write}));
  }
}

}  // namespace
}  // namespace tbdr
