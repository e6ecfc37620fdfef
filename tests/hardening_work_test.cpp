// Hostile input that asks for unbounded work or memory rather than a crash (the third hostile-input
// audit): passes and vertices over a whole trace, advise's pricing, a sweep's configurations at the
// cap, the messages of the OBJ importer's material files, the reports `compare` reads, "-" as a file
// name and the README `validate` rewrites. One line naming the file and the field, exit code 2,
// nothing written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "frontend/staged_file.h"
#include "frontend/trace_reader.h"
#include "tools/commands/output.h"
#include "tools/commands/validation.h"
#include "tests/hardening_fixture.h"
#include "tests/sanitizer.h"

namespace tbdr {
namespace {

// A trace of `frames` frames whose first has `passes` render passes, each clearing and storing its own
// 16x16 image (so `advise` finds store-dont-care and transient in every one but the last) with one
// triangle drawn `instances` times; the other frames repeat the first's passes (no "passes" key).
std::string pass_trace(int passes, int instances, int frames = 1) {
  std::string images, list;
  for (int i = 0; i < passes; ++i) {
    const std::string n = std::to_string(i);
    images += std::string(i ? "," : "") + R"({"name": "img)" + n + R"(", "format": "RGBA8", "width": 16, "height": 16})";
    list += std::string(i ? "," : "") + R"({"name": "p)" + n + R"(", "attachments": [{"image": "img)" + n +
            R"(", "load": "clear", "store": "store"}], "subpasses": [{"color": [0], "draws": [{"name": "d", "mesh": "tri",
            "instance_count": )" + std::to_string(instances) + R"(, "program": {"name": "vertex_color"}}]}]})";
  }
  std::string frame_list = R"({"passes": [)" + list + "]}";
  for (int f = 1; f < frames; ++f) frame_list += ", {}";
  return R"({"format": "tbdrsim-trace", "version": 1, "images": [)" + images +
         R"(], "meshes": [{"name": "tri", "positions": [-1, -1, 0.5, 1, -1, 0.5, -1, 1, 0.5],
         "colors": [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]}], "frames": [)" + frame_list + "]}";
}

