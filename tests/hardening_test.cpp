// Hardening against hostile input (the hostile-input audits): output staging that cannot be redirected
// (class 1), importers as strict as the trace reader (class 2), bounded regular-file inputs (class 4),
// feedback loops refused (class 5), and the later audit's cases at the end. Each case is one line
// naming the file, exit code 2, no output; a failed write of stdout is exit code 1.
#include <fcntl.h>
#include "test_paths.h"
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/import_scene.h"
#include "frontend/staged_file.h"
#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "tools/commands/measurements.h"
#include "tools/commands/output.h"
#include "tests/hardening_fixture.h"
#include "tests/sanitizer.h"

namespace tbdr {
namespace {

namespace fs = std::filesystem;

// ---- class 1: output staging ----------------------------------------------------------------------

TEST_F(Hardening, OutputNamingAnInputIsRefused) {
  fs::copy(fs::path(kDefaultTrace).parent_path(), m_dir / "scene", fs::copy_options::recursive);
  const fs::path trace = m_dir / "scene" / "scene.json";
  const std::string before = slurp(trace);
  expect_refused("run " + trace.string() + " --no-images --quiet --json " + trace.string(), "input of this run");
  EXPECT_EQ(slurp(trace), before);
}

TEST_F(Hardening, NonRegularOutputTargetsAreRefused) {
  const fs::path fifo = m_dir / "fifo.json", link = m_dir / "link.json", victim = m_dir / "victim.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  write_text(victim, "keep");
  fs::create_symlink(victim, link);
  expect_refused("run --no-images --quiet --json " + fifo.string(), "not a regular file");
  EXPECT_TRUE(fs::is_fifo(fifo));
  expect_refused("run --no-images --quiet --json " + link.string(), "symbolic link");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(victim), "keep");
}

TEST_F(Hardening, StagedFileIsCreatedExclusivelyWithoutFollowingSymlinks) {
  const fs::path victim = m_dir / "victim.txt", target = m_dir / "r.json";
  write_text(victim, "keep");
  const fs::path staged = staged_path(target);
  EXPECT_NE(staged, staged_path(target)) << "staged names must not be predictable";
  fs::create_symlink(victim, staged);
  EXPECT_THROW(write_staged(staged, target, "report"), std::runtime_error);
  EXPECT_EQ(slurp(victim), "keep");
  EXPECT_TRUE(fs::is_symlink(staged)) << "a file this run did not create is left alone";
}

TEST_F(Hardening, StaleStagedFilesOfThisToolAreRemovedOthersKept) {
  // A process id above Linux's maximum (2^22) cannot be running: the file is a killed run's.
  const fs::path stale = m_dir / ".r.json.tmp-tbdrsim-99999999-0123456789abcdef";
  const fs::path live = m_dir / (".r.json.tmp-tbdrsim-" + std::to_string(::getpid()) + "-0123456789abcdef");
  const fs::path foreign = m_dir / ".r.json.tmp-12345";
  for (const fs::path& p : {stale, live, foreign}) write_text(p, "x");
  EXPECT_EQ(run_cli("run --no-images --quiet --json " + (m_dir / "r.json").string()), 0) << m_stderr;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live)) << "a running process's staged file stays";
  EXPECT_TRUE(fs::exists(foreign)) << "only this tool's own pattern is removed";
  EXPECT_TRUE(fs::exists(m_dir / "r.json"));
}

