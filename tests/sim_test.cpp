// Tests of sim/ on traces built in code: the TBDR path against the IMR path bit for bit (random and
// deferral scenes), huge-page arrays and which trace images are zeroed, the lit program.
#include "tests/sim_test_common.h"

namespace tbdr {
namespace {

// ---- 7. TBDR == IMR ---------------------------------------------------------------------------

constexpr CompareOp kCompareOps[] = {CompareOp::never,
                                 CompareOp::less,
                                 CompareOp::equal,
                                 CompareOp::less_or_equal,
                                 CompareOp::greater,
                                 CompareOp::not_equal,
                                 CompareOp::greater_or_equal,
                                 CompareOp::always};

// The random pieces of random_scene, all drawn from one seeded generator: numbers, stencil faces,
// blend states, and draws of mesh `mesh` into `width` x `height` images.
struct RandomPipeline {
  std::mt19937 rng;
  uint32_t width, height;
  int32_t mesh = -1;

  float uniform(double lo, double hi) { return float(std::uniform_real_distribution<double>(lo, hi)(rng)); }
  uint32_t pick(uint32_t n) { return uint32_t(rng() % n); }

  StencilFaceState face() {
    StencilFaceState f;
    f.fail_op = StencilOp(pick(8));
    f.pass_op = StencilOp(pick(8));
    f.depth_fail_op = StencilOp(pick(8));
    f.compare_op = kCompareOps[pick(8)];
    f.reference = pick(4);
    f.compare_mask = pick(2) ? 0xff : pick(256);
    f.write_mask = pick(2) ? 0xff : pick(256);
    return f;
  }

  BlendAttachmentState blend() {
    BlendAttachmentState b;
    b.enable = pick(4) != 0;
    b.src_color = BlendFactor(pick(15));
    b.dst_color = BlendFactor(pick(15));
    b.src_alpha = BlendFactor(pick(15));
    b.dst_alpha = BlendFactor(pick(15));
    b.color_op = BlendOp(pick(5));
    b.alpha_op = BlendOp(pick(5));
    b.write_mask = pick(3) ? 0xf : pick(16);
    return b;
  }

  Draw draw(uint32_t slots) {
    Draw d = clip_draw(mesh);
    d.first_index = 3 * pick(190);
    d.index_count = 3 * (1 + pick(10));
    if (pick(2)) {
      d.program.name = "vertex_color";
      d.program.params["tint"] = {uniform(0, 2), uniform(0, 2), uniform(0, 2), uniform(0, 1.5)};
    } else {
      d.program.params["color"] = {uniform(-0.2, 1.2), uniform(0, 1), uniform(0, 1), uniform(0, 1)};
    }
    PipelineState& s = d.state;
    s.cull = CullMode(pick(3));
    s.front_face = FrontFace(pick(2));
    s.depth_test = pick(3) != 0;
    s.depth_write = pick(2) != 0;
    s.depth_compare = kCompareOps[pick(8)];
    s.stencil_test = pick(2) != 0;
    s.stencil_front = face();
    s.stencil_back = face();
    for (uint32_t c = 0; c < slots; ++c) s.blend.push_back(blend());
    s.blend_constants = Vec4(uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1));
    s.discard = pick(5) == 0;
    if (pick(3) == 0)
      d.scissor = Rect{int32_t(pick(width)) - 10, int32_t(pick(height)) - 10, 1 + pick(width), 1 + pick(height)};
    if (pick(4) == 0) {
      const float min_depth = uniform(0, 0.5);
      d.viewport = Viewport{uniform(-20, 40), uniform(-20, 30), uniform(20, 90),
                            uniform(15, 70),  min_depth,        min_depth + uniform(0, 0.5)};
    }
    return d;
  }
};

// A random scene: overlapping vertex-colored and flat triangles (some crossing the near plane),
// random blend factors/ops/write masks, depth compare ops, stencil ops on both faces, culling,
// scissors, viewports, discard, a mid-pass clear and two subpasses, over a render area off the
// origin in attachments with random initial contents; then an MSAA 4x pass with an inline
// resolve. Both paths run the same rasterizer, so every stored surface must match bit for bit
// for every tile size, and so must the per-pass work counters that do not depend on tiling.
Trace random_scene() {
  const uint32_t W = 83, H = 61;
  RandomPipeline random{std::mt19937(4242), W, H};
  auto uniform = [&](double lo, double hi) { return random.uniform(lo, hi); };
  auto pick = [&](uint32_t n) { return random.pick(n); };
  const Rect area{6, 3, 71, 55};
  Trace trace;
  const int32_t color0 = add_image(trace, Format::RGBA8, W, H);
  const int32_t color1 = add_image(trace, Format::RGBA16F, W, H);
  const int32_t ds = add_image(trace, Format::D24S8, W, H);
  const int32_t ms_color = add_image(trace, Format::RGBA8, W, H, 4);
  const int32_t ms_depth = add_image(trace, Format::D32F, W, H, 4);
  const int32_t resolved = add_image(trace, Format::RGBA8, W, H);
  for (int32_t image : {color0, ds}) {
    ImageContents contents;
    for (uint32_t i = 0; i < W * H; ++i)
      contents.pixels.push_back(image == ds ? Vec4(uniform(0.3, 1), float(pick(4)), 0, 0)
                                            : Vec4(uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1)));
    trace.images[size_t(image)].contents.push_back(contents);
  }