std::string read_error(const std::string& text) {
  try {
    (void)read_trace_text(text, ".", "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read without error)";
}

// 16,384 passes over the whole trace, repeated frames counted: 6,000 passes run three times is refused
// at the third frame, twice is read.
TEST(HardeningWork, TracePassesAreCappedOverEveryFrame) {
  const std::string passes = pass_trace(6000, 1, 3);
  EXPECT_NE(read_error(passes).find("t.json: /frames/2: the trace has 18000 passes up to this frame, over the limit of 16384"),
            std::string::npos) << read_error(passes);
  EXPECT_EQ(read_error(pass_trace(6000, 1, 2)), "(read without error)");
}

// 4,096 passes of 65,536 instances (each under the per-pass vertex limit) ran past 600 s: vertices over
// the whole trace are capped at 2^28, here 1,366 passes of 196,608 vertices.
TEST(HardeningWork, TraceVerticesAreCappedOverEveryPass) {
  EXPECT_NE(read_error(pass_trace(1366, 65536)).find("/frames/0/passes: the trace draws 268566528 vertices up to this frame"),
            std::string::npos) << read_error(pass_trace(1366, 65536));
  EXPECT_NE(read_error(pass_trace(1000, 65536, 2)).find("/frames/1: the trace draws 393216000 vertices"), std::string::npos);
  EXPECT_EQ(read_error(pass_trace(1365, 65536)), "(read without error)");
}

// Every priced finding simulates the whole trace again: 200 passes with about two findings each took
// minutes. Refused after the first simulation, before any pricing, naming the counts.
TEST_F(Hardening, AdvisePricingWorkIsCapped) {
  write_text(m_dir / "many.json", pass_trace(200, 1));
  expect_refused("advise " + (m_dir / "many.json").string() + " --threads 1 --json " + (m_dir / "a.json").string(),
                 "many.json: advise would price");
  EXPECT_NE(m_stderr.find("by simulating the 200 passes of the trace for each"), std::string::npos) << m_stderr;
  EXPECT_FALSE(fs::exists(m_dir / "a.json"));
  write_text(m_dir / "few.json", pass_trace(8, 1));
  EXPECT_EQ(run_cli("advise " + (m_dir / "few.json").string() + " --threads 1"), 0) << m_stderr;
}

// A sweep keeps little per configuration: 20,000 grid rows resolved (then refused for a missing
// trace) peak under 120 MB, where each row's resolved parameter tree took about 13 KB (260 MB).
TEST_F(Hardening, SweepConfigurationsTakeLittleMemoryEach) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's shadow memory is not the tool's";
  std::string grid = "dram.bytes_per_cycle,tiling.width\n";
  for (int row = 0; row < 20000; ++row) grid += std::to_string(8 + row % 64) + "," + std::to_string(16 + 16 * (row % 2)) + "\n";
  write_text(m_dir / "grid.csv", grid);
  // GNU time's %M: the largest resident set of `timeout` and what it waited for (the sweep), in KiB.
  const fs::path peak = m_dir / "peak.txt";
  EXPECT_EQ(run_cli("sweep " + (m_dir / "absent.json").string() + " --quiet -j 1 --grid " + (m_dir / "grid.csv").string() +
                        " --out " + (m_dir / "s").string(),
                    "/usr/bin/time -f %M -o " + peak.string() + " "),
            2) << m_stderr;
  EXPECT_NE(m_stderr.find("absent.json"), std::string::npos) << m_stderr;
  std::string kib = slurp(peak);  // "Command exited with non-zero status 2\n" first, then %M
  kib = kib.substr(kib.find_last_of('\n', kib.size() - 2) + 1);
  EXPECT_LT(std::stol(kib), 120 * 1024) << "peak KiB of the sweep";
  EXPECT_FALSE(fs::exists(m_dir / "s"));
}

// A sweep estimated configurations that differ only in write_elim once: `--vary write_elim=none,te` over a
// 16-image swapchain counted no TE signatures (64.0 MiB, where `te` needs 66.0). Now every parameter the
// estimate reads tells configurations apart.
TEST_F(Hardening, SweepMemoryEstimateTellsWriteEliminationApart) {
  std::string trace = kTinyTrace;
  const std::string image = R"("width": 16, "height": 16})";
  trace.replace(trace.find(image), image.size(), R"("width": 2048, "height": 2048, "swapchain": 16})");
  write_text(m_dir / "big.json", trace);
  expect_refused("sweep " + (m_dir / "big.json").string() + " --vary write_elim=none,te --no-reuse -j 1 --quiet --max-memory 65M "
                 "--out " + (m_dir / "s").string(),
                 "sweep: the configuration needs about 66.0 MiB");
  EXPECT_FALSE(fs::exists(m_dir / "s"));
}

// The configurations a grid chooses are a term of the budget, checked before any is resolved.
TEST_F(Hardening, SweepConfigurationsAreATermOfTheMemoryBudget) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  std::string grid = "dram.bytes_per_cycle\n";
  for (int row = 0; row < 20000; ++row) grid += std::to_string(8 + row % 64) + "\n";
  write_text(m_dir / "grid.csv", grid);
  expect_refused("sweep " + (m_dir / "tiny.json").string() + " --quiet -j 1 --grid " + (m_dir / "grid.csv").string() +
                     " --max-memory 1M --out " + (m_dir / "s").string(),
                 "grid.csv: the configuration needs about");
  EXPECT_NE(m_stderr.find("most of it sweep configurations"), std::string::npos) << m_stderr;
  EXPECT_NE(m_stderr.find("(20000 configurations of --grid "), std::string::npos) << m_stderr;
  EXPECT_FALSE(fs::exists(m_dir / "s"));
}

// A texture an MTL file names is reported with the OBJ, the MTL file, the material and map_Kd.
TEST_F(Hardening, MtlTextureErrorsNameTheMtlFileAndTheField) {
  fs::create_directories(m_dir / "scene");
  write_text(m_dir / "scene" / "m.mtl", "newmtl other\nKd 1 1 1\nnewmtl m\nmap_Kd " + (m_dir / "x.png").string() + "\n");
  write_text(m_dir / "scene" / "s.obj", "mtllib m.mtl\nusemtl m\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/1\n");
  expect_import_refused(m_dir / "scene" / "s.obj", "s.obj: m.mtl: material \"m\": map_Kd \"" + (m_dir / "x.png").string() +
                                                       "\": file \"" + (m_dir / "x.png").string() + "\" is an absolute path");
  write_text(m_dir / "scene" / "bad.png", "not a PNG");
  write_text(m_dir / "scene" / "m.mtl", "newmtl m\nmap_Kd bad.png\n");
  expect_import_refused(m_dir / "scene" / "s.obj", "m.mtl: material \"m\": map_Kd \"bad.png\": cannot be decoded");
}

// The file that probes an output folder is a staged name of this process, so one a run killed between
// creating and removing it left (mkstemp's .tbdrsim-probe-XXXXXX stayed for good) goes at the next start.
TEST_F(Hardening, OutputFolderProbeIsRemovedAtTheNextStart) {
  EXPECT_EQ(staged_owner(probe_path(m_dir).filename().string()), ::getpid()) << probe_path(m_dir);
  const fs::path left = m_dir / "sub" / ".tbdrsim-probe.tmp-tbdrsim-999999-0123456789abcdef";
  fs::create_directories(left.parent_path());
  write_text(left, "");
  write_text(m_dir / "tiny.json", kTinyTrace);
  EXPECT_EQ(run_cli("run " + (m_dir / "tiny.json").string() + " --threads 1 --no-images --quiet --json " +
                    (m_dir / "sub" / "new" / "r.json").string()), 0) << m_stderr;
  EXPECT_FALSE(fs::exists(left));
}