// Exit status of `tbdrsim ARGS` run with files limited to `max_bytes` (RLIMIT_FSIZE): a write past it
// fails with EFBIG, as on a full disk (SIGXFSZ ignored); -1 when it did not exit normally.
int run_with_file_size_limit(rlim_t max_bytes, std::vector<std::string> args) {
  args.insert(args.begin(), kBinary);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const rlimit limit{max_bytes, max_bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::signal(SIGXFSZ, SIG_IGN);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(kBinary.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// A write failure leaves neither staged files nor the folders the run created.
TEST_F(Hardening, WriteFailureLeavesNoFilesOrFolders) {
  const fs::path out = m_dir / "new" / "images";
  EXPECT_EQ(run_with_file_size_limit(4096, {"run", "--quiet", "--threads", "1", "--out", out.string()}), 1);
  EXPECT_FALSE(fs::exists(m_dir / "new")) << "the folders the failed run created stay";
}

// The same for `import` (the limit is below the trace JSON's size).
TEST_F(Hardening, ImportWriteFailureLeavesNoFilesOrFolders) {
  write_text(m_dir / "scene.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  const fs::path out = m_dir / "new" / "trace" / "t.json";
  EXPECT_EQ(run_with_file_size_limit(64, {"import", (m_dir / "scene.obj").string(), "-o", out.string()}), 1);
  EXPECT_FALSE(fs::exists(m_dir / "new")) << "the folders the failed import created stay";
}

// ---- class 4: input limits ------------------------------------------------------------------------

TEST_F(Hardening, NonRegularInputsAreRefusedWithoutReading) {
  const fs::path fifo = m_dir / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_refused("run --no-images --quiet --preset /dev/zero", "--preset /dev/zero: is a device");
  expect_refused("run /dev/zero --no-images --quiet", "/dev/zero: is a device");
  expect_refused("run " + fifo.string() + " --no-images --quiet", "is a FIFO");
  expect_refused("run --no-images --quiet --preset " + fifo.string(), "is a FIFO");
  expect_refused("sweep --quiet --grid /dev/zero --out " + (m_dir / "sweep").string(), "/dev/zero: is a device");
}

TEST_F(Hardening, ImageHeaderOverTheLimitIsRefusedBeforeDecoding) {
  Png png;
  png.width = png.height = 1;
  png.pixels.assign(4, 255);
  std::vector<uint8_t> bytes = encode_png(png);
  for (const int at : {16, 20}) {  // IHDR width and height (big-endian): 8192 x 8192, 2^26 pixels
    bytes[size_t(at)] = 0;
    bytes[size_t(at) + 1] = 0;
    bytes[size_t(at) + 2] = 0x20;
    bytes[size_t(at) + 3] = 0;
  }
  write_text(m_dir / "huge.png", std::string(bytes.begin(), bytes.end()));
  const std::string trace = R"({"format": "tbdrsim-trace", "version": 1,
    "images": [{"name": "color", "format": "RGBA8", "width": 16, "height": 16}],
    "textures": [{"name": "t", "file": "huge.png"}], "meshes": [], "frames": []})";
  try {
    read_trace_text(trace, m_dir, "huge.json");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("8192x8192, over the limit of 16777216 pixels"), std::string::npos) << e.what();
  }
}

// `diff` reads its PNGs as every other input: a FIFO is refused without blocking, and a header
// declaring 30000 x 8000 pixels (960 MB as RGBA8, under stb_image's own 2^30-byte limit) is refused
// before decoding.
TEST_F(Hardening, DiffInputsAreBoundedRegularFiles) {
  Png png;
  png.width = png.height = 1;
  png.pixels.assign(4, 255);
  std::vector<uint8_t> bytes = encode_png(png);
  write_text(m_dir / "one.png", std::string(bytes.begin(), bytes.end()));
  const auto set_big_endian = [&](size_t at, uint32_t value) {
    for (size_t k = 0; k < 4; ++k) bytes[at + k] = uint8_t(value >> (24 - 8 * k));
  };
  set_big_endian(16, 30000);  // IHDR width
  set_big_endian(20, 8000);   // IHDR height
  write_text(m_dir / "huge.png", std::string(bytes.begin(), bytes.end()));
  const fs::path fifo = m_dir / "fifo.png";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string one = (m_dir / "one.png").string();
  expect_refused("diff " + fifo.string() + " " + one, "fifo.png: is a FIFO");
  expect_refused("diff " + one + " " + (m_dir / "huge.png").string(), "image of 30000 x 8000 pixels");
}

// Every JSON the tool reads has the nesting limit, checked before parsing: presets (and their bases),
// grids, traces, the trace `advise --apply` edits, and sweep parts (tests/sweep_test.cpp).
TEST_F(Hardening, DeepJsonIsRefusedInEveryReader) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  write_text(m_dir / "deep.json", deep);
  expect_refused("run --no-images --quiet --preset " + (m_dir / "deep.json").string(), "nested deeper than 256");
  write_text(m_dir / "based.json", R"({"name": "based", "description": "d", "base": "deep.json", "models": {}})");
  expect_refused("run --no-images --quiet --preset " + (m_dir / "based.json").string(), "nested deeper than 256");
  expect_refused("sweep " + kDefaultTrace + " --quiet --grid " + (m_dir / "deep.json").string() + " --out " +
                     (m_dir / "sweep").string(),
                 "deep.json: JSON nested deeper than 256");
  expect_refused("run " + (m_dir / "deep.json").string() + " --no-images --quiet", "nested deeper than 256");
  EXPECT_FALSE(fs::exists(m_dir / "sweep"));
}

// advise, validate and calibrate read their inputs as every other reader does (no bare std::ifstream).
TEST_F(Hardening, AdviseValidateAndCalibrateInputsAreChecked) {
  const fs::path fifo = m_dir / "fifo.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_refused("calibrate " + fifo.string() + " --params dram.bytes_per_cycle -o " + (m_dir / "p.json").string(),
                 "fifo.csv: is a FIFO");
  expect_refused("calibrate /dev/zero --params dram.bytes_per_cycle -o " + (m_dir / "p.json").string(),
                 "/dev/zero: is a device");
  EXPECT_FALSE(fs::exists(m_dir / "p.json"));
}

