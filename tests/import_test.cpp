// Scene import (`tbdrsim import`, traces/README.md "Imported scenes"): glTF 2.0 / OBJ files from
// installed Debian packages (assimp-testmodels, glmark2-data) round-trip into traces whose vertex and
// triangle counts equal what the files declare; bad input is one line naming the file, exit code 2, and
// no output.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <sys/wait.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "frontend/import_scene.h"
#include "frontend/trace_reader.h"
#include "tests/require_external.h"
#include "tools/commands/image_diff.h"
#include "tools/commands/output.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kAssimp = "/usr/share/assimp/models/glTF2/";
const std::string kBunny = "/usr/share/glmark2/models/bunny.obj";

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(TBDR_BINARY_DIR) / "test-scratch" / "import" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The glTF JSON of a .gltf, or the JSON chunk of a .glb (glTF 2.0 section 4.4).
json gltf_json(const fs::path& file) {
  const std::string bytes = slurp(file);
  if (file.extension() != ".glb") return json::parse(bytes);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return json::parse(bytes.substr(20, length));
}

// What the file declares: vertices of each mesh primitive (POSITION count), triangles of every
// node instance (index count / 3, or (count - 2) for strips and fans).
struct Declared {
  uint64_t vertices = 0, triangles = 0;
};
Declared declared_gltf(const fs::path& file) {
  const json g = gltf_json(file);
  Declared d;
  std::vector<uint64_t> mesh_triangles;
  for (const json& m : g["meshes"]) {
    uint64_t tris = 0;
    for (const json& p : m["primitives"]) {
      const uint64_t vertices = g["accessors"][p["attributes"]["POSITION"].get<size_t>()]["count"];
      d.vertices += vertices;
      const uint64_t n =
          p.contains("indices") ? g["accessors"][p["indices"].get<size_t>()]["count"].get<uint64_t>() : vertices;
      const int mode = p.value("mode", 4);
      tris += mode == 4 ? n / 3 : n - 2;
    }
    mesh_triangles.push_back(tris);
  }
  for (const json& n : g["nodes"])
    if (n.contains("mesh")) d.triangles += mesh_triangles[n["mesh"].get<size_t>()];
  return d;
}

