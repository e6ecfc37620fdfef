// Pathological geometry: degenerate and zero-area triangles, collinear vertices, w = 0 and
// behind the eye, coordinates far outside the guard band (1e6, 1e30, the float maximum), denormals:
// each renders (the TBDR image equals the IMR image bit for bit, no crash; the sanitizer build checks
// there is no undefined behaviour such as a float-to-fixed overflow) or, for NaN/Inf and index values
// out of range, the reader rejects it with one InputError naming the place.
#include <fcntl.h>
#include "test_paths.h"
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "sim/frame.h"
#include "sim/pipeline.h"
#include "sim/surface.h"

namespace tbdr {
namespace {

constexpr uint32_t kSize = 64;
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kDenorm = std::numeric_limits<float>::denorm_min();

class Capture final : public ImageSink {
 public:
  std::vector<Surface> surfaces;
  void stored(const StoredImage& image) override { surfaces.push_back(*image.surface); }
};

// One pass: RGBA8 color cleared to black + D32F depth cleared to 1; every triangle (clip-space
// positions, 3 per triangle) drawn flat white with the depth test on and no culling.
Trace scene(const std::vector<Vec4>& positions, const std::vector<uint32_t>& indices = {}) {
  Trace trace;
  trace.name = "robustness";
  for (Format f : {Format::RGBA8, Format::D32F}) {
    ImageDesc d;
    d.name = "image" + std::to_string(trace.images.size());
    d.format = f;
    d.width = d.height = kSize;
    trace.images.push_back(d);
  }
  Mesh mesh;
  mesh.name = "mesh";
  mesh.position_components = 4;
  mesh.positions = positions;
  mesh.indices = indices;
  trace.meshes.push_back(mesh);
  Draw draw;
  draw.mesh = 0;
  draw.transform.clip_space = true;
  draw.state.depth_test = true;
  draw.state.depth_write = true;
  draw.state.cull = CullMode::none;
  draw.program.params["color"] = {1, 1, 1, 1};
  draw.first_index = 0;
  draw.index_count = uint32_t(indices.empty() ? positions.size() : indices.size());
  Attachment color, depth;
  color.image = 0;
  color.load = LoadOp::clear;
  color.store = StoreOp::store;
  color.clear.color = Vec4(0, 0, 0, 1);
  depth.image = 1;
  depth.load = LoadOp::clear;
  depth.store = StoreOp::store;
  depth.clear.depth = 1.0f;
  Subpass sp;
  sp.color = {0};
  sp.depth = 1;
  sp.draws = {draw};
  Pass pass;
  pass.name = "main";
  pass.attachments = {color, depth};
  pass.subpasses = {sp};
  Frame frame;
  frame.passes = {pass};
  trace.frames = {frame};
  return trace;
}

// Renders on both paths (two tile sizes for TBDR), expects identical images, returns the number of
// color pixels the draw touched (not black).
uint64_t render_both(const Trace& trace) {
  auto run = [&](RenderPath path, const std::string& tile) {
    models::Configuration config = models::Configuration::from_preset("reference");
    if (!tile.empty()) config.set_tile(tile);
    SimOptions options;
    options.path = path;
    options.threads = 2;
    Capture capture;
    simulate(trace, models::build_models(config), options, &capture);
    return capture.surfaces;
  };
  const std::vector<Surface> imr = run(RenderPath::imr, "");
  for (const char* tile : {"16x16", "32x32"}) {
    const std::vector<Surface> tbdr = run(RenderPath::tbdr, tile);
    EXPECT_EQ(tbdr.size(), imr.size());
    for (size_t i = 0; i < std::min(tbdr.size(), imr.size()); ++i) {
      const Surface& a = tbdr[i];
      const Surface& b = imr[i];
      EXPECT_EQ(a.color.size(), b.color.size());
      EXPECT_EQ(a.depth.size(), b.depth.size());
      if (a.color.size() == b.color.size() && !a.color.empty()) {
        EXPECT_EQ(std::memcmp(a.color.data(), b.color.data(), a.color.size() * sizeof(Vec4)), 0) << tile << " color";
      }
      if (a.depth.size() == b.depth.size() && !a.depth.empty()) {
        EXPECT_EQ(std::memcmp(a.depth.data(), b.depth.data(), a.depth.size() * sizeof(float)), 0) << tile << " depth";
      }
    }
  }
  uint64_t touched = 0;
  if (!imr.empty())
    for (const Vec4& c : imr[0].color) touched += c[0] != 0 ? 1 : 0;
  return touched;
}

Vec4 v(float x, float y, float z = 0.5f, float w = 1.0f) { return Vec4(x, y, z, w); }

TEST(RobustnessGeometry, DegenerateAndZeroAreaTrianglesCoverNothing) {
  EXPECT_EQ(render_both(scene({v(0.1f, 0.1f), v(0.1f, 0.1f), v(0.1f, 0.1f)})), 0u);  // one point
  EXPECT_EQ(render_both(scene({v(-0.5f, 0), v(0.5f, 0), v(-0.5f, 0)})), 0u);         // two equal vertices
  EXPECT_EQ(render_both(scene({v(-0.9f, -0.9f), v(0, 0), v(0.9f, 0.9f)})), 0u);      // collinear diagonal
  EXPECT_EQ(render_both(scene({v(-1, 0.25f), v(1, 0.25f), v(0.5f, 0.25f)})), 0u);   // collinear horizontal
  // Collinear far outside the guard band, and a needle thinner than the subpixel grid.
  EXPECT_EQ(render_both(scene({v(-1e6f, -1e6f), v(0, 0), v(1e6f, 1e6f)})), 0u);
  EXPECT_EQ(render_both(scene({v(-1, 0), v(1, 0), v(0, 1e-7f)})), 0u);
}

TEST(RobustnessGeometry, WZeroAndBehindTheEyeAreClipped) {
  // A vertex at w = 0, one with negative w (behind the eye), all behind, and w = -0.
  render_both(scene({v(-0.5f, -0.5f), v(0.5f, -0.5f), v(0, 0.5f, 0, 0)}));
  render_both(scene({v(-0.5f, -0.5f), v(0.5f, -0.5f), v(0, 0.5f, -0.5f, -1)}));
  EXPECT_EQ(render_both(scene({v(-0.5f, -0.5f, 0.5f, -1), v(0.5f, -0.5f, 0.5f, -1), v(0, 0.5f, 0.5f, -1)})), 0u);
  EXPECT_EQ(render_both(scene({v(0, 0, 0, 0), v(0, 0, 0, 0), v(0, 0, 0, 0)})), 0u);
  render_both(scene({v(1, 1, 0, -0.0f), v(-0.5f, -0.5f), v(0.5f, -0.5f)}));
  // A triangle through the eye plane that still covers part of the screen: something is drawn.
  EXPECT_GT(render_both(scene({v(-0.5f, -0.5f), v(0.5f, -0.5f), v(0, 5, 0.5f, -1)})), 0u);
}

TEST(RobustnessGeometry, CoordinatesFarOutsideTheGuardBand) {
  // A triangle around the whole viewport with vertices at 1e6 covers every pixel.
  EXPECT_EQ(render_both(scene({v(-1e6f, -1e6f), v(3e6f, -1e6f), v(-1e6f, 3e6f)})), uint64_t(kSize) * kSize);
  // 1e30, the float maximum, and tiny w (huge after the divide): no crash, TBDR == IMR.
  for (float big : {1e30f, -1e30f, kMax, -kMax}) {
    SCOPED_TRACE(big);
    render_both(scene({v(-big, -big), v(3 * (big / 4), -big), v(-big, 3 * (big / 4))}));
    render_both(scene({v(0, 0), v(big, 0), v(0, big)}));
    render_both(scene({v(0, 0), v(big, big, 0.5f, big), v(-big, big, 0.5f, kMax)}));
    render_both(scene({v(-0.5f, -0.5f), v(0.5f, -0.5f), v(big, big, big, 1)}));
    render_both(scene({v(-0.5f, -0.5f), v(0.5f, -0.5f), v(0.5f, 0.5f, 0.5f, 1e-30f)}));
  }
}

TEST(RobustnessGeometry, Denormals) {
  render_both(scene({v(kDenorm, 0), v(0, kDenorm), v(-kDenorm, -kDenorm)}));
  render_both(scene({v(-0.5f, -0.5f, kDenorm, kDenorm), v(0.5f, -0.5f, kDenorm, kDenorm), v(0, 0.5f)}));
  render_both(scene({v(-0.5f, -0.5f, 0, kDenorm), v(0.5f, -0.5f, 0, kDenorm), v(0, 0.5f, 0, kDenorm)}));
  // A denormal offset to an ordinary triangle changes nothing visible.
  EXPECT_GT(render_both(scene({v(-0.5f, -0.5f, kDenorm), v(0.5f, -0.5f), v(0, 0.5f + kDenorm)})), 0u);
}

// ---- rejected by the reader ----------------------------------------------------------------------

std::string trace_json(const std::string& mesh) {
  return R"({"format": "tbdrsim-trace", "version": 1,
    "images": [{"name": "color", "format": "RGBA8", "width": 16, "height": 16}],
    "meshes": [)" + mesh + R"(],
    "frames": [{"passes": [{"name": "main", "attachments": [{"image": "color", "load": "clear"}],
      "subpasses": [{"color": [0], "draws": [{"mesh": "m", "program": {"name": "flat"}}]}]}]}]})";
}