// Sweeps are capped at a documented number of configurations, refused before any is built.
TEST_F(Hardening, SweepConfigurationsAreCapped) {
  std::string widths, heights;
  for (int v = 1; v <= 1000; ++v) widths += (v > 1 ? "," : "") + std::to_string(v);
  heights = widths;
  expect_refused("sweep " + kDefaultTrace + " --quiet --vary tiling.width=" + widths + " --vary tiling.height=" +
                     heights + " --vary hsr=none,early_z --out " + (m_dir / "vary").string(),
                 "--vary hsr: more than 1000000 configurations");
  std::string grid = "tiling.width\n";
  for (int row = 0; row <= 1000000; ++row) grid += "16\n";
  write_text(m_dir / "grid.csv", grid);
  expect_refused("sweep " + kDefaultTrace + " --quiet --grid " + (m_dir / "grid.csv").string() + " --out " +
                     (m_dir / "grid").string(),
                 "more than 1000000 configurations");
  EXPECT_FALSE(fs::exists(m_dir / "vary"));
  EXPECT_FALSE(fs::exists(m_dir / "grid"));
}

// AddressSanitizer reserves terabytes of address space for its shadow: no address-space limit there.

// A valid trace whose 16384 x 16384 image (4 GiB of color floats) does not fit in 1 GB of address
// space: std::bad_alloc ends as one line and exit 2, not "error: std::bad_alloc" and exit 1.
TEST_F(Hardening, OutOfMemoryIsOneLineExitTwo) {
  if (kAddressSanitizer) GTEST_SKIP() << "address-space limits do not work under AddressSanitizer";
  write_text(m_dir / "big.json", R"({"format": "tbdrsim-trace", "version": 1,
    "images": [{"name": "color", "format": "RGBA8", "width": 16384, "height": 16384}], "meshes": [],
    "frames": [{"passes": [{"name": "main", "attachments": [{"image": "color", "load": "clear"}],
      "subpasses": [{"color": [0]}]}]}]})");
  EXPECT_EQ(run_cli("run " + (m_dir / "big.json").string() + " --no-images --quiet --threads 1", "ulimit -v 1000000; "), 2)
      << m_stderr;
  EXPECT_NE(m_stderr.find("out of memory"), std::string::npos) << m_stderr;
}

// A parameter buffer of 1 B flushes after every primitive and each flush runs every tile: the
// default scene ran for minutes. Refused, naming the parameter, once renders x tiles pass 2^20.
TEST_F(Hardening, TinyParameterBufferIsRefusedNamingTheParameter) {
  expect_refused("run " + kDefaultTrace + " --no-images --quiet --set param_buffer=fixed --set param_buffer.capacity=1",
                 "param_buffer.capacity: 1 B flushes a hardware pass of 8160 tiles more than 127 times");
}

TEST_F(Hardening, ThreadCountIsCapped) {
  expect_refused("run --no-images --quiet --threads 100000", "--threads");
  expect_refused("calibrate x.csv --params cores.clock_mhz -o x.json --threads 100000", "--threads");
  expect_refused("sweep --quiet -j 100000 --out " + (m_dir / "sweep").string(), "--jobs");
}

// ---- class 4: the memory estimate and --max-memory (tools/doc/cli.md "Memory budget") ---------------------

// The largest configuration the parameter ranges allow: a 16 GiB L2 of 16 B lines keeps 2^30 tags of
// 8 B (8 GiB) over the default 8 GiB budget; refused before any allocation, naming the parameter.
TEST_F(Hardening, TextureL2OverTheMemoryBudgetIsRefusedNamingTheParameter) {
  const std::string out = (m_dir / "out").string();
  expect_refused("run --preset mali-g710 --set texture.line_bytes=16 --set texture.l2_bytes=17179869184 "
                 "--set cores.count=1024 --out " + out + " --json " + (m_dir / "r.json").string(),
                 "needs about 8.1 GiB, most of it texture L2 tags 8.0 GiB (texture.l2_bytes 17179869184 / "
                 "texture.line_bytes 16 x 8 B per line), over the memory budget 8.0 GiB");
  EXPECT_NE(m_stderr.find("--max-memory"), std::string::npos) << m_stderr;
  // The audit's example (64 B lines: 2 GiB of tags) under a 2 GiB budget.
  expect_refused("run --preset mali-g710 --set texture.l2_bytes=17179869184 --set cores.count=1024 --max-memory 2G "
                 "--no-images --quiet",
                 "texture.l2_bytes 17179869184 / texture.line_bytes 64 x 8 B per line");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(m_dir / "r.json"));
}