  Mesh mesh;
  mesh.index_bits = 16;
  const uint32_t kVertices = 300;
  for (uint32_t v = 0; v < kVertices; ++v) {
    const float w = uniform(0.5, 2);
    const float z = v % 17 == 0 ? uniform(-0.5, 0.2) : uniform(0, 1);
    mesh.positions.push_back(Vec4(uniform(-1.3, 1.3) * w, uniform(-1.3, 1.3) * w, z * w, w));
    mesh.colors.push_back(Vec4(uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1)));
  }
  for (uint32_t i = 0; i < 3 * 200; ++i) mesh.indices.push_back(pick(kVertices));
  mesh.position_components = 4;
  const int32_t m = add_mesh(trace, std::move(mesh));

  random.mesh = m;
  auto random_draw = [&](uint32_t slots) { return random.draw(slots); };

  Frame frame;
  {
    Attachment a0 = attachment(color0, LoadOp::load, StoreOp::store);
    Attachment a1 = attachment(color1, LoadOp::clear, StoreOp::store);
    a1.clear.color = Vec4(0.1f, 0.2f, 0.3f, 0.4f);
    Attachment a2 = attachment(ds, LoadOp::load, StoreOp::store);
    a2.stencil_load = LoadOp::load;
    a2.stencil_store = StoreOp::store;
    Subpass first = color_subpass({0, 1}, 2);
    for (int i = 0; i < 40; ++i) first.draws.push_back(random_draw(2));
    MidPassClear clear;
    clear.before_draw = 20;
    clear.color = {1};
    clear.depth = clear.stencil = true;
    clear.value.color = Vec4(0.9f, 0.1f, 0.5f, 1);
    clear.value.depth = 0.6f;
    clear.value.stencil = 1;
    clear.rects = {Rect{10, 8, 30, 20}, Rect{50, 30, 40, 40}};
    first.clears = {clear};
    Subpass second = color_subpass({1}, 2);
    for (int i = 0; i < 20; ++i) second.draws.push_back(random_draw(1));
    frame.passes.push_back(render_pass("main", {a0, a1, a2}, {first, second}, area));
  }
  {
    Attachment c = attachment(ms_color, LoadOp::clear, StoreOp::store);
    c.clear.color = Vec4(0.2f, 0.2f, 0.2f, 1);
    Attachment d = attachment(ms_depth, LoadOp::clear, StoreOp::store);
    d.clear.depth = 1.0f;
    Subpass sp = color_subpass({0}, 1);
    sp.resolve = {2};
    for (int i = 0; i < 30; ++i) sp.draws.push_back(random_draw(1));
    frame.passes.push_back(render_pass("msaa", {c, d, attachment(resolved, LoadOp::dont_care, StoreOp::store)}, {sp}));
  }
  trace.frames = {frame};
  return trace;
}

template <class T, class A1, class A2>
void expect_same_bits(const std::vector<T, A1>& a, const std::vector<T, A2>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  if (a.empty()) return;
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) return;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << " differs first at element " << i;
      return;
    }
}