// Expects an InputError whose message (one line) contains `fragment`.
void expect_rejected(const std::string& mesh, const std::string& fragment, const std::filesystem::path& dir) {
  SCOPED_TRACE(mesh);
  try {
    read_trace_text(trace_json(mesh), dir, "robust.json");
    ADD_FAILURE() << "accepted; expected an InputError containing \"" << fragment << "\"";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

class RobustnessReader : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() / ("tbdr_robustness_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  void write_floats(const std::string& name, const std::vector<float>& values) {
    std::ofstream(m_dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(float)));
  }
  std::filesystem::path m_dir;
};

TEST_F(RobustnessReader, HugeIndexValuesAreRejected) {
  const std::string p = R"("positions": [0,0,0, 1,0,0, 0,1,0])";
  expect_rejected(R"({"name": "m", )" + p + R"(, "indices": [0, 1, 4294967295]})", "index 2", m_dir);
  expect_rejected(R"({"name": "m", )" + p + R"(, "indices": [0, 1, 4294967296]})", "/meshes/0/indices/2: index 4294967296", m_dir);
  expect_rejected(R"({"name": "m", )" + p + R"(, "indices": [0, 1, 1e30]})", "/meshes/0/indices/2: expected an integer >= 0", m_dir);
  expect_rejected(R"({"name": "m", )" + p + R"(, "indices": [0, 1, -1]})", "/meshes/0/indices/2: expected an integer >= 0", m_dir);
  expect_rejected(R"({"name": "m", )" + p + R"(, "indices": [0, 1, 70000], "index_bits": 16})", "index_bits 16", m_dir);
}