// One 16 x 16 RGBA8 target, one triangle, reference preset, one thread. By hand (sim/memory_estimate.cpp):
//   images          16 x 16 x 1 sample x 1 layer x 16 B (four floats per color sample)   4096 B
//   trace data      3 positions x 16 B                                                     48 B
//   screen geometry 3 vertices x (16 B vertex + 9 x 4 B varyings + 37 B primitive/entry)  267 B
//   worker threads  1 x (16 x 16 tile x 16 B per pixel + 0 B texture footprints)         4096 B
//   texture caches  none (texture=footprint)                                                 0 B
// Total 8507 B.

TEST_F(Hardening, MemoryBudgetAllowsTheEstimateAndRefusesOneByteLess) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const std::string run = "run " + (m_dir / "tiny.json").string() + " --threads 1 --quiet --out " + (m_dir / "out").string();
  EXPECT_EQ(run_cli(run + " --max-memory 8507"), 0) << m_stderr;
  EXPECT_TRUE(fs::exists(m_dir / "out"));
  fs::remove_all(m_dir / "out");
  expect_refused(run + " --max-memory 8506", "needs about 8.3 KiB, most of it images 4.0 KiB");
  EXPECT_FALSE(fs::exists(m_dir / "out"));
  // One tile, so one worker whatever --threads says, on the tiled and the immediate-mode path alike.
  const std::string many = "run " + (m_dir / "tiny.json").string() + " --threads 1024 --no-images --quiet --max-memory 8507";
  EXPECT_EQ(run_cli(many), 0) << m_stderr;
  EXPECT_EQ(run_cli(many + " --imr"), 0) << m_stderr;
}

// validate and calibrate simulate too (the bundled validation traces, under a preset that may be a
// hand-written or fitted file): each simulation's estimate is checked against --max-memory first.
TEST_F(Hardening, ValidateAndCalibrateCheckTheMemoryBudget) {
  const fs::path table = fs::path(TBDR_SOURCE_DIR) / "traces" / "validation" / "measurements.csv";
  expect_refused("validate --threads 1 --max-memory 1M", "over the memory budget 1.0 MiB");
  const fs::path fitted = m_dir / "fitted.json";
  expect_refused("calibrate " + table.string() + " --params dram.bytes_per_cycle --max-evaluations 1 --threads 1 -o " +
                     fitted.string() + " --max-memory 1M",
                 "over the memory budget 1.0 MiB");
  EXPECT_FALSE(fs::exists(fitted));
}

TEST_F(Hardening, MaxMemoryRaisesTheBudgetOnRunSweepAndAdvise) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const std::string tiny = (m_dir / "tiny.json").string();
  expect_refused("run " + tiny + " --threads 1 --no-images --quiet --max-memory 8K", "over the memory budget 8.0 KiB");
  EXPECT_EQ(run_cli("run " + tiny + " --threads 1 --no-images --quiet --max-memory 9K"), 0) << m_stderr;
  // A sweep: -j 1 x the worst configuration + the functional records' --record-budget.
  const std::string sweep = "sweep " + tiny + " --quiet -j 1 --vary hsr=none,early_z --record-budget 1 --out ";
  expect_refused(sweep + (m_dir / "s1").string() + " --max-memory 1M", "most of it functional records 1.0 MiB");
  EXPECT_FALSE(fs::exists(m_dir / "s1"));
  EXPECT_EQ(run_cli(sweep + (m_dir / "s2").string() + " --max-memory 2M"), 0) << m_stderr;
  expect_refused("advise " + tiny + " --threads 1 --max-memory 8K", "over the memory budget 8.0 KiB");
  EXPECT_EQ(run_cli("advise " + tiny + " --threads 1 --max-memory 9K"), 0) << m_stderr;
}

TEST_F(Hardening, BadMaxMemoryValuesAreRefused) {
  for (const std::string value : {"-1", "0", "1.5G", "8X", "20000000000G", "''"})
    expect_refused("run --no-images --quiet --max-memory " + value, "--max-memory");
}

// ---- class 5: feedback loops ----------------------------------------------------------------------

std::string sampling_trace(const std::string& sampled) {
  return R"({"format": "tbdrsim-trace", "version": 1,
    "images": [{"name": "color", "format": "RGBA8", "width": 16, "height": 16},
               {"name": "src", "format": "RGBA8", "width": 16, "height": 16}],
    "meshes": [{"name": "tri", "positions": [0,0,0, 1,0,0, 0,1,0]}],
    "frames": [{"passes": [{"name": "main", "attachments": [{"image": "color", "load": "clear"}],
      "subpasses": [{"color": [0], "draws": [{"name": "loop", "mesh": "tri", "program": {"name": "textured",
        "bindings": {"texture": {"image": ")" + sampled + R"("}}}}]}]}]}]})";
}