// `compare` read its reports with std::ifstream: `--html B.json` overwrote the report it compared, a FIFO
// hung, a folder was an I/O error and a repeated key was read as its last copy. Read as every input is.
TEST_F(Hardening, CompareReadsReportsAsInputs) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const std::string a = (m_dir / "a.json").string(), b = (m_dir / "b.json").string();
  ASSERT_EQ(run_cli("run " + (m_dir / "tiny.json").string() + " --threads 1 --no-images --quiet --json " + a), 0) << m_stderr;
  ASSERT_EQ(run_cli("run " + (m_dir / "tiny.json").string() + " --threads 1 --no-images --quiet --preset mali-g710 --json " + b),
            0) << m_stderr;
  const std::string report_b = slurp(b), compare = "compare " + a + " ";
  expect_refused(compare + b + " --html " + b, "b.json: is an input of this run");
  expect_refused(compare + b + " --json " + a, "a.json: is an input of this run");
  EXPECT_EQ(slurp(b), report_b);
  ASSERT_EQ(::mkfifo((m_dir / "fifo.json").c_str(), 0600), 0);
  expect_refused(compare + (m_dir / "fifo.json").string(), "fifo.json");
  fs::create_directories(m_dir / "folder.json");
  expect_refused(compare + (m_dir / "folder.json").string(), "folder.json");
  std::string repeated = report_b;
  repeated.insert(repeated.find('{') + 1, "\"preset\": \"x\", ");
  write_text(m_dir / "repeated.json", repeated);
  expect_refused(compare + (m_dir / "repeated.json").string(), "repeated.json");
  EXPECT_NE(m_stderr.find("preset"), std::string::npos) << m_stderr;
  EXPECT_EQ(run_cli(compare + b), 0) << m_stderr;
}

// `--html -`, `--trace-events -`, `compare --html -` wrote a file named "-" (exit 0) where stdout was
// meant; only --json, --csv and --vs-json take "-".
TEST_F(Hardening, DashIsStdoutOnlyWhereDocumented) {
  write_text(m_dir / "tiny.json", kTinyTrace);
  const std::string in_dir = "cd " + m_dir.string() + " && ", run = "run tiny.json --threads 1 --no-images --quiet ";
  for (const std::string option : {"--html", "--draws-csv", "--trace-events"}) {
    SCOPED_TRACE(option);
    EXPECT_EQ(run_cli(run + option + " -", in_dir), 2) << m_stderr;
    EXPECT_NE(m_stderr.find(option + " -: writes a file, not stdout"), std::string::npos) << m_stderr;
  }
  EXPECT_EQ(run_cli(run + "--json r.json", in_dir), 0) << m_stderr;
  EXPECT_EQ(run_cli("compare r.json r.json --html -", in_dir), 2) << m_stderr;
  EXPECT_EQ(run_cli(run + "--vs mali-g710 --vs-html -", in_dir), 2) << m_stderr;
  EXPECT_FALSE(fs::exists(m_dir / "-"));
  EXPECT_EQ(run_cli(run + "--html ./-", in_dir), 0) << "./- names a file: " << m_stderr;
  EXPECT_TRUE(fs::exists(m_dir / "-"));
  EXPECT_EQ(run_cli(run + "--json -", in_dir, "> " + (m_dir / "stdout.json").string()), 0) << m_stderr;
  EXPECT_NE(slurp(m_dir / "stdout.json").find("\"tbdrsim-report\""), std::string::npos);
}

// validate --write-readme wrote README.md.tmp, a fixed name: a symlink planted there was followed (its
// target overwritten) and a killed run's file stayed. Now staged like every output.
TEST_F(Hardening, ValidationReadmeIsWrittenStaged) {
  const fs::path readme = m_dir / "README.md", victim = m_dir / "victim.txt";
  write_text(readme, std::string("intro\n") + validation::k_begin_marker + "\nold table\n" + validation::k_end_marker + "\nend\n");
  write_text(victim, "keep");
  fs::create_symlink(victim, m_dir / "README.md.tmp");
  const fs::path stale = m_dir / ".README.md.tmp-tbdrsim-99999999-0123456789abcdef";  // a PID above Linux's 2^22
  write_text(stale, "left by a killed run");
  validation::replace_readme_section(readme, "new table\n");
  EXPECT_EQ(slurp(victim), "keep");
  EXPECT_NE(slurp(readme).find("new table"), std::string::npos) << slurp(readme);
  EXPECT_EQ(slurp(readme).find("old table"), std::string::npos) << slurp(readme);
  EXPECT_FALSE(fs::exists(stale));
  for (const auto& entry : fs::directory_iterator(m_dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-tbdrsim"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace tbdr