TEST_F(RobustnessReader, NonFiniteValuesAreRejected) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  write_floats("nan.bin", {0, 0, 0, 1, 0, 0, nan, 1, 0});
  write_floats("inf.bin", {0, 0, 0, inf, 0, 0, 0, 1, 0});
  write_floats("ninf.bin", {0, 0, 0, 1, 0, 0, 0, 1, -inf});
  for (const char* file : {"nan.bin", "inf.bin", "ninf.bin"})
    expect_rejected(std::string(R"({"name": "m", "positions": {"file": ")") + file + R"(", "count": 9}})",
                    "non-finite", m_dir);
  // A JSON number beyond the float range becomes infinite: rejected, not rendered.
  expect_rejected(R"({"name": "m", "positions": [0,0,0, 1e39,0,0, 0,1,0]})", "/meshes/0/positions: vertex 1 has a non-finite", m_dir);
  expect_rejected(R"({"name": "m", "positions": [0,0,0, 1,0,0, 0,-1e300,0]})", "/meshes/0/positions: vertex 2 has a non-finite", m_dir);
}

TEST_F(RobustnessReader, HugeAndDenormalPositionsAreAccepted) {
  // Finite values are valid input however large or small; they render (above) rather than fail.
  EXPECT_NO_THROW(read_trace_text(trace_json(R"({"name": "m", "positions": [0,0,0, 1e30,0,0, 0,1e-45,0]})"), m_dir,
                                  "robust.json"));
}

// ---- interrupted runs ------------------------------------------------------------------------------

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool has_temporaries(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
  return false;
}

// SIGTERM, SIGINT, SIGHUP, SIGQUIT or SIGPIPE while `tbdrsim run` is staging outputs of a
// slow trace: the staged files are removed, outputs from before stay as they were, the report is not
// written, and the exit code is 128 + the signal with a message on stderr.
TEST_F(RobustnessReader, InterruptedRunRemovesItsTemporaries) {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE}) {
    SCOPED_TRACE(strsignal(sig));
    const std::filesystem::path out = m_dir / "out", err = m_dir / "stderr.txt";
    std::filesystem::create_directories(out);
    const std::filesystem::path earlier = out / "f0_p00_pre_z_att0_depth.png";
    std::ofstream(earlier) << "an earlier output";
    const std::string bin = TBDR_BINARY_DIR + "/tbdrsim";
    const std::string trace = TBDR_SOURCE_DIR + "/traces/seed002/forward_baseline.json";
    const std::string json = (out / "report.json").string(), out_arg = out.string();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::execl(bin.c_str(), bin.c_str(), "run", trace.c_str(), "--out", out_arg.c_str(), "--json", json.c_str(),
              "--threads", "1", "--quiet", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait until the run has staged a file (it is mid-run), then interrupt it.
    bool staged = false;
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 12000 && !staged; ++i) {
      staged = has_temporaries(out);
      if (!staged && ::waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      if (!staged) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_FALSE(exited) << "the run ended before staging anything: " << read_file(err);
    ASSERT_TRUE(staged) << "no staged file appeared";
    ::kill(pid, sig);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    const std::string message = read_file(err);
    EXPECT_NE(message.find("interrupted by"), std::string::npos) << message;
    EXPECT_FALSE(has_temporaries(out)) << "staged files left behind";
    EXPECT_EQ(read_file(earlier), "an earlier output");
    EXPECT_FALSE(std::filesystem::exists(json)) << "the report of an interrupted run is not written";
    std::filesystem::remove_all(out);
  }
}

}  // namespace
}  // namespace tbdr