TEST_F(Hardening, DrawSamplingItsOwnAttachmentIsRefused) {
  EXPECT_NO_THROW(read_trace_text(sampling_trace("src"), m_dir, "ok.json"));
  try {
    read_trace_text(sampling_trace("color"), m_dir, "loop.json");
    ADD_FAILURE() << "a feedback loop was accepted";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("loop.json"), std::string::npos) << message;
    EXPECT_NE(message.find("/frames/0/passes/0/subpasses/0/draws/0"), std::string::npos) << message;
    EXPECT_NE(message.find("feedback loop"), std::string::npos) << message;
  }
}

// ---- class 2: importers ---------------------------------------------------------------------------

// A one-triangle glTF whose JSON `extra` is spliced into the top-level object, and whose node 0 has
// `node` as its extra members; the buffer is embedded unless `uri` is given.
std::string gltf(const std::string& node = "", const std::string& extra = "",
                 const std::string& uri = "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA",
                 const std::string& count = "3") {
  return R"({"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "scene": 0,
    "nodes": [{"mesh": 0)" + node + R"(}], "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": )" + count + R"(, "type": "VEC3",
                   "min": [0,0,0], "max": [1,1,0]}],
    "bufferViews": [{"buffer": 0, "byteLength": 36}],
    "buffers": [{"byteLength": 36, "uri": ")" + uri + R"("}])" + extra + "}";
}

TEST_F(Hardening, GltfBaselineImports) {
  write_text(m_dir / "ok.gltf", gltf());
  EXPECT_NO_THROW(import_scene(m_dir / "ok.gltf", m_dir / "out" / "scene.json"));
}

TEST_F(Hardening, GltfNestedTooDeepIsRefusedBeforeParsing) {
  write_text(m_dir / "deep.gltf", gltf("", R"(, "extras": )" + std::string(100000, '[') + std::string(100000, ']')));
  expect_import_refused(m_dir / "deep.gltf", "nested deeper than 256");
}

TEST_F(Hardening, GltfFilesOutsideTheSceneFolderAreRefused) {
  fs::create_directories(m_dir / "scene");
  write_text(m_dir / "secret.bin", std::string(36, '\0'));
  write_text(m_dir / "scene" / "up.gltf", gltf("", "", "../secret.bin"));
  expect_import_refused(m_dir / "scene" / "up.gltf", "\"..\" component");
  write_text(m_dir / "scene" / "abs.gltf", gltf("", "", (m_dir / "secret.bin").string()));
  expect_import_refused(m_dir / "scene" / "abs.gltf", "secret.bin");
}

// An image URI that leaves the scene's folder is refused for what it is, whether or not the file
// exists (an absolute path to a missing file read as "missing or cannot be decoded" before).
TEST_F(Hardening, GltfImageUrisLeavingTheFolderAreRefusedAsSuch) {
  fs::create_directories(m_dir / "scene");
  fs::copy_file(fs::path(TBDR_SOURCE_DIR) / "traces/features/uv_test.png", m_dir / "outside.png");
  const auto with_image = [](const std::string& uri) { return gltf("", R"(, "images": [{"uri": ")" + uri + R"("}])"); };
  for (const fs::path& png : {m_dir / "outside.png", m_dir / "gone.png"}) {
    write_text(m_dir / "scene" / "abs.gltf", with_image(png.string()));
    expect_import_refused(m_dir / "scene" / "abs.gltf", "is an absolute path");
  }
  for (const std::string uri : {"../outside.png", "../gone.png"}) {
    write_text(m_dir / "scene" / "up.gltf", with_image(uri));
    expect_import_refused(m_dir / "scene" / "up.gltf", "\"..\" component");
  }
}

TEST_F(Hardening, GltfAccessorArithmeticThatWrapsIsRefused) {
  write_text(m_dir / "wrap.gltf", gltf("", "", "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA",
                                       "1537228672809129302"));  // (count - 1) * 12 + 12 wraps to 8
  expect_import_refused(m_dir / "wrap.gltf", "overflow 64 bits");
}

TEST_F(Hardening, GltfMatrixBeyondFloatIsRefusedNamingTheScene) {
  write_text(m_dir / "huge.gltf", gltf(R"(, "matrix": [1e308,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1])"));
  expect_import_refused(m_dir / "huge.gltf", "not finite as a float");
}

TEST_F(Hardening, GltfNodeGraphPathExplosionIsBounded) {
  // Node i has two child references to node i + 1: 2^40 paths through 41 nodes.
  std::string nodes = R"({"mesh": 0, "children": [1, 1]})";
  for (int i = 1; i < 40; ++i)
    nodes += R"(, {"children": [)" + std::to_string(i + 1) + ", " + std::to_string(i + 1) + "]}";
  nodes += R"(, {"mesh": 0})";
  std::string text = gltf();
  text.replace(text.find(R"({"mesh": 0})"), 11, nodes);
  write_text(m_dir / "paths.gltf", text);
  expect_import_refused(m_dir / "paths.gltf", "more than 262144 nodes");
}

const std::string kObjTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