TEST(SimPaths, TbdrEqualsImrBitForBit) {
  const Trace trace = random_scene();
  Capture imr;
  SimOptions imr_options;
  imr_options.path = RenderPath::imr;
  const RunStats imr_run = simulate(trace, make_models(), imr_options, &imr);
  ASSERT_EQ(imr.entries.size(), 6u);  // main: color0, color1, ds; msaa: ms_color, ms_depth, resolved

  // The scene is not trivial: many samples passed and the main color target changed a lot.
  EXPECT_GT(pass_stats(imr_run, 0).counters.samples_passed, 5000u);
  EXPECT_GT(pass_stats(imr_run, 1).counters.samples_passed, 5000u);

  for (const char* tile : {"8x8", "16x16", "32x32", "64x64", "24x40"}) {
    SCOPED_TRACE(tile);
    Capture tbdr;
    const RunStats tbdr_run = simulate(trace, make_models(tile), SimOptions{}, &tbdr);
    ASSERT_EQ(tbdr.entries.size(), imr.entries.size());
    for (size_t i = 0; i < imr.entries.size(); ++i) {
      const Capture::Entry& a = tbdr.entries[i];
      const Capture::Entry& b = imr.entries[i];
      const std::string what = "pass " + std::to_string(b.pass) + " " + b.slot;
      ASSERT_EQ(a.pass, b.pass);
      ASSERT_EQ(a.image, b.image);
      expect_same_bits(a.surface.color, b.surface.color, what + " color");
      expect_same_bits(a.surface.depth, b.surface.depth, what + " depth");
      expect_same_bits(a.surface.stencil, b.surface.stencil, what + " stencil");
    }
    for (uint32_t p = 0; p < 2; ++p) {
      const PassCounters& a = pass_stats(tbdr_run, p).counters;
      const PassCounters& b = pass_stats(imr_run, p).counters;
      EXPECT_EQ(a.primitives, b.primitives);
      EXPECT_EQ(a.fragments, b.fragments);
      EXPECT_EQ(a.fragments_shaded, b.fragments_shaded);
      EXPECT_EQ(a.samples_passed, b.samples_passed);
      EXPECT_EQ(a.clear_pixels, b.clear_pixels);
    }
  }
}