struct CliResult {
  int exit_code;
  std::string out, err;
};
CliResult cli(const std::string& args, const fs::path& dir) {
  const std::string cmd = std::string("'" + TBDR_BINARY_DIR + "/tbdrsim' ") + args + " > '" +
                          (dir / "stdout.txt").string() + "' 2> '" + (dir / "stderr.txt").string() + "'";
  const int status = std::system(cmd.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout.txt"), slurp(dir / "stderr.txt")};
  fs::remove(dir / "stdout.txt");
  fs::remove(dir / "stderr.txt");
  return r;
}

#define REQUIRE_FILE(path) \
  if (!fs::exists(path))   \
  TBDR_SKIP_OR_FAIL(path << " not installed (tools/setup.sh installs assimp-testmodels, glmark2-data)")

// Imports, reads the trace back through the reader (folder check included) and checks the counts.
void round_trip(const fs::path& scene, uint64_t vertices, uint64_t triangles, const std::string& label) {
  const fs::path dir = scratch(label);
  const tbdr::ImportSummary s = tbdr::import_scene(scene, dir / "trace" / "scene.json");
  EXPECT_EQ(s.vertices, vertices) << label;
  EXPECT_EQ(s.triangles, triangles) << label;
  const tbdr::Trace trace = tbdr::read_trace(dir / "trace" / "scene.json");
  uint64_t read_vertices = 0, read_triangles = 0;
  for (const auto& m : trace.meshes) read_vertices += m.positions.size();
  for (const auto& pass : trace.frames.at(0).passes)
    for (const auto& sp : pass.subpasses)
      for (const auto& draw : sp.draws) read_triangles += draw.index_count / 3;
  EXPECT_EQ(read_vertices, vertices) << label << ": vertices in the written trace";
  EXPECT_EQ(read_triangles, triangles) << label << ": triangles in the written trace";
  // Self-contained: nothing outside the folder is named, every texture is a PNG in it.
  for (const auto& e : fs::directory_iterator(dir / "trace")) {
    const std::string ext = e.path().extension().string();
    EXPECT_TRUE(ext == ".json" || ext == ".bin" || ext == ".png") << e.path();
  }
}

// Bad input: exit 2, one line on stderr naming the file, and no output folder content.
void expect_refused(const fs::path& scene, const std::string& expected, const std::string& label) {
  const fs::path dir = scratch(label);
  const CliResult r = cli("import '" + scene.string() + "' -o '" + (dir / "out" / "t.json").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 2) << label << ": " << r.err;
  EXPECT_NE(r.err.find(scene.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(!fs::exists(dir / "out") || fs::is_empty(dir / "out")) << label << ": output left behind";
  // `run` refuses it the same way and writes no image.
  const CliResult run = cli("run '" + scene.string() + "' --out '" + (dir / "images").string() + "'", dir);
  EXPECT_EQ(run.exit_code, 2) << label;
  EXPECT_TRUE(!fs::exists(dir / "images") || fs::is_empty(dir / "images")) << label;
}

}  // namespace

TEST(Import, BoxTexturedGltfRoundTrip) {
  const fs::path f = kAssimp + "BoxTextured-glTF/BoxTextured.gltf";
  REQUIRE_FILE(f);
  const Declared d = declared_gltf(f);
  EXPECT_EQ(d.vertices, 24u);
  EXPECT_EQ(d.triangles, 12u);
  round_trip(f, d.vertices, d.triangles, "BoxTextured_gltf");
}

TEST(Import, BoxTexturedGlbAndEmbeddedRoundTrip) {
  for (const char* rel : {"BoxTextured-glTF-Binary/BoxTextured.glb", "BoxTextured-glTF-Embedded/BoxTextured.gltf"}) {
    const fs::path f = kAssimp + rel;
    REQUIRE_FILE(f);
    const Declared d = declared_gltf(f);
    round_trip(f, d.vertices, d.triangles, fs::path(rel).parent_path().string());
  }
}

TEST(Import, TwoCylinderEngineGlbRoundTrip) {
  const fs::path f = kAssimp + "2CylinderEngine-glTF-Binary/2CylinderEngine.glb";
  REQUIRE_FILE(f);
  const Declared d = declared_gltf(f);
  EXPECT_GT(d.triangles, 100000u);
  round_trip(f, d.vertices, d.triangles, "2CylinderEngine");
}

TEST(Import, StripAndFanConvertedToLists) {
  for (const char* rel : {"Mesh_PrimitiveMode_04.gltf", "Mesh_PrimitiveMode_05.gltf"}) {
    const fs::path f = kAssimp + "glTF-Asset-Generator/Mesh_PrimitiveMode/" + rel;
    REQUIRE_FILE(f);
    const Declared d = declared_gltf(f);
    // No NORMAL: the untextured (lit) mesh gets flat normals, three vertices of its own per triangle.
    EXPECT_FALSE(gltf_json(f)["meshes"][0]["primitives"][0]["attributes"].contains("NORMAL"));
    round_trip(f, 3 * d.triangles, d.triangles, rel);
  }
}

TEST(Import, BunnyObjRoundTrip) {
  REQUIRE_FILE(kBunny);
  // Declared: `v` lines, and every `f` line of n vertices is n - 2 triangles.
  std::ifstream in(kBunny);
  std::string line;
  uint64_t v = 0, tris = 0;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string key;
    s >> key;
    if (key == "v") ++v;
    if (key == "f") {
      int n = 0;
      std::string tok;
      while (s >> tok) ++n;
      tris += uint64_t(n - 2);
    }
  }
  EXPECT_EQ(v, 34835u);
  EXPECT_EQ(tris, 69666u);
  // No vn lines: the untextured (lit) mesh gets flat normals, three vertices of its own per triangle.
  round_trip(kBunny, 3 * tris, tris, "bunny");
}

// assimp's spider.mtl names its texture ".\\SpiderTex.jpg" (a Windows path): found beside the OBJ.
TEST(Import, MtlTexturePathWithBackslashesResolves) {
  const fs::path f = "/usr/share/assimp/models/OBJ/spider.obj";
  REQUIRE_FILE(f);
  const tbdr::ImportSummary s = tbdr::import_scene(f, scratch("spider") / "s.json");
  EXPECT_GE(s.textures, 1u);
}

TEST(Import, SceneCameraAndAutomaticCamera) {
  const fs::path f = kAssimp + "cameras/Cameras.gltf";
  REQUIRE_FILE(f);
  const fs::path dir = scratch("cameras");
  const tbdr::ImportSummary scene_camera = tbdr::import_scene(f, dir / "a" / "s.json");
  EXPECT_FALSE(scene_camera.automatic_camera);
  // No size given: 640 wide, the height from the scene camera's aspect ratio, and the summary says so.
  EXPECT_EQ(scene_camera.width, 640u);
  EXPECT_EQ(scene_camera.height, tbdr::read_trace(dir / "a" / "s.json").images.at(0).height);
  EXPECT_NE(scene_camera.size_reason.find("camera's aspect ratio"), std::string::npos) << scene_camera.size_reason;
  tbdr::ImportOptions o;
  o.camera = "auto";
  o.width = 320;
  o.height = 200;
  const tbdr::ImportSummary automatic = tbdr::import_scene(f, dir / "b" / "s.json", o);
  EXPECT_TRUE(automatic.automatic_camera);
  EXPECT_EQ(automatic.size_reason, "width given, height given");
  const tbdr::Trace t = tbdr::read_trace(dir / "b" / "s.json");
  EXPECT_EQ(t.images.at(0).width, 320u);
  EXPECT_EQ(t.images.at(0).height, 200u);
  o.camera = "7";
  EXPECT_THROW(tbdr::import_scene(f, dir / "c" / "s.json", o), tbdr::InputError);
}

TEST(Import, RunAcceptsAGltfFileDirectly) {
  const fs::path f = kAssimp + "BoxTextured-glTF-Binary/BoxTextured.glb";
  REQUIRE_FILE(f);
  const fs::path dir = scratch("run_direct");
  const CliResult r = cli("run '" + f.string() + "' --quiet --out '" + (dir / "out").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "f0_p00_main_att0_color.png"));
}