TEST_F(Hardening, ObjIndexBeyondIntIsRefused) {
  write_text(m_dir / "wrap.obj", kObjTriangle + "f 1 2 4294967298\n");  // 2^32 + 2 wrapped to vertex 2
  expect_import_refused(m_dir / "wrap.obj", "\"4294967298\" is not a nonzero integer");
}

TEST_F(Hardening, ObjFaceCornersAreCapped) {
  std::string text = kObjTriangle + "f";
  for (int i = 0; i < 2000; ++i) {
    text += ' ';
    text += std::to_string(1 + i % 3);  // appended piecewise: GCC 12 warns falsely (-Wrestrict, bug 105329)
  }
  write_text(m_dir / "corners.obj", text + "\n");
  expect_import_refused(m_dir / "corners.obj", "a face of 2000 corners, over the limit of 1024");
}

TEST_F(Hardening, ObjMaterialFilesOutsideTheSceneFolderAreRefused) {
  fs::create_directories(m_dir / "scene");
  write_text(m_dir / "secret.png", "not read");
  write_text(m_dir / "scene" / "m.mtl", "newmtl m\nmap_Kd " + (m_dir / "secret.png").string() + "\n");
  write_text(m_dir / "scene" / "abs.obj", "mtllib m.mtl\nusemtl m\n" + kObjTriangle + "vt 0 0\nf 1/1 2/1 3/1\n");
  expect_import_refused(m_dir / "scene" / "abs.obj", "is an absolute path; file names are relative to the scene's folder");
  write_text(m_dir / "scene" / "up.obj", "mtllib ../m.mtl\n" + kObjTriangle + "f 1 2 3\n");
  expect_import_refused(m_dir / "scene" / "up.obj", "\"..\" component; files must lie inside the scene's folder");
}

// ---- the later audit: crashes, unchecked writes, outputs that collide, unbounded values -------------

// Presets p1 .. pN in `dir`, each naming the previous file as its base (p1 none).
void write_preset_chain(const fs::path& dir, int n) {
  write_text(dir / "p1.json", R"({"name": "p1", "description": "", "models": {}})");
  for (int i = 2; i <= n; ++i)
    write_text(dir / ("p" + std::to_string(i) + ".json"), R"({"name": "p)" + std::to_string(i) +
                                                              R"(", "description": "", "base": "p)" +
                                                              std::to_string(i - 1) + R"(.json", "models": {}})");
}

// A chain 10,000 presets deep overflowed the stack (SIGSEGV): at most 64, the 65th refused naming the
// `base` field that would add it.
TEST_F(Hardening, PresetBaseChainsAreCapped) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  write_preset_chain(m_dir, 10000);
  const std::string run = "run " + (m_dir / "tiny.json").string() + " --threads 1 --no-images --quiet --preset ";
  EXPECT_EQ(run_cli(run + (m_dir / "p64.json").string()), 0) << m_stderr;
  expect_refused(run + (m_dir / "p65.json").string(), "/p2.json#/base: a chain of more than 64 presets through \"base\"");
  expect_refused(run + (m_dir / "p10000.json").string(), "/p9937.json#/base: a chain of more than 64 presets");
}

// What goes to stdout is checked as a file is: /dev/full (ENOSPC) and a closed stdout (EBADF) end
// with exit 1 and one line, where they ended with exit 0.
TEST_F(Hardening, StdoutWriteFailuresExitOne) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const std::string tiny = (m_dir / "tiny.json").string(), run = "run " + tiny + " --threads 1 --no-images";
  for (const std::string& args : {run, run + " --quiet --json -", run + " --quiet --csv -", std::string("models"),
                                  "advise " + tiny + " --threads 1"}) {
    EXPECT_EQ(run_cli(args), 0) << args << ": " << m_stderr;
    for (const std::string redirect : {"> /dev/full", ">&-"}) {
      SCOPED_TRACE(args + " " + redirect);
      EXPECT_EQ(run_cli(args, "", redirect), 1) << m_stderr;
      EXPECT_NE(m_stderr.find("tbdrsim: cannot write to stdout"), std::string::npos) << m_stderr;
      EXPECT_EQ(std::count(m_stderr.begin(), m_stderr.end(), '\n'), 1) << m_stderr;
    }
  }
  // Nothing to print: nothing fails, and the report file is written.
  EXPECT_EQ(run_cli(run + " --quiet --json " + (m_dir / "r.json").string(), "", "> /dev/full"), 0) << m_stderr;
  EXPECT_TRUE(fs::exists(m_dir / "r.json"));
}

