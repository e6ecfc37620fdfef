// tools/capture and tools/rdc2trace on bad input and on recordings (ctest label `external`): damaged
// captures, other APIs, frames past the end, GFXReconstruct replays, several frames at once.
#include "tests/capture_common.h"

namespace {

// Bad input around OpenGL ES captures: a damaged capture (the build scene's cut in half), a capture
// of an unsupported API and a frame past the program's end: one line naming the file or program,
// exit code 2, nothing written.
TEST_F(CaptureTest, DamagedOtherApiAndFramePastTheEndAreOneLine) {
  const Captured& c = glmark2("build");
  ASSERT_TRUE(c.ok) << c.log;
  const fs::path dir = scratch_root() / "gl_bad_input";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string whole = read_file(c.rdc);
  std::ofstream(dir / "damaged.rdc", std::ios::binary) << whole.substr(0, whole.size() / 2);
  const Command r = run(kTools + "rdc2trace damaged.rdc -o out/frame.json", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("damaged.rdc"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // A capture of an API the converter does not read: the header's driver (RDCDriver 9, "OpenGLES",
  // in the capture's metadata after the thumbnail) rewritten to id 4 and the same-length "Direct3D".
  std::string d3d = whole;
  const size_t name = d3d.find(std::string("OpenGLES\0", 9));
  ASSERT_NE(name, std::string::npos);
  ASSERT_GE(name, 5u);
  ASSERT_EQ(d3d.substr(name - 5, 5), std::string("\x09\x00\x00\x00\x09", 5));
  d3d[name - 5] = '\x04';
  d3d.replace(name, 9, std::string("Direct3D\0", 9));
  std::ofstream(dir / "direct3d.rdc", std::ios::binary) << d3d;
  const Command api = run(kTools + "rdc2trace direct3d.rdc -o out/frame.json", dir);
  EXPECT_EQ(api.exit_code, 2);
  EXPECT_NE(api.err.find("direct3d.rdc: a Direct3D capture"), std::string::npos) << api.err;
  EXPECT_EQ(std::count(api.err.begin(), api.err.end(), '\n'), 1) << api.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  const Command past = run(kTools + "capture glmark2-es2 --frame 100000 --out past.rdc -- -b build:duration=1 -s 64x64", dir);
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_NE(past.err.find("glmark2-es2: the program ended before frame 100000"), std::string::npos) << past.err;
  EXPECT_EQ(std::count(past.err.begin(), past.err.end(), '\n'), 1) << past.err;
  EXPECT_FALSE(fs::exists(dir / "past.rdc"));
  remove_scratch(dir);
}

// A GFXReconstruct recording of vkcube (made here with the gfxreconstruct layer) replayed by
// gfxrecon-replay under tools/capture: the same render pass and draw as the live program.
TEST(CaptureTools, GfxrRecordingIsReplayedAndCaptured) {
  const fs::path dir = scratch_root() / "gfxr";
  fs::create_directories(dir);
  const Command record = run("VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE=cube.gfxr "
                             "GFXRECON_CAPTURE_FILE_TIMESTAMP=false " + kTools + "lavapipe_run vkcube --c 12 --suppress_popups",
                             dir);
  ASSERT_EQ(record.exit_code, 0) << record.err;
  ASSERT_TRUE(fs::exists(dir / "cube.gfxr"));
  Captured c;
  c.dir = dir;
  c.rdc = dir / "cube.rdc";
  c.trace = dir / "cube.json";
  const Command cap = run(kTools + "capture cube.gfxr --frame 3 --out cube.rdc", dir);
  ASSERT_EQ(cap.exit_code, 0) << cap.err;
  const Command conv = run(kTools + "rdc2trace cube.rdc -o cube.json", dir);
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  const Trace trace = read_trace(c.trace);
  const std::vector<std::pair<std::string, std::string>> expected = {{"clear", "store"}, {"clear", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  EXPECT_EQ(captured_ops(c), expected);
  const Draw& draw = trace.frames[0].passes.at(0).subpasses.at(0).draws.at(0);
  EXPECT_EQ(trace.meshes[size_t(draw.mesh)].positions.size(), 36u);
  remove_scratch(dir);
}

// Several frames in one launch: their output names need {frame} (tools/capture) or {name}
// (tools/rdc2trace), and when one frame is never reached none is written: one line, exit code 2.
TEST(CaptureTools, SeveralFramesAreAllWrittenOrNone) {
  const fs::path dir = scratch_root() / "several_frames";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto expect_one_line = [&](const Command& r, const std::string& text) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  expect_one_line(run(kTools + "capture glmark2-es2 --frame 1,3 --out x.rdc", dir), "--out x.rdc: several frames need {frame}");
  expect_one_line(run(kTools + "capture glmark2-es2 --frame 3,3 --out 'x{frame}.rdc'", dir), "--frame 3,3: expected");
  expect_one_line(run(kTools + "rdc2trace a.rdc b.rdc -o out.json", dir), "-o out.json: several captures need {name}");
  const Command past = run(kTools + "capture glmark2-es2 --frame 1,100000 --out 'past{frame}.rdc' -- -b build:nframes=3 -s 64x64", dir);
  expect_one_line(past, "glmark2-es2: the program ended before frame 100000 was captured");
  for (const auto& e : fs::directory_iterator(dir)) ADD_FAILURE() << "written: " << e.path();
  remove_scratch(dir);
}

// Bad input: one line naming the file, exit code 2, nothing written.
TEST(CaptureTools, BadInputIsOneLineAndWritesNothing) {
  const fs::path dir = scratch_root() / "bad_input";
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream(dir / "not_a_capture.rdc") << "this is not a RenderDoc capture\n";
  }
  for (const std::string& input : {std::string("missing.rdc"), std::string("not_a_capture.rdc")}) {
    const Command r = run(kTools + "rdc2trace " + input + " -o out.json", dir);
    EXPECT_EQ(r.exit_code, 2) << input;
    EXPECT_NE(r.err.find(input), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.json"));
    EXPECT_FALSE(fs::exists(dir / "out.bin"));
    EXPECT_FALSE(fs::exists(dir / "out_captured"));
  }
  const Command r = run(kTools + "capture no-such-program --out x.rdc", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-program"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir / "x.rdc"));
  // Hidden staging folders are gone too.
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_NE(e.path().filename().string()[0], '.') << e.path();
  remove_scratch(dir);
}

}  // namespace