// Deferred colors (raster.h DeferredColors): a scene made for them. Opaque vertex_color draws
// (colors deferred to a flush) overlap and are interleaved with what must flush them first:
// blended vertex_color draws (which read the waiting colors), flat draws, partial write masks,
// discarding draws, a mid-pass clear of rectangles, a second subpass that blends onto the first's
// result, and the tile store. The IMR path never defers, so every stored surface must match the
// tiled one's bit for bit at every tile size.
Trace deferral_scene() {
  std::mt19937 rng(77);
  auto uniform = [&](double lo, double hi) { return float(std::uniform_real_distribution<double>(lo, hi)(rng)); };
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  const uint32_t W = 97, H = 70;
  Trace trace;
  const int32_t color = add_image(trace, Format::RGBA8, W, H);
  const int32_t depth = add_image(trace, Format::D32F, W, H);
  Mesh mesh;
  mesh.index_bits = 16;
  const uint32_t kVertices = 400;
  for (uint32_t v = 0; v < kVertices; ++v) {
    const float w = uniform(0.5, 2);
    mesh.positions.push_back(Vec4(uniform(-1.2, 1.2) * w, uniform(-1.2, 1.2) * w, uniform(0, 1) * w, w));
    mesh.colors.push_back(Vec4(uniform(-0.1, 1.1), uniform(0, 1), uniform(0, 1), uniform(0, 1)));
  }
  for (uint32_t i = 0; i < 3 * 300; ++i) mesh.indices.push_back(pick(kVertices));
  mesh.position_components = 4;
  const int32_t m = add_mesh(trace, std::move(mesh));
  // A full-screen quad, drawn opaque just before the mid-pass clear that ends the first subpass:
  // the clear must land on its stored colors, not under its waiting ones.
  Mesh quad;
  quad.index_bits = 16;
  quad.position_components = 4;
  for (auto [x, y] : {std::pair{-1.0f, -1.0f}, {1.0f, -1.0f}, {1.0f, 1.0f}, {-1.0f, 1.0f}}) {
    quad.positions.push_back(Vec4(x, y, 0.5f, 1));
    quad.colors.push_back(Vec4(0.5f + 0.4f * x, 0.5f - 0.4f * y, 0.25f, 1));
  }
  quad.indices = {0, 1, 2, 0, 2, 3};
  const int32_t q = add_mesh(trace, std::move(quad));
  auto random_draw = [&](bool blended_only) {
    Draw d = clip_draw(m);
    d.first_index = 3 * pick(250);
    d.index_count = 3 * (1 + pick(50));
    const uint32_t kind = blended_only ? 6 : pick(8);  // 0..4 opaque vertex_color (deferred), then the others
    if (kind != 5) {
      d.program.name = "vertex_color";
      d.program.params["tint"] = {uniform(0, 1.5), uniform(0, 1.5), uniform(0, 1.5), uniform(0, 1)};
    } else {
      d.program.params["color"] = {uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1)};
    }
    BlendAttachmentState b;
    if (kind == 6) {  // alpha blending: reads the waiting colors
      b.enable = true;
      b.src_color = BlendFactor::src_alpha;
      b.dst_color = BlendFactor::one_minus_src_alpha;
      b.src_alpha = BlendFactor::one;
      b.dst_alpha = BlendFactor::one_minus_src_alpha;
    }
    if (kind == 7) b.write_mask = 1 + pick(14);  // some channels only
    d.state.blend = {b};
    d.state.depth_test = pick(4) != 0;
    d.state.depth_write = pick(3) != 0;
    d.state.depth_compare = pick(2) ? CompareOp::less : CompareOp::always;
    d.state.cull = CullMode::none;
    if (pick(10) == 0) d.scissor = Rect{int32_t(pick(W / 2)), int32_t(pick(H / 2)), 1 + pick(W), 1 + pick(H)};
    return d;
  };
  Attachment c = attachment(color, LoadOp::clear, StoreOp::store);
  c.clear.color = Vec4(0.1f, 0.2f, 0.3f, 1);
  Attachment z = attachment(depth, LoadOp::clear, StoreOp::store);
  z.clear.depth = 1.0f;
  Subpass first = color_subpass({0}, 1);
  for (int i = 0; i < 60; ++i) first.draws.push_back(random_draw(false));
  Draw cover = clip_draw(q);
  cover.program.name = "vertex_color";
  cover.state.blend = {BlendAttachmentState{}};
  first.draws.back() = cover;
  MidPassClear clear;
  clear.before_draw = uint32_t(first.draws.size());  // after the last draw
  clear.color = {0};
  clear.value.color = Vec4(0.9f, 0.1f, 0.5f, 1);
  clear.rects = {Rect{7, 9, 31, 22}, Rect{50, 33, 40, 30}};
  first.clears = {clear};
  Subpass second = color_subpass({0}, 1);
  // Blended only: the first subpass's result (the clear included) shows through everywhere.
  for (int i = 0; i < 8; ++i) second.draws.push_back(random_draw(true));
  Frame frame;
  frame.passes.push_back(render_pass("deferral", {c, z}, {first, second}));
  trace.frames = {frame};
  return trace;
}

TEST(SimPaths, DeferredColorsEqualImrBitForBit) {
  const Trace trace = deferral_scene();
  // The scene defers: most of its draws are opaque vertex_color (defers_color's rule for an
  // RGBA8 target: that program, blending off, every channel written, no discard).
  size_t deferred = 0;
  for (const Subpass& sp : trace.frames[0].passes[0].subpasses)
    for (const Draw& d : sp.draws)
      deferred += d.program.name == "vertex_color" && !d.state.blend[0].enable && d.state.blend[0].write_mask == 0xf;
  EXPECT_GT(deferred, 30u);
  Capture imr;
  SimOptions imr_options;
  imr_options.path = RenderPath::imr;
  const RunStats imr_run = simulate(trace, make_models(), imr_options, &imr);
  ASSERT_EQ(imr.entries.size(), 2u);
  EXPECT_GT(pass_stats(imr_run, 0).counters.samples_passed, 20000u);
  for (const char* tile : {"8x8", "16x16", "32x32", "24x40"}) {
    SCOPED_TRACE(tile);
    Capture tbdr;
    const RunStats tbdr_run = simulate(trace, make_models(tile), SimOptions{}, &tbdr);
    ASSERT_EQ(tbdr.entries.size(), imr.entries.size());
    for (size_t i = 0; i < imr.entries.size(); ++i) {
      expect_same_bits(tbdr.entries[i].surface.color, imr.entries[i].surface.color, tbdr.entries[i].slot + " color");
      expect_same_bits(tbdr.entries[i].surface.depth, imr.entries[i].surface.depth, tbdr.entries[i].slot + " depth");
    }
    EXPECT_EQ(pass_stats(tbdr_run, 0).counters.samples_passed, pass_stats(imr_run, 0).counters.samples_passed);
  }
}