// Two outputs naming one file (or one inside the other, or the images' folder) are refused before
// anything runs; one silently replaced the other.
TEST_F(Hardening, OutputsNamingOneFileAreRefusedBeforeRunning) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  fs::create_directories(m_dir / "sub");
  const std::string run = "run " + (m_dir / "tiny.json").string() + " --threads 1 --quiet ";
  const std::string x = (m_dir / "x").string(), img = (m_dir / "img").string();
  expect_refused(run + "--no-images --html " + x + " --json " + x, "--html " + x + ": names the file of --json " + x);
  expect_refused(run + "--no-images --json " + x + ".json --csv " + (m_dir / "sub" / ".." / "x.json").string(),
                 "names the file of --json " + x + ".json");
  expect_refused(run + "--no-images --csv " + x + " --draws-csv " + x, "--draws-csv " + x + ": names the file of --csv");
  expect_refused(run + "--no-images --json " + x + " --html " + x + "/y.html", "names the file of --json " + x);
  expect_refused(run + "--out " + x + " --json " + x, "--json " + x + ": is the --out folder");
  // An image's own name (found by writing the images once) is refused as a file output beside them.
  ASSERT_EQ(run_cli(run + "--out " + img), 0) << m_stderr;
  ASSERT_EQ(std::distance(fs::directory_iterator(img), fs::directory_iterator()), 1);
  const fs::path image = fs::directory_iterator(img)->path();
  fs::remove_all(img);
  expect_refused(run + "--out " + img + " --csv " + image.string(), "under a name its images and heatmaps take");
  EXPECT_FALSE(fs::exists(img));
  EXPECT_FALSE(fs::exists(x));
  EXPECT_FALSE(fs::exists(x + ".json"));
  // Another name in the images' folder is the user's to choose.
  EXPECT_EQ(run_cli(run + "--out " + img + " --json " + img + "/report.json"), 0) << m_stderr;
  EXPECT_TRUE(fs::exists(image));
  EXPECT_TRUE(fs::exists(img + "/report.json"));
}

// Measurement CSVs: a column named twice was read as its last copy, a negative count was fitted.
TEST_F(Hardening, MeasurementCsvsRefuseRepeatedColumnsAndImpossibleValues) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const fs::path csv = m_dir / "m.csv", out = m_dir / "fitted.json";
  const std::string calibrate = "calibrate " + csv.string() + " --preset reference --params dram.bytes_per_cycle "
                                "--max-evaluations 2 --threads 1 -o " + out.string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"traces,read_bytes,read_bytes\ntiny.json,100,200\ntiny.json,100,200\n", "m.csv:1, column read_bytes: appears twice"},
      {"traces,read_bytes\ntiny.json,-5\ntiny.json,5\n", "m.csv:2, column read_bytes: a measured read_bytes is never negative"},
      {"traces,read_bytes\ntiny.json,5\ntiny.json,nan\n", "m.csv:3, column read_bytes: expected a measured value"},
      {"traces,read_bytes\ntiny.json,inf\ntiny.json,5\n", "m.csv:2, column read_bytes: expected a measured value"},
      {"traces,figure,combine,measured\ntiny.json;tiny.json,tiles,ratio,-1\ntiny.json,tiles,value,5\n",
       "m.csv:2, column measured: a measured tiles ratio is never negative"},
  };
  for (const auto& [text, fragment] : cases) {
    write_text(csv, text);
    expect_refused(calibrate, fragment);
    EXPECT_FALSE(fs::exists(out));
  }
  // A difference may be negative (it is read, then fitted).
  write_text(csv, "traces,figure,combine,measured,tolerance\ntiny.json;tiny.json,tiles,difference,-1,1\n"
                  "tiny.json,tiles,value,1,1\n");
  EXPECT_EQ(run_cli(calibrate), 0) << m_stderr;
  EXPECT_TRUE(fs::exists(out));
}

// Past 100,000 rows a measurement CSV is refused at the first row over, before any is simulated.
TEST_F(Hardening, MeasurementCsvRowsAreCapped) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  std::string text = "traces,tiles\n";
  for (int row = 0; row < 100000; ++row) text += "tiny.json,1\n";
  write_text(m_dir / "m.csv", text);
  EXPECT_EQ(measurements::read_measurements(m_dir / "m.csv").size(), 100000u);
  write_text(m_dir / "m.csv", text + "tiny.json,1\n");
  try {
    measurements::read_measurements(m_dir / "m.csv");
    ADD_FAILURE() << "100,001 rows accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.csv:100002: more than 100000 rows"), std::string::npos) << e.what();
  }
}