TEST(Import, BadInputIsOneLineExitTwoNoOutput) {
  REQUIRE_FILE(kAssimp + "MissingBin/BoxTextured.gltf");
  expect_refused(kAssimp + "MissingBin/BoxTextured.gltf", "BoxTextured0.bin", "missing_bin");
  expect_refused(kAssimp + "IndexOutOfRange/IndexOutOfRange.gltf", "out of range", "index_out_of_range");
  expect_refused(kAssimp + "RecursiveNodes/RecursiveNodes.gltf", "cycle", "recursive_nodes");
  expect_refused(kAssimp + "IncorrectVertexArrays/Cube.gltf", "not a multiple of 3", "incorrect_vertex_arrays");
  expect_refused(kAssimp + "BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", "not finite", "infinites");
  expect_refused(kAssimp + "draco/2CylinderEngine.gltf", "malformed glTF", "draco");
  expect_refused(kAssimp + "TestNoRootNode/SceneWithoutNodes.gltf", "no triangles", "scene_without_nodes");
}

// glTF's POINTS, LINES, LINE_LOOP and LINE_STRIP (the Khronos glTF-Asset-Generator's Mesh_PrimitiveMode
// models 00-03 without indices, 07-10 with them: 1,024 points, a square's four sides as 4 lines, a loop
// of 4 vertices, a strip of 4 segments) become the trace's points, lines (a loop closed by its last
// segment) and line_strip meshes, drawn unlit in the base color; TBDR equals IMR on them.
TEST(Import, PointsLinesLoopsAndStripsAreCarried) {
  const std::string folder = kAssimp + "glTF-Asset-Generator/Mesh_PrimitiveMode/";
  REQUIRE_FILE(folder + "Mesh_PrimitiveMode_00.gltf");
  struct Case {
    const char* model;
    const char* topology;
    size_t indices;
    uint64_t lines, points;
  };
  const Case cases[] = {{"00", "points", 1024, 0, 1024}, {"01", "lines", 8, 4, 0}, {"02", "lines", 8, 4, 0},
                        {"03", "line_strip", 5, 4, 0},   {"07", "points", 1024, 0, 1024}, {"08", "lines", 8, 4, 0},
                        {"09", "lines", 8, 4, 0},        {"10", "line_strip", 5, 4, 0}};
  for (const Case& c : cases) {
    const fs::path dir = scratch(std::string("primitive_mode_") + c.model);
    const tbdr::ImportSummary s =
        tbdr::import_scene(folder + "Mesh_PrimitiveMode_" + c.model + ".gltf", dir / "trace" / "t.json");
    EXPECT_EQ(s.triangles, 0u) << c.model;
    EXPECT_EQ(s.lines, c.lines) << c.model;
    EXPECT_EQ(s.points, c.points) << c.model;
    const json written = gltf_json(dir / "trace" / "t.json");
    EXPECT_EQ(written["meshes"][0]["topology"], c.topology) << c.model;
    EXPECT_EQ(written["frames"][0]["passes"][0]["subpasses"][0]["draws"][0]["program"]["name"], "flat") << c.model;
    const tbdr::Trace trace = tbdr::read_trace(dir / "trace" / "t.json");
    EXPECT_EQ(trace.meshes.at(0).indices.size(), c.indices) << c.model;
    if (std::string(c.model) == "02")  // the loop's closing segment: (3, 0) after (0, 1), (1, 2), (2, 3)
      EXPECT_EQ(trace.meshes.at(0).indices, (std::vector<uint32_t>{0, 1, 1, 2, 2, 3, 3, 0}));
    for (const char* path : {"tbdr", "imr"}) {
      const std::string flag = std::string(path) == "imr" ? " --imr" : "";
      const CliResult r = cli("run '" + (dir / "trace" / "t.json").string() + "' --quiet" + flag + " --out '" +
                              (dir / path).string() + "'", dir);
      EXPECT_EQ(r.exit_code, 0) << c.model << ": " << r.err;
    }
    const std::string image = "f0_p00_main_att0_color.png";
    EXPECT_EQ(slurp(dir / "tbdr" / image), slurp(dir / "imr" / image)) << c.model << ": TBDR and IMR images differ";
  }
}