// Freed huge-page regions are kept and handed out again (sim/huge_pages.cpp), with what the last
// user wrote: a vector of zeros over them must still read zeros.
TEST(HugePages, FreedRegionsComeBackAndVectorsStillStartZeroed) {
  constexpr size_t kBytes = size_t(8) << 20;
  release_kept_huge_pages();  // whatever earlier tests in this process left kept
  void* first = allocate_huge_pages(kBytes);
  std::memset(first, 0xab, kBytes);
  free_huge_pages(first, kBytes);
  void* again = allocate_huge_pages(kBytes);
  // The kept region, not a fresh mapping (which the kernel may place at the same address, zeroed).
  EXPECT_EQ(again, first);
  EXPECT_EQ(static_cast<const unsigned char*>(again)[kBytes - 1], 0xab);
  std::memset(again, 0xcd, kBytes);
  free_huge_pages(again, kBytes);
  std::vector<uint32_t, HugePageAllocator<uint32_t>> counts(kBytes / sizeof(uint32_t));
  EXPECT_EQ(static_cast<void*>(counts.data()), first);
  EXPECT_TRUE(std::all_of(counts.begin(), counts.end(), [](uint32_t c) { return c == 0; }));
}

// A region mapped anew is known to read as zeros once (huge_pages_fresh); a kept region handed out
// again holds what its last user wrote, so it is not fresh, and a Surface over it is still zeroed.
TEST(HugePages, OnlyNewMappingsAreFreshAndOnlyOnce) {
  constexpr size_t kBytes = size_t(8) << 20;
  release_kept_huge_pages();
  void* first = allocate_huge_pages(kBytes);
  EXPECT_TRUE(huge_pages_fresh(first, kBytes));
  EXPECT_FALSE(huge_pages_fresh(first, kBytes));
  std::memset(first, 0xab, kBytes);
  free_huge_pages(first, kBytes);
  void* again = allocate_huge_pages(kBytes);
  EXPECT_EQ(again, first);
  EXPECT_FALSE(huge_pages_fresh(again, kBytes));
  free_huge_pages(again, kBytes);
  EXPECT_FALSE(huge_pages_fresh(nullptr, 100));  // small arrays come from the heap
  // Two 1024x512 RGBA8 images (8 MiB of colors each): the first on the kept region, 0xab bytes
  // and all, the second mapped anew; both read as zeros.
  ImageDesc desc;
  desc.width = 1024;
  desc.height = 512;
  const ImageStore images({desc, desc});
  EXPECT_EQ(static_cast<const void*>(images.surface(0, 0, 0).color.data()), first);
  for (int32_t image : {0, 1}) {
    const Surface& s = images.surface(image, 0, 0);
    EXPECT_TRUE(std::all_of(s.color.begin(), s.color.end(), [](const Vec4& c) { return c == Vec4::Zero(); }));
  }
}

// A trace's ImageStore leaves unzeroed only surfaces whose zeros no pass can see: on kept regions full
// of another run's bytes, a surface first loaded, one cleared over part of it only, and one first
// written by a copy still read as zeros; one cleared and stored whole by its first pass is not
// zeroed (it may keep the old bytes: every pixel is written before anything reads it).
TEST(HugePages, TraceImagesWhoseZerosAPassCanSeeAreZeroedOnReusedRegions) {
  constexpr uint32_t W = 1024, H = 512;  // 8 MiB of RGBA8 colors (Vec4): a kept huge-page region
  constexpr size_t kBytes = size_t(W) * H * sizeof(Vec4);
  Trace trace;
  const int32_t loaded = add_image(trace, Format::RGBA8, W, H);
  const int32_t partly_cleared = add_image(trace, Format::RGBA8, W, H);
  const int32_t copied_into = add_image(trace, Format::RGBA8, W, H);
  const int32_t cleared_whole = add_image(trace, Format::RGBA8, W, H);
  Frame frame;
  frame.passes.push_back(render_pass("load", {attachment(loaded, LoadOp::load, StoreOp::store)}, {color_subpass({0})}));
  frame.passes.push_back(render_pass("part", {attachment(partly_cleared, LoadOp::clear, StoreOp::store)},
                                     {color_subpass({0})}, Rect{0, 0, W / 2, H}));
  Pass copy;
  copy.name = "copy";
  copy.type = PassType::copy;
  copy.reads = {ImageRef{cleared_whole}};
  copy.writes = {ImageRef{copied_into}};
  frame.passes.push_back(copy);
  frame.passes.push_back(render_pass("whole", {attachment(cleared_whole, LoadOp::clear, StoreOp::store)},
                                     {color_subpass({0})}));
  trace.frames = {frame};
  release_kept_huge_pages();
  std::vector<void*> regions;
  for (int i = 0; i < 4; ++i) regions.push_back(allocate_huge_pages(kBytes));
  for (void* r : regions) std::memset(r, 0xab, kBytes);
  for (void* r : regions) free_huge_pages(r, kBytes);
  const ImageStore images(trace, 2);
  for (int32_t image : {loaded, partly_cleared, copied_into}) {
    SCOPED_TRACE(image);
    const Surface& s = images.surface(image, 0, 0);
    EXPECT_TRUE(std::find(regions.begin(), regions.end(), static_cast<const void*>(s.color.data())) != regions.end());
    EXPECT_TRUE(std::all_of(s.color.begin(), s.color.end(), [](const Vec4& c) { return c == Vec4::Zero(); }));
  }
}