// A ratio over a simulated 0 (no transaction elimination under `reference`: 0 blocks killed) printed
// `inf` and the fitted preset was written; refused naming the row, nothing written.
TEST_F(Hardening, CalibrationWithANonFiniteFigureWritesNothing) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  write_text(m_dir / "m.csv", "traces,figure,combine,measured,tolerance\n"
                              "tiny.json;tiny.json,te_blocks_killed,ratio,1,1\ntiny.json,tiles,value,1,1\n");
  const fs::path out = m_dir / "fitted.json";
  expect_refused("calibrate " + (m_dir / "m.csv").string() + " --preset reference --params dram.bytes_per_cycle "
                 "--max-evaluations 2 --threads 1 -o " + out.string(),
                 "m.csv:2, column measured: the fitted simulated figure is inf");
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Hardening, AdviseFpsIsBounded) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const std::string advise = "advise " + (m_dir / "tiny.json").string() + " --threads 1 --json - --fps ";
  for (const std::string fps : {"1e308", "inf", "nan", "0", "-60", "10000.5"})
    expect_refused(advise + fps, "--fps: expected a frame rate above 0 and at most 10000");
  EXPECT_EQ(run_cli(advise + "10000"), 0) << m_stderr;
}

// A finished sweep whose parts/ became a link to another folder: the re-run wrote the missing parts
// there. Refused, as is a file in its place; the other folder stays empty.
TEST_F(Hardening, SweepPartsMustBeARealFolderInsideTheSweep) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const fs::path dir = m_dir / "sweep", elsewhere = m_dir / "elsewhere";
  const std::string sweep = "sweep " + (m_dir / "tiny.json").string() + " --quiet -j 1 --vary hsr=none,early_z --out " +
                            dir.string();
  ASSERT_EQ(run_cli(sweep), 0) << m_stderr;
  fs::remove_all(dir / "parts");
  fs::create_directories(elsewhere);
  fs::create_directory_symlink(elsewhere, dir / "parts");
  expect_refused(sweep, (dir / "parts").string() + ": is a symbolic link");
  EXPECT_TRUE(fs::is_empty(elsewhere));
  fs::remove(dir / "parts");
  write_text(dir / "parts", "x");
  expect_refused(sweep, (dir / "parts").string() + ": is not a folder");
  fs::remove(dir / "parts");
  EXPECT_EQ(run_cli(sweep), 0) << "a missing parts/ is made again: " << m_stderr;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "parts"), fs::directory_iterator()), 3);  // 2 parts, their layout
}

// `run scene.obj` imports into $TMPDIR/tbdrsim-import-PID-XXXXXX; one a killed run left (its process
// gone: a PID above Linux's 2^22) is removed at the next start, others kept.
TEST_F(Hardening, ImportFoldersOfKilledRunsAreRemovedAtTheNextStart) {
  const fs::path tmp = m_dir / "tmp", victim = m_dir / "victim";
  const fs::path stale = tmp / "tbdrsim-import-99999999-AbC123", live = tmp / ("tbdrsim-import-" + std::to_string(::getpid()) + "-AbC123");
  const fs::path unnamed = tmp / "tbdrsim-import-AbC123", link = tmp / "tbdrsim-import-99999998-AbC123";
  for (const fs::path& p : {stale, live, unnamed, victim}) fs::create_directories(p);
  for (const fs::path& p : {stale, victim}) write_text(p / "scene.json", "x");
  fs::create_directory_symlink(victim, link);
  write_text(m_dir / "scene.obj", kObjTriangle + "f 1 2 3\n");
  EXPECT_EQ(run_cli("run " + (m_dir / "scene.obj").string() + " --threads 1 --no-images --quiet", "TMPDIR=" + tmp.string() + " "), 0)
      << m_stderr;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live)) << "a running process's folder stays";
  EXPECT_TRUE(fs::exists(unnamed)) << "only this tool's own pattern is removed";
  EXPECT_TRUE(fs::is_symlink(link)) << "a link is not this run's folder";
  EXPECT_TRUE(fs::exists(victim / "scene.json"));
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp), fs::directory_iterator()), 3) << "the run removed its own";
}

// A swapchain of 10^9 images kept 10^9 sets of TE signatures (out of memory): at most 16, and their
// signatures are in the memory estimate: kTinyTrace's 8507 B + 16 images x 1 block of 16x16 x 8 B.
TEST_F(Hardening, SwapchainImagesAreCappedAndTheirSignaturesCounted) {
  const std::string image = R"("height": 16})";
  for (const int images : {16, 17}) {
    std::string trace = kTinyTrace;
    trace.replace(trace.find(image), image.size(), R"("height": 16, "swapchain": )" + std::to_string(images) + "}");
    write_text(m_dir / ("s" + std::to_string(images) + ".json"), trace);
  }
  expect_refused("run " + (m_dir / "s17.json").string() + " --no-images --quiet",
                 "s17.json: /images/0/swapchain: expected an integer from 2 to 16, got 17");
  const std::string run = "run " + (m_dir / "s16.json").string() + " --threads 1 --no-images --quiet --set write_elim=te";
  EXPECT_EQ(run_cli(run + " --max-memory 8635"), 0) << m_stderr;
  expect_refused(run + " --max-memory 8634", "over the memory budget");
}

}  // namespace
}  // namespace tbdr