TEST(Import, MissingTextureAndMalformedObj) {
  const fs::path box = kAssimp + "BoxTextured-glTF/";
  REQUIRE_FILE(box / "BoxTextured.gltf");
  // A copy of BoxTextured without its PNG.
  const fs::path dir = scratch("missing_texture_src");
  fs::copy_file(box / "BoxTextured.gltf", dir / "BoxTextured.gltf");
  fs::copy_file(box / "BoxTextured0.bin", dir / "BoxTextured0.bin");
  expect_refused(dir / "BoxTextured.gltf", "missing or cannot be decoded", "missing_texture");
  // OBJ: a face naming a vertex that does not exist, and a map_Kd file that does not exist.
  const fs::path obj_dir = scratch("bad_obj_src");
  std::ofstream(obj_dir / "bad.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n";
  expect_refused(obj_dir / "bad.obj", "out of range", "bad_obj");
  // tinyobjloader reads an unparsable coordinate as 0: refused before it gets there, at the line.
  const std::pair<const char*, const char*> numbers[] = {{"v 0 0 nan", "bad_obj.obj:2: v line: \"nan\""},
                                                         {"v 0 0 abc", "bad_obj.obj:2: v line: \"abc\""},
                                                         {"v 0 0", "bad_obj.obj:2: v line: 2 numbers"},
                                                         {"vn 0 inf 1", "bad_obj.obj:2: vn line: \"inf\""}};
  for (const auto& [line, expected] : numbers) {
    std::ofstream(obj_dir / "bad_obj.obj") << "v 1 0 0\n" << line << "\nv 0 1 0\nv 0 0 1\nf 1 3 4\n";
    expect_refused(obj_dir / "bad_obj.obj", expected, "bad_obj_numbers");
  }
  std::ofstream(obj_dir / "tex.mtl") << "newmtl m\nKd 1 1 1\nmap_Kd nothere.png\n";
  std::ofstream(obj_dir / "tex.obj")
      << "mtllib tex.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl m\nf 1/1 2/2 3/3\n";
  expect_refused(obj_dir / "tex.obj", "nothere.png", "obj_missing_texture");
}

// A .glb cut short inside its BIN chunk is refused naming the chunk, and a whole one still imports
// from memory: the importer checks the chunk layout itself because the Debian tinygltf reads up to 8
// bytes past such a file's end (frontend/import_gltf.cpp read_glb). Likewise an image's bufferView
// past its buffer (load_image_checked).
TEST(Import, GlbChunkPastTheEndIsRefused) {
  const fs::path box = kAssimp + "BoxTextured-glTF-Binary/BoxTextured.glb";
  REQUIRE_FILE(box);
  std::ifstream in(box, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 100u);
  const fs::path dir = scratch("glb_truncated_src");
  // Drop the last 4 bytes and shrink the header's length to match: only the BIN chunk overruns.
  std::string cut = bytes.substr(0, bytes.size() - 4);
  const uint32_t length = uint32_t(cut.size());
  std::memcpy(cut.data() + 8, &length, 4);
  std::ofstream(dir / "cut.glb", std::ios::binary) << cut;
  expect_refused(dir / "cut.glb", "chunk 1's chunkLength", "glb_truncated");
  // The header's length beyond the file is refused too.
  std::string longer = bytes;
  const uint32_t beyond = uint32_t(bytes.size() + 8);
  std::memcpy(longer.data() + 8, &beyond, 4);
  std::ofstream(dir / "long.glb", std::ios::binary) << longer;
  expect_refused(dir / "long.glb", "exceeds the file", "glb_length_beyond");
  // An embedded image whose bufferView runs past its buffer (tinygltf would hand the decoder the
  // bytes past it): the fuzzers' input, refused naming the view.
  expect_refused(fs::path(TBDR_SOURCE_DIR) / "tests/data/fuzz_regressions/gltf-image-view-past-buffer.glb",
                 "bufferView 3 (2433 bytes at 840) lies beyond its buffer (2642 bytes)", "image_view_past_buffer");
  // A texture that is neither PNG nor JPEG (a 1x1 BMP; stb_image has a BMP decoder) is refused.
  const fs::path box_gltf = kAssimp + "BoxTextured-glTF/";
  const fs::path bmp_dir = scratch("bmp_texture_src");
  fs::copy_file(box_gltf / "BoxTextured.gltf", bmp_dir / "BoxTextured.gltf");
  fs::copy_file(box_gltf / "BoxTextured0.bin", bmp_dir / "BoxTextured0.bin");
  std::string bmp(54, '\0');  // a 1x1 24-bit BMP: file header, info header, one pixel
  bmp[0] = 'B', bmp[1] = 'M', bmp[2] = 58, bmp[10] = 54, bmp[14] = 40, bmp[18] = 1, bmp[22] = 1, bmp[26] = 1,
  bmp[28] = 24;
  bmp += std::string("\x10\x20\x30\x00", 4);
  std::ofstream(bmp_dir / "CesiumLogoFlat.png", std::ios::binary) << bmp;
  expect_refused(bmp_dir / "BoxTextured.gltf", "neither PNG nor JPEG", "bmp_texture");
}

TEST(Import, DiffCommandFiguresAndExitCodes) {
  const fs::path dir = scratch("diff");
  std::vector<uint8_t> a(4 * 4 * 4, 100), b = a;
  b[0] = 101;  // within 1 LSB
  b[4] = 140;  // pixel 1 differs by 40
  const tbdr::ImageDiff d = tbdr::diff_pixels(a, b, 4, 4, 1);
  EXPECT_EQ(d.identical, 15u);
  EXPECT_EQ(d.max_abs_diff, 40);
  EXPECT_NEAR(d.psnr, 10 * std::log10(255.0 * 255.0 / ((1.0 + 1600.0) / 64.0)), 1e-9);
  // Through the CLI on the bundled checker texture against itself: identical, exit 0.
  const fs::path png = fs::path(TBDR_SOURCE_DIR) / "traces/default/checker.png";
  CliResult r =
      cli("diff '" + png.string() + "' '" + png.string() + "' --out '" + (dir / "heat.png").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("identical 100.000%"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir / "heat.png"));
  r = cli("diff '" + png.string() + "' '" + (fs::path(TBDR_SOURCE_DIR) / "traces/features/uv_test.png").string() + "'",
          dir);
  EXPECT_EQ(r.exit_code, 2) << "different sizes are bad input: " << r.err;
}

// diff's defaults are the correctness rule of traces/README.md (>= 99.8 % within 1 LSB, PSNR >= 54 dB): 100x100
// grey images with 10 pixels (0.1 %) off by 10 in red pass (MSE 10 x 100 / 40000 = 0.025: 64.1 dB),
// unless exactness is asked for; 10 pixels off by 40 fail on PSNR (MSE 0.4: 52.1 dB); 30 pixels off
// by 10 (0.3 %) fail on the fraction.
TEST(Import, DiffDefaultsAreTheCorrectnessRule) {
  const fs::path dir = scratch("diff_rule");
  auto write = [&](const std::string& name, int pixels, int delta) {
    std::vector<uint8_t> rgba(100 * 100 * 4, 128);
    for (int i = 0; i < pixels; ++i) rgba[size_t(i) * 97 * 4] = uint8_t(128 + delta);
    const std::vector<uint8_t> png = tbdr::encode_png({100, 100, 4, rgba});
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
    return "'" + (dir / name).string() + "'";
  };
  const std::string base = write("base.png", 0, 0);
  EXPECT_EQ(cli("diff " + base + " " + write("near.png", 10, 10), dir).exit_code, 0);
  EXPECT_EQ(cli("diff " + base + " " + write("near.png", 10, 10) + " --max-mismatch 0", dir).exit_code, 1);
  const CliResult loud = cli("diff " + base + " " + write("loud.png", 10, 40), dir);
  EXPECT_EQ(loud.exit_code, 1);
  EXPECT_NE(loud.out.find("PSNR >= 54.0 dB"), std::string::npos) << loud.out;
  EXPECT_EQ(cli("diff " + base + " " + write("many.png", 30, 10), dir).exit_code, 1);
}

namespace {

// A one-triangle glTF written beside its buffer: `attributes` are (name, floats per vertex, values)
// in buffer order; `extra` is merged into the top level, `material` and `mesh` into the first ones.
fs::path write_triangle_gltf(const fs::path& dir, const std::vector<std::tuple<std::string, int, std::vector<float>>>& attributes,
                             const json& extra, const json& material = json::object(), const json& mesh_extra = json::object()) {
  std::string bin;
  json accessors = json::array(), views = json::array(), attribute_map = json::object();
  for (const auto& [name, width, values] : attributes) {
    views.push_back({{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", values.size() * 4}});
    const std::string type = width == 2 ? "VEC2" : width == 3 ? "VEC3" : "VEC4";
    accessors.push_back({{"bufferView", views.size() - 1}, {"componentType", 5126}, {"count", 3}, {"type", type}});
    if (name == "POSITION") {
      accessors.back()["min"] = json::array({-1, -1, 0});
      accessors.back()["max"] = json::array({1, 1, 0});
    }
    if (name.rfind("TARGET:", 0) != 0) attribute_map[name] = accessors.size() - 1;
    bin.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  }
  std::ofstream(dir / "scene.bin", std::ios::binary) << bin;
  json primitive = {{"attributes", attribute_map}, {"material", 0}};
  json mesh = {{"name", "tri"}, {"primitives", std::vector<json>{primitive}}};
  mesh.update(mesh_extra);
  json g = {{"asset", {{"version", "2.0"}}},
            {"buffers", json::array({json::object({{"uri", "scene.bin"}, {"byteLength", bin.size()}})})},
            {"bufferViews", views}, {"accessors", accessors},
            {"materials", std::vector<json>{material}},
            {"meshes", std::vector<json>{mesh}},
            {"nodes", json::array({json::object({{"name", "tri_node"}, {"mesh", 0}})})},
            {"scenes", json::array({json::object({{"nodes", json::array({0})}})})}, {"scene", 0}};
  g.update(extra);
  std::ofstream(dir / "scene.gltf") << g.dump(1);
  return dir / "scene.gltf";
}

const std::vector<float> kTrianglePositions = {-1, -1, 0, 1, -1, 0, -1, 1, 0};

}  // namespace

// KHR_texture_transform: uv' = T(offset) R(rotation) S(scale) (u, v, 1), the extension's texCoord
// picking TEXCOORD_1 over the textureInfo's TEXCOORD_0, baked into the written uvs.
TEST(Import, KhrTextureTransformIsBakedIntoTheUvs) {
  const fs::path dir = scratch("texture_transform");
  const std::vector<uint8_t> png = tbdr::encode_png({2, 2, 4, std::vector<uint8_t>(16, 200)});
  std::ofstream(dir / "tex.png", std::ios::binary).write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
  const json transform = {{"offset", {0.5, 0.25}}, {"rotation", M_PI / 2}, {"scale", {2, 3}}, {"texCoord", 1}};
  // json::object for one-member objects: a braced single element is read differently by clang (helper_common).
  const json texture_info = {{"index", 0}, {"texCoord", 0}, {"extensions", json::object({{"KHR_texture_transform", transform}})}};
  const json material = json::object({{"pbrMetallicRoughness", json::object({{"baseColorTexture", texture_info}})}});
  const fs::path scene = write_triangle_gltf(
      dir, {{"POSITION", 3, kTrianglePositions}, {"TEXCOORD_0", 2, {0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f}}, {"TEXCOORD_1", 2, {0, 0, 1, 0, 0, 1}}},
      {{"extensionsUsed", json::array({"KHR_texture_transform"})}, {"images", json::array({json::object({{"uri", "tex.png"}})})},
       {"textures", json::array({json::object({{"source", 0}})})}},
      material);
  const tbdr::ImportSummary s = tbdr::import_scene(scene, dir / "out" / "t.json");
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  const tbdr::Trace t = tbdr::read_trace(dir / "out" / "t.json");
  ASSERT_EQ(t.meshes.at(0).uvs.size(), 3u);
  // By hand: (1, 0) -S-> (2, 0) -R(90 degrees: u' = v, v' = -u)-> (0, -2) -T-> (0.5, -1.75); (0, 1) ->
  // (0, 3) -> (3, 0) -> (3.5, 0.25); (0, 0) -> (0.5, 0.25).
  const float expected[3][2] = {{0.5f, 0.25f}, {0.5f, -1.75f}, {3.5f, 0.25f}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(t.meshes[0].uvs[i][0], expected[i][0], 1e-6f) << i;
    EXPECT_NEAR(t.meshes[0].uvs[i][1], expected[i][1], 1e-6f) << i;
  }
}

// A skinned node and a morphed mesh are drawn at their rest pose (base positions, node transform),
// and each feature not carried is named in one warning, printed once by `import` and once by `run`.
TEST(Import, SkinAndMorphTargetAtRestPoseWithEachWarningOnce) {
  const fs::path dir = scratch("skin_morph");
  const std::vector<float> displaced = {0, 0, 5, 0, 0, 5, 0, 0, 5};
  const std::vector<float> weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  const fs::path scene = write_triangle_gltf(
      dir, {{"POSITION", 3, kTrianglePositions}, {"WEIGHTS_0", 4, weights}, {"TARGET:POSITION", 3, displaced}},
      {{"extensionsUsed", json::array({"KHR_lights_punctual"})},
       {"skins", json::array({json::object({{"joints", json::array({1})}})})},
       {"animations", json::array({json::object({{"channels", json::array()}, {"samplers", json::array()}})})},
       {"cameras", std::vector<json>{{{"type", "perspective"}, {"perspective", {{"yfov", 0.8}, {"znear", 0.1}}}},
                                     {{"type", "perspective"}, {"perspective", {{"yfov", 0.5}, {"znear", 0.1}}}}}}},
      json::object({{"emissiveFactor", json::array({1, 0, 0})}}), json::object({{"weights", json::array({1.0})}}));
  // The skin on node 0, joint node 1 and the two cameras as children of the root; the target on the primitive.
  json g = json::parse(slurp(scene));
  g["nodes"][0]["skin"] = 0;
  g["nodes"][0]["children"] = {1, 2, 3};
  g["nodes"][0]["translation"] = {0, 0, -3};
  g["nodes"].push_back({{"name", "joint"}, {"translation", {0, 7, 0}}});
  g["nodes"].push_back({{"camera", 0}, {"translation", {0, 0, 3}}});
  g["nodes"].push_back({{"camera", 1}, {"translation", {0, 0, 4}}});
  g["meshes"][0]["primitives"][0]["targets"] = json::array({json::object({{"POSITION", 2}})});
  std::ofstream(scene) << g.dump(1);

  const CliResult r = cli("import '" + scene.string() + "' -o '" + (dir / "out" / "t.json").string() + "'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> expected = {
      "node 0 \"tri_node\": skin 0 not applied (joints and weights ignored); drawn at its rest pose",
      "mesh 0 \"tri\": morph targets ignored (weights ignored); drawn with its base positions",
      "extension KHR_lights_punctual is not supported: ignored",
      "1 animation(s) ignored: the scene is drawn at its rest pose",
      "material 0: emissiveFactor ignored (base color only)",
      "the scene has 2 cameras; camera 0 is used (--camera N picks another)"};
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (const std::string& w : expected) EXPECT_EQ(count(r.err, "warning: " + w), 1u) << w << "\n" << r.err;
  const CliResult run = cli("run '" + scene.string() + "' --out '" + (dir / "images").string() + "'", dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const std::string& w : expected) EXPECT_EQ(count(run.out + run.err, w), 1u) << w << "\n" << run.out << run.err;
  // Rest pose: the base positions (z = 0, not the target's 5), under the node's own transform.
  const tbdr::Trace t = tbdr::read_trace(dir / "out" / "t.json");
  for (const auto& p : t.meshes.at(0).positions) EXPECT_EQ(p[2], 0.0f);
  const auto& draw = t.frames.at(0).passes.at(0).subpasses.at(0).draws.at(0);
  EXPECT_EQ(draw.program.name, "lit");
  EXPECT_EQ(draw.transform.model(2, 3), -3.0f);
}

// Untextured draws are `lit`: normals from OBJ vn when every corner names one, else each face's own
// ((p1 - p0) x (p2 - p0), unit length) on three vertices of its own.
TEST(Import, NormalsFromVnOrFlatFromFaces) {
  const fs::path dir = scratch("normals");
  std::ofstream(dir / "vn.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 2\nf 1//1 2//1 3//1\n";
  std::ofstream(dir / "flat.obj") << "v 0 0 0\nv 0 0 2\nv 2 0 0\nv 5 5 5\nf 1 2 3\n";
  tbdr::import_scene(dir / "vn.obj", dir / "vn" / "t.json");
  tbdr::import_scene(dir / "flat.obj", dir / "flat" / "t.json");
  const tbdr::Trace vn = tbdr::read_trace(dir / "vn" / "t.json"), flat = tbdr::read_trace(dir / "flat" / "t.json");
  ASSERT_EQ(vn.meshes.at(0).normals.size(), 3u);
  for (const auto& n : vn.meshes[0].normals) EXPECT_EQ(n, Eigen::Vector3f(0, 0, 2));
  ASSERT_EQ(flat.meshes.at(0).normals.size(), 3u);  // the unused fourth vertex is gone
  for (const auto& n : flat.meshes[0].normals) EXPECT_EQ(n, Eigen::Vector3f(0, 1, 0));
  EXPECT_EQ(flat.frames.at(0).passes.at(0).subpasses.at(0).draws.at(0).program.name, "lit");
}