// From 1 MiB an array is mapped on its own, 2 MiB aligned and marked for huge pages
// (sim/huge_pages.cpp): the million-triangle frame's per-primitive arrays (4,147,200 B each) were
// below the old 4 MiB threshold and took a 4 KiB page fault each 4 KiB of their first run.
TEST(HugePages, ArraysFromOneMebibyteStartOnAHugePageBoundary) {
  constexpr size_t kHugePage = size_t(2) << 20;
  for (const size_t bytes : {size_t(1) << 20, size_t(4147200), size_t(3) << 20}) {
    SCOPED_TRACE(bytes);
    void* p = allocate_huge_pages(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePage, 0u);
    std::memset(p, 1, bytes);  // the whole request is mapped
    free_huge_pages(p, bytes);
  }
}

// The lit program (untextured imports): Lambert with its default directional light, so a face whose
// normal points at the light is brighter than one lit at a grazing angle, and a face turned away
// keeps the ambient term only (traces/README.md, program table).
TEST(SimPrograms, LitFaceTowardTheLightIsBrighterThanAtGrazingAngle) {
  Trace trace;
  Draw draw;
  draw.program.name = "lit";
  draw.program.params["tint"] = {0.8f, 0.6f, 0.4f, 1};
  ImageStore images({});
  Footprints footprints;
  footprints.reset(trace);
  const CompiledProgram lit = compile_program(trace, draw, images, footprints, 4, 4);
  auto shade = [&](Eigen::Vector3f normal) {
    const float varyings[kVaryingCount] = {1, 1, 1, 1, 0, 0, normal[0], normal[1], normal[2]};
    FragmentInput in;
    in.varyings = varyings;
    Vec4 out;
    EXPECT_TRUE(shade_fragment(lit, in, &out, 1));
    return out;
  };
  const Eigen::Vector3f toward_light = Eigen::Vector3f(0.3f, 0.8f, 0.5f).normalized();
  // At a grazing angle: perpendicular to the light, tilted 10 degrees toward it.
  const Eigen::Vector3f side = Eigen::Vector3f(0.8f, -0.3f, 0).normalized();  // (0.3, 0.8, 0.5) . side = 0
  const float tilt = 10.0f * float(std::numbers::pi) / 180.0f;
  const Vec4 facing = shade(toward_light * 3.0f);  // not unit length: the program normalizes
  const Vec4 grazing = shade(side * std::cos(tilt) + toward_light * std::sin(tilt));
  const Vec4 away = shade(-toward_light);
  for (int c = 0; c < 3; ++c) {
    EXPECT_GT(facing[c], grazing[c]) << c;
    EXPECT_GT(grazing[c], away[c]) << c;
  }
  // Facing: albedo x (ambient 0.25 + light 0.75 x 1); away: albedo x ambient; alpha kept.
  EXPECT_NEAR(facing[0], 0.8f, 1e-6f);
  EXPECT_NEAR(away[1], 0.6f * 0.25f, 1e-6f);
  EXPECT_NEAR(grazing[2], 0.4f * (0.25f + 0.75f * std::sin(tilt)), 1e-5f);
  EXPECT_EQ(facing[3], 1.0f);
}

}  // namespace
}  // namespace tbdr
