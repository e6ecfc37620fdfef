// Parameter-buffer overflow (the param_buffer kind, models/README.md): a full buffer flushes what is
// binned (an incremental render) with every attachment stored and reloaded; exact flush counts and bytes
// on a tiny pass, and pixels identical to an unbounded run on every bundled trace.
#include <gtest/gtest.h>
#include "test_paths.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/geometry.h"
#include "sim/pipeline.h"
#include "sim/stats.h"
#include "sim/surface.h"
#include "tests/configured_models.h"
#include "tests/stored_images.h"

namespace fs = std::filesystem;

namespace tbdr {
namespace {

struct Result {
  RunStats stats;
  StoredImages stored;
  const PassStats& pass(size_t index = 0) const { return stats.frames.at(0).passes.at(index); }
};

Result run(const Trace& trace, const std::vector<std::string>& assignments, const std::string& preset = "reference",
           uint32_t threads = 1) {
  const models::ModelSet models = configured_models(preset, assignments);
  Result r;
  SimOptions options;
  options.threads = threads;
  r.stats = simulate(trace, models, options, &r.stored);
  return r;
}

std::vector<std::string> capacity(uint64_t bytes) {
  return {"param_buffer=fixed", "param_buffer.capacity=" + std::to_string(bytes)};
}

// 64x32 framebuffer, 16x16 tiles (4 x 2 = 8 tiles): RGBA8 color CLEAR + STORE and a transient D32F
// depth CLEAR + DONT_CARE; three flat triangles without varyings, each inside one tile (tiles 0,
// 1 and 2), drawn with depth test. Each primitive fills 48 B (3 x 16 B record) + 4 B (one entry) =
// 52 B of the parameter buffer (traces/README.md), 156 B for the three.
Trace three_triangles() {
  Trace trace;
  trace.path = "three_triangles.json";
  ImageDesc color;
  color.name = "color";
  color.format = Format::RGBA8;
  color.width = 64;
  color.height = 32;
  color.usage = kUsageColorAttachment | kUsageTransferSrc;
  trace.images.push_back(color);
  ImageDesc depth;
  depth.name = "depth";
  depth.format = Format::D32F;
  depth.width = 64;
  depth.height = 32;
  depth.usage = kUsageDepthStencilAttachment;
  depth.transient = true;
  trace.images.push_back(depth);
  Pass pass;
  pass.name = "main";
  Attachment c;
  c.image = 0;
  c.load = LoadOp::clear;
  c.store = StoreOp::store;
  c.clear.color = Vec4(0.2f, 0.4f, 0.6f, 1.0f);
  Attachment d;
  d.image = 1;
  d.load = LoadOp::clear;
  d.store = StoreOp::dont_care;
  d.clear.depth = 1.0f;
  pass.attachments = {c, d};
  Subpass sp;
  sp.color = {0};
  sp.depth = 1;
  for (int t = 0; t < 3; ++t) {
    Mesh m;
    m.name = "tri" + std::to_string(t);
    m.position_components = 4;
    const double x0 = 16.0 * t + 2, z = 0.3 + 0.1 * t;
    for (auto [px, py] : std::vector<std::pair<double, double>>{{x0, 2}, {x0 + 12, 2}, {x0, 14}})
      m.positions.push_back(Vec4(float(2.0 * px / 64 - 1.0), float(2.0 * py / 32 - 1.0), float(z), 1.0f));
    trace.meshes.push_back(m);
    Draw draw;
    draw.mesh = t;
    draw.transform.clip_space = true;
    draw.state.depth_test = true;
    draw.state.depth_write = true;
    draw.program.params["color"] = {0.1f * float(t + 1), 0.8f, 0.3f, 1.0f};
    sp.draws.push_back(draw);
  }
  pass.subpasses.push_back(sp);
  Frame frame;
  frame.passes.push_back(pass);
  trace.frames.push_back(frame);
  return trace;
}

// Full-size transfers of the whole 64x32 area: color 4 B/px, depth 4 B/px.
constexpr uint64_t kFlushBytes = 64 * 32 * (4 + 4);  // 16,384 B per flush, each way
constexpr uint64_t kColorStore = 64 * 32 * 4;         // the API's final store, 8,192 B

TEST(ParamBuffer, ExactFlushesAndBytesAtTheBoundary) {
  const Trace trace = three_triangles();
  const Result unbounded = run(trace, {});
  const PassStats& u = unbounded.pass();
  EXPECT_EQ(u.counters.param_buffer_flushes, 0u);
  EXPECT_EQ(u.dram[DramCategory::tile_list].write_bytes, 156u);
  EXPECT_EQ(u.dram[DramCategory::attachment_store].write_bytes, kColorStore);
  EXPECT_EQ(u.dram[DramCategory::attachment_load].read_bytes, 0u);

  // (capacity, flushes): 156 B hold all three (N); 155 B flush once before the third (N - 1); 104 B
  // hold two, so once; 103 B hold one, so twice; a capacity below one primitive renders each alone.
  for (auto [bytes, flushes] : std::vector<std::pair<uint64_t, uint64_t>>{{156, 0}, {155, 1}, {104, 1}, {103, 2}, {1, 2}}) {
    SCOPED_TRACE("capacity " + std::to_string(bytes));
    const Result r = run(trace, capacity(bytes));
    const PassStats& p = r.pass();
    EXPECT_EQ(p.counters.param_buffer_flushes, flushes);
    EXPECT_EQ(p.counters.param_buffer_flush_store_bytes, flushes * kFlushBytes);
    EXPECT_EQ(p.counters.param_buffer_flush_load_bytes, flushes * kFlushBytes);
    // The flushes' bytes land in the attachment categories; the transient depth is stored and
    // reloaded by them although the API never stores it.
    EXPECT_EQ(p.dram[DramCategory::attachment_store].write_bytes, kColorStore + flushes * kFlushBytes);
    EXPECT_EQ(p.dram[DramCategory::attachment_load].read_bytes, flushes * kFlushBytes);
    EXPECT_EQ(p.dram_nominal[DramCategory::attachment_store].write_bytes, kColorStore + flushes * kFlushBytes);
    // The same geometry is binned and read whatever the capacity.
    EXPECT_EQ(p.dram[DramCategory::tile_list], u.dram[DramCategory::tile_list]);
    EXPECT_EQ(p.counters.tile_list_entries, 3u);
    EXPECT_EQ(p.counters.empty_tiles, 5u);
    EXPECT_EQ(p.counters.fragments, u.counters.fragments);
    ASSERT_EQ(r.stored.images.size(), 1u);
    EXPECT_TRUE(same_pixels(r.stored.images.begin()->second, unbounded.stored.images.begin()->second));
  }
}

// The capacity is a parameter of param_buffer=fixed only: unbounded reads none.
TEST(ParamBuffer, CapacityBelongsToFixed) {
  models::Configuration config = models::Configuration::from_preset("reference");
  config.apply("param_buffer.capacity=100");
  EXPECT_THROW(models::build_models(config), InputError);
  config.apply("param_buffer=fixed");
  config.apply("param_buffer.capacity=0");
  EXPECT_THROW(models::build_models(config), InputError);
}

// Every bundled trace renders the same pixels with a parameter buffer a third of its largest
// pass's binned bytes (so every pass with two or more primitives above it flushes) as without
// one: under the reference preset (1 thread), and under a preset with savers, another tile size
// and HSR (mali-g710: 32x32, AFBC, TE, empty tiles, FPK; 2 threads).
TEST(ParamBuffer, BundledTracesBitIdenticalUnderFlushes) {
  size_t traces = 0, flushed = 0;
  for (const char* folder : {"default", "features", "savers"}) {
    for (const auto& e : fs::directory_iterator(fs::path(TBDR_SOURCE_DIR) / "traces" / folder)) {
      if (e.path().extension() != ".json") continue;
      SCOPED_TRACE(e.path().string());
      const Trace trace = read_trace(e.path());
      for (const char* preset : {"reference", "mali-g710"}) {
        SCOPED_TRACE(preset);
        const Result reference = run(trace, {}, preset);
        uint64_t largest = 0, most_primitives = 0;
        for (const FrameStats& f : reference.stats.frames)
          for (const PassStats& p : f.passes) {
            largest = std::max(largest, p.dram[DramCategory::tile_list].write_bytes);
            most_primitives = std::max(most_primitives, p.counters.primitives);
          }
        const Result r = run(trace, capacity(std::max<uint64_t>(1, largest / 3)), preset, preset[0] == 'r' ? 1 : 2);
        uint64_t flushes = 0;
        for (const FrameStats& f : r.stats.frames)
          for (const PassStats& p : f.passes) flushes += p.counters.param_buffer_flushes;
        if (most_primitives >= 2 && largest > 0) {
          EXPECT_GE(flushes, 1u);
        }
        flushed += flushes > 0 ? 1 : 0;
        ASSERT_EQ(r.stored.images.size(), reference.stored.images.size());
        for (const auto& [key, surface] : reference.stored.images) {
          const auto it = r.stored.images.find(key);
          ASSERT_NE(it, r.stored.images.end()) << key;
          EXPECT_TRUE(same_pixels(it->second, surface)) << key;
        }
      }
      ++traces;
    }
  }
  EXPECT_GE(traces, 20u);
  EXPECT_GE(flushed, 20u);
}

// three_triangles() at 256x128 plus a 300x221 grid of 132,600 vertex-colored triangles (66,822
// vertices), its depth falling from -0.2 to 0.9 across it so the near plane clips a strip, drawn
// twice (two instances): large enough for geometry on several threads (sim/geometry.cpp: a draw of
// 2 x 16384 or more triangles, a mesh of 65536 or more vertices).
Trace grid_trace() {
  Trace trace = three_triangles();
  for (ImageDesc& image : trace.images) {
    image.width = 256;
    image.height = 128;
  }
  constexpr uint32_t kCols = 300, kRows = 221;
  Mesh grid;
  grid.name = "grid";
  grid.position_components = 4;
  for (uint32_t j = 0; j <= kRows; ++j)
    for (uint32_t i = 0; i <= kCols; ++i) {
      const float u = float(i) / kCols, v = float(j) / kRows;
      grid.positions.push_back(Vec4(2.2f * u - 1.1f, 2.2f * v - 1.1f, 1.1f * u - 0.2f, 1.0f));
      grid.colors.push_back(Vec4(u, v, float((i * 7 + j * 3) % 11) / 10.0f, 1.0f));
    }
  for (uint32_t j = 0; j < kRows; ++j)
    for (uint32_t i = 0; i < kCols; ++i) {
      const uint32_t a = j * (kCols + 1) + i, b = a + 1, c = a + kCols + 1, d = c + 1;
      grid.indices.insert(grid.indices.end(), {a, b, c, b, d, c});
    }
  grid.index_bits = 32;
  trace.meshes.push_back(grid);
  Draw draw = trace.frames[0].passes[0].subpasses[0].draws[0];
  draw.mesh = int32_t(trace.meshes.size()) - 1;
  draw.instance_count = 2;
  draw.program.name = "vertex_color";
  draw.program.params.clear();
  trace.frames[0].passes[0].subpasses[0].draws.push_back(draw);
  return trace;
}

// Every field of every primitive, in order, as integers (floats by their bits).
void append_fields(const ScreenPrims& s, size_t first, size_t last, std::vector<int64_t>& out) {
  auto bits = [](float f) { return int64_t(std::bit_cast<uint32_t>(f)); };
  for (size_t p = first; p < last; ++p) {
    for (int v = 0; v < 3; ++v) {
      const ScreenVertex& sv = s.vertex_of(v, p);
      out.insert(out.end(), {sv.x, sv.y, bits(sv.z), bits(sv.inv_w)});
      for (int k = 0; k < s.varying_stride; ++k) out.push_back(bits(s.varyings_of(v, p)[k]));
    }
    out.insert(out.end(), {s.draw[p], s.front_facing[p], s.min_x[p], s.min_y[p], s.max_x[p], s.max_y[p]});
  }
}

// Geometry on 5 threads emits the primitives of one thread, field for field and in the same order,
// and the same counts: whole, and through an `emitted` callback that drops what it is given but
// the last 100 (as a parameter-buffer flush renders and drops the primitives before the one that
// overflows), at whatever batches it is called with; the kept ones live on through the vertex
// pool's compaction and are compared when they are dropped.
TEST(ParamBuffer, GeometryOnSeveralThreadsEmitsThePrimitivesOfOne) {
  Trace trace = grid_trace();
  // Three more draws of the grid (one instance each): through the callback, which drops what it
  // has seen, the screen-vertex pool drops at each draw boundary the vertices of the draws no held
  // primitive uses (the held primitives' indices move), which must change no primitive.
  std::vector<Draw>& grid_draws = trace.frames[0].passes[0].subpasses[0].draws;
  for (int k = 0; k < 3; ++k) {
    grid_draws.push_back(grid_draws.back());
    grid_draws.back().instance_count = 1;
  }
  constexpr size_t kGridVertices = 66822;
  const Subpass& sp = trace.frames[0].passes[0].subpasses[0];
  std::vector<PassDraw> draws(sp.draws.size());
  for (size_t d = 0; d < draws.size(); ++d) {
    draws[d].draw = &sp.draws[d];
    draws[d].index_in_subpass = uint32_t(d);
    draws[d].viewport = Viewport{0, 0, 256, 128, 0, 1};
    draws[d].scissor = Rect{0, 0, 256, 128};
  }
  std::vector<int64_t> fields[2][2];  // [one thread, five][whole, through the callback]
  PassCounters counts[2][2];
  for (int t = 0; t < 2; ++t)
    for (int c = 0; c < 2; ++c) {
      ScreenPrims prims;
      prims.varying_stride = 4;
      Traffic traffic;
      size_t calls = 0;
      EmittedFn drop;
      if (c == 1)
        drop = [&](ScreenPrims& out, size_t) {
          const size_t dropped = out.size() - std::min<size_t>(out.size(), 100);
          append_fields(out, 0, dropped, fields[t][c]);
          out.erase_front(dropped);
          ++calls;
        };
      transform_draws(trace, draws, 0, draws.size(), prims, counts[t][c], traffic, nullptr, drop, t == 0 ? 1 : 5);
      append_fields(prims, 0, prims.size(), fields[t][c]);
      if (c == 1) {
        EXPECT_GE(calls, 3u);  // batches of ~8k primitives on one thread, rounds of ~131k on five
        // The first grid draws' vertices were dropped (all four grids' would be over 4 x 66,822).
        EXPECT_LT(prims.vertices.size(), 3 * kGridVertices) << t;
      } else {
        EXPECT_GE(prims.vertices.size(), 4 * kGridVertices) << t;
      }
    }
  EXPECT_GT(counts[0][0].primitives, 200000u);
  EXPECT_GT(counts[0][0].primitives_clipped, 0u);
  for (int c = 0; c < 2; ++c) {
    EXPECT_TRUE(counts[1][c] == counts[0][0]) << c;
    EXPECT_TRUE(fields[1][c] == fields[0][0]) << c;
    EXPECT_TRUE(fields[0][c] == fields[0][0]) << c;
  }
}

// A pass on several threads flushes the parameter buffer in the middle of geometry's rounds, and
// renders, counts and stores exactly what one thread does (5 threads: rounds of 131,072 triangles,
// so the parameter buffer also sizes its batches, 65,536 primitives or more, on the threads).
TEST(ParamBuffer, GeometryOnSeveralThreadsEqualsOneUnderFlushes) {
  const Trace trace = grid_trace();
  const Result one = run(trace, capacity(300000), "mali-g710", 1);
  const Result five = run(trace, capacity(300000), "mali-g710", 5);
  const PassStats &a = one.pass(), &b = five.pass();
  EXPECT_GE(a.counters.param_buffer_flushes, 50u);
  EXPECT_GT(a.counters.primitives_clipped, 0u);
  EXPECT_GT(a.counters.primitives, 200000u);
  EXPECT_TRUE(a.counters == b.counters);
  EXPECT_TRUE(a.dram == b.dram);
  EXPECT_TRUE(a.dram_nominal == b.dram_nominal);
  EXPECT_EQ(a.cycles.fragment, b.cycles.fragment);
  ASSERT_EQ(one.stored.images.size(), five.stored.images.size());
  for (const auto& [key, surface] : one.stored.images) EXPECT_TRUE(same_pixels(five.stored.images.at(key), surface)) << key;
}

// Geometry on several threads writes each block's primitives into the slots of its own triangles
// (one primitive a triangle) and closes up afterwards: bands of triangles crossing the near plane
// (each clipped to a quad, two primitives: a block of them overflows its slots, and the blocks
// after it move right) alternate with bands of zero-area triangles (culled: slots left unused,
// the blocks after move left). On 2 to 7 threads the primitives, their clipped vertices and the
// counts equal one thread's, field for field and in order.
TEST(ParamBuffer, GeometryBlocksThatOverflowOrLeaveSlotsEqualOneThread) {
  Trace trace = three_triangles();
  Mesh bands;
  bands.name = "bands";
  bands.position_components = 4;
  constexpr uint32_t kTriangles = 80000, kBand = 12000, kColumns = 1000;
  for (uint32_t t = 0; t < kTriangles; ++t) {
    const float x = -1.0f + 2.0f * float(t % kColumns) / kColumns, y = -1.0f + 2.0f * float(t / kColumns) / 80;
    const bool clipped = (t / kBand) % 2 == 0;
    const uint32_t a = uint32_t(bands.positions.size());
    bands.positions.push_back(Vec4(x, y, 0.5f, 1.0f));
    bands.positions.push_back(Vec4(x + 0.0015f, y, 0.5f, 1.0f));
    bands.positions.push_back(clipped ? Vec4(x, y + 0.02f, -0.5f, 1.0f) : Vec4(x, y, 0.5f, 1.0f));
    for (int k = 0; k < 3; ++k) bands.colors.push_back(Vec4(float(t % 7) / 7, float(k) / 3, 0.5f, 1.0f));
    bands.indices.insert(bands.indices.end(), {a, a + 1, a + 2});
  }
  bands.index_bits = 32;
  trace.meshes.push_back(bands);
  Draw draw = trace.frames[0].passes[0].subpasses[0].draws[0];
  draw.mesh = int32_t(trace.meshes.size()) - 1;
  draw.state.cull = CullMode::none;
  const std::vector<PassDraw> draws{PassDraw{&draw, 0, 0, Viewport{0, 0, 256, 128, 0, 1}, Rect{0, 0, 256, 128}}};
  std::vector<int64_t> one_fields;
  PassCounters one_counts;
  for (uint32_t threads : {1u, 2u, 3u, 5u, 7u}) {
    ScreenPrims prims;
    prims.varying_stride = 4;
    PassCounters counts;
    Traffic traffic;
    transform_draws(trace, draws, 0, 1, prims, counts, traffic, nullptr, {}, threads);
    std::vector<int64_t> fields;
    append_fields(prims, 0, prims.size(), fields);
    if (threads == 1) {
      EXPECT_EQ(counts.primitives_clipped, 44000u);  // bands 0, 2, 4 (12,000 triangles each) and 6 (8,000)
      EXPECT_EQ(counts.primitives, 88000u);          // two a clipped triangle
      EXPECT_EQ(counts.primitives_culled, 36000u);
      one_fields = fields;
      one_counts = counts;
      continue;
    }
    EXPECT_TRUE(counts == one_counts) << threads;
    EXPECT_TRUE(fields == one_fields) << threads;
  }
}

}  // namespace
}  // namespace tbdr
