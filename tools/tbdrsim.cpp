// The `tbdrsim` command line (CLI11): `run` simulates a trace and writes the report and images,
// `models` lists every model kind, implementation and parameter.
#include <CLI/CLI.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <iostream>
#include <memory>

#include "frontend/import_scene.h"
#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tools/lib/heatmaps.h"
#include "tools/lib/image_diff.h"
#include "tools/lib/output.h"
#include "tools/lib/report.h"
#include "tools/lib/sweep.h"

namespace fs = std::filesystem;

namespace {

// The bundled default trace: next to the binary (copied by the build), else in the source tree.
fs::path default_trace() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path() / "traces" / "default" / "scene.json";
    if (fs::exists(beside)) return beside;
  }
  return fs::path(TBDR_SOURCE_TRACES) / "default" / "scene.json";
}

struct RunOptions {
  std::string trace;
  std::string preset = "reference";
  std::vector<std::string> sets;
  std::vector<std::string> tiles;
  std::string out = "out";
  std::string json;
  bool no_images = false;
  bool imr = false;
  bool quiet = false;
  bool heatmaps = false;
  unsigned threads = 0;
  bool time = false;
};

// Applies --set and --tile in the order they were given on the command line (architecture.md:
// applied left to right after the preset).
tbdr::models::Configuration configuration(const CLI::App& run, const RunOptions& o, CLI::Option* set_opt,
                                          CLI::Option* tile_opt) {
  tbdr::models::Configuration config = tbdr::models::Configuration::from_preset(o.preset);
  size_t next_set = 0, next_tile = 0;
  for (const CLI::Option* opt : run.parse_order()) {
    if (opt == set_opt) config.apply(o.sets.at(next_set++));
    else if (opt == tile_opt) config.set_tile(o.tiles.at(next_tile++));
  }
  return config;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tbdrsim-import-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder");
    path = pattern;
    tbdr::register_temporary(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
    tbdr::unregister_temporary(path);
  }
};

struct ImportCli {
  std::string scene, out, camera;
  uint32_t width = 0, height = 0;
};
struct DiffCli {
  std::string a, b, out;
  double max_mismatch = 0;
  int tolerance = 1;
};

int import_command(const ImportCli& c) {
  tbdr::ImportOptions options;
  options.width = c.width;
  options.height = c.height;
  options.camera = c.camera;
  const tbdr::ImportSummary s = tbdr::import_scene(c.scene, c.out, options);
  std::cout << "imported " << c.scene << " -> " << s.trace.string() << ": " << s.meshes << " meshes, " << s.draws
            << " draws, " << s.vertices << " vertices, " << s.triangles << " triangles, " << s.textures << " textures, "
            << (s.automatic_camera ? "automatic camera" : "scene camera") << "\n";
  for (const std::string& w : s.warnings) std::cerr << "tbdrsim: warning: " << w << "\n";
  return 0;
}

// Exit 0 when the mismatching fraction is within --max-mismatch, 1 otherwise (2: bad input).
int diff_command(const DiffCli& c) {
  const tbdr::ImageDiff d = tbdr::diff_images(c.a, c.b, c.tolerance);
  if (!c.out.empty()) tbdr::write_heat_png(d, c.out);
  const bool pass = d.mismatch_fraction() <= c.max_mismatch;
  std::cout << tbdr::describe(d, c.tolerance) << (pass ? "" : " -> over the threshold") << "\n";
  return pass ? 0 : 1;
}

int run_command(const CLI::App& run, const RunOptions& o, CLI::Option* set_opt, CLI::Option* tile_opt) {
  // Everything that can reject the input happens before any output is created.
  const tbdr::models::Configuration config = configuration(run, o, set_opt, tile_opt);
  const tbdr::models::ModelSet models = tbdr::models::build_models(config);
  const fs::path trace_path = o.trace.empty() ? default_trace() : fs::path(o.trace);
  // A glTF/OBJ scene is imported with default settings into a temporary folder, removed afterwards.
  std::unique_ptr<TempDir> imported;
  if (tbdr::is_importable_scene(trace_path)) imported = std::make_unique<TempDir>();
  const tbdr::Trace trace = imported ? tbdr::read_trace(tbdr::import_scene(trace_path, imported->path / "scene.json").trace)
                                     : tbdr::read_trace(trace_path);

  tbdr::OutputFolder output(o.out, !o.no_images);
  tbdr::SimOptions options;
  options.path = o.imr ? tbdr::RenderPath::imr : tbdr::RenderPath::tbdr;
  options.overdraw = o.heatmaps;
  options.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto start = std::chrono::steady_clock::now();
  const tbdr::RunStats stats = tbdr::simulate(trace, models, options, &output);
  if (o.time) {  // tools/bench_llvmpipe reads this line: simulate() only, trace parsing excluded
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::fprintf(stderr, "tbdrsim: simulate %.6f s, peak RSS %.1f MiB\n", seconds, double(usage.ru_maxrss) / 1024.0);
  }
  if (o.heatmaps) tbdr::write_heatmaps(stats, output, o.out);

  tbdr::ReportContext context{trace.path, trace.name, config.preset_name(), models.resolved, trace.warnings};
  if (!o.json.empty()) output.add_file(o.json, tbdr::report_json(context, stats).dump(2) + "\n");
  output.commit();
  if (!o.quiet) std::cout << tbdr::report_text(context, stats);
  for (const std::string& w : trace.warnings) std::cerr << "tbdrsim: warning: " << w << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tbdrsim: a cycle-approximate simulator of tile-based deferred rendering GPUs"};
  app.require_subcommand(1);

  RunOptions o;
  CLI::App* run = app.add_subcommand("run", "simulate a trace: per-pass report, images, JSON");
  run->add_option("trace", o.trace, "trace file (.json, format in traces/README.md) or a .gltf/.glb/.obj scene (imported with default settings); default: the bundled scene");
  run->add_option("--preset", o.preset, "preset name (models/presets/*.json) or preset JSON file")->capture_default_str();
  CLI::Option* set_opt = run->add_option(
      "--set", o.sets, "KIND=IMPL picks an implementation, KIND.PARAM=VALUE sets a parameter; repeatable, left to right");
  CLI::Option* tile_opt = run->add_option("--tile", o.tiles, "WxH: shorthand for --set tiling.width=W --set tiling.height=H");
  run->add_option("--out", o.out, "folder for the images (PNG per stored attachment)")->capture_default_str();
  run->add_option("--json", o.json, "write the report (schema v1, traces/README.md) to this file");
  run->add_flag("--no-images", o.no_images, "write no images");
  run->add_flag("--imr", o.imr, "render through the immediate-mode reference path instead of tiles");
  run->add_flag("--quiet", o.quiet, "print no report on stdout");
  run->add_flag("--time", o.time, "print simulate()'s wall time (trace parsing excluded) and the peak RSS on stderr");
  run->add_option("--threads", o.threads,
                  "threads for the tiles of each pass (default: all cores); outputs are identical for any count");
  run->add_flag("--heatmaps", o.heatmaps,
                "also write heatmap PNGs into --out: per-tile cycles and DRAM bytes, fragments per pixel (overdraw)");

  CLI::App* models_cmd = app.add_subcommand("models", "list every model kind, implementation, parameter and preset");

  // sweep / sweep-merge (tools/lib/sweep.h; README "Sweeps").
  tbdr::sweep::SweepOptions so;
  std::vector<std::string> sweep_sets, sweep_tiles, sweep_varies, merge_dirs;
  std::string merge_out;
  bool merge_quiet = false;
  CLI::App* sweep_cmd = app.add_subcommand("sweep", "simulate many configurations over traces: results.csv/json, resumable");
  sweep_cmd->add_option("traces", so.traces, "trace files; default: the bundled scene");
  sweep_cmd->add_option("--preset", so.preset, "preset every configuration starts from")->capture_default_str();
  CLI::Option* sweep_set = sweep_cmd->add_option("--set", sweep_sets, "fixed KIND=IMPL or KIND.PARAM=VALUE, left to right");
  CLI::Option* sweep_tile = sweep_cmd->add_option("--tile", sweep_tiles, "fixed WxH, left to right");
  CLI::Option* sweep_vary = sweep_cmd->add_option(
      "--vary", sweep_varies, "KEY=v1,v2,...: what --set takes (or tile=WxH,...) with a comma list; cartesian product, first --vary slowest");
  CLI::Option* sweep_grid = sweep_cmd->add_option("--grid", so.grid, "explicit configurations: CSV (header KEY,...) or JSON file");
  sweep_cmd->add_option("-j,--jobs", so.jobs, "workers (default: the number of cores)");
  sweep_cmd->add_option("--shard", so.shard, "K/N: run configurations i with i % N == K - 1 (merge with sweep-merge)");
  sweep_cmd->add_flag("--quiet", so.quiet, "no progress line and no summary");
  sweep_cmd->add_option("--out", so.out, "sweep folder: sweep.json, parts/, results.csv, results.json, attachments.csv")->required();
  CLI::App* merge_cmd = app.add_subcommand("sweep-merge", "combine the shard folders of one sweep into one folder");
  merge_cmd->add_option("dirs", merge_dirs, "shard folders")->required();
  merge_cmd->add_option("--out", merge_out, "the merged sweep folder")->required();
  merge_cmd->add_flag("--quiet", merge_quiet, "no summary");

  // import / diff (issue 6): frontend/import_scene.h, tools/lib/image_diff.h.
  ImportCli ic;
  CLI::App* import_cmd = app.add_subcommand("import", "convert a glTF 2.0 (.gltf/.glb) or OBJ scene into a trace folder");
  import_cmd->add_option("scene", ic.scene, "scene file (.gltf, .glb, .obj)")->required();
  import_cmd->add_option("-o,--out", ic.out, "the trace JSON to write (DIR/TRACE.json; sidecar and textures go next to it)")->required();
  import_cmd->add_option("--width", ic.width, "framebuffer width (default 640)");
  import_cmd->add_option("--height", ic.height, "framebuffer height (default 480, or from the camera's aspect ratio)");
  import_cmd->add_option("--camera", ic.camera, "camera index N, or \"auto\" to frame the bounds (default: the first camera, else auto)");
  DiffCli dc;
  CLI::App* diff_cmd = app.add_subcommand("diff", "compare two PNG images: identical pixels, max difference, PSNR");
  diff_cmd->add_option("a", dc.a, "first PNG")->required();
  diff_cmd->add_option("b", dc.b, "second PNG")->required();
  diff_cmd->add_option("--out", dc.out, "write a heat image of the differences (PNG)");
  diff_cmd->add_option("--max-mismatch", dc.max_mismatch, "largest fraction of pixels allowed to differ (exit 1 beyond)")->capture_default_str();
  diff_cmd->add_option("--tolerance", dc.tolerance, "per-channel difference (8-bit LSB) still counted as identical")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  // `run` removes its temporaries when interrupted (SIGINT/SIGTERM) and exits 128 + signal.
  if (!*models_cmd && !*sweep_cmd && !*merge_cmd && !*import_cmd && !*diff_cmd) tbdr::install_interrupt_cleanup("tbdrsim");

  try {
    if (*models_cmd) {
      std::cout << tbdr::models::describe_models();
      std::cout << "\npresets:";
      for (const std::string& p : tbdr::models::preset_names()) std::cout << " " << p;
      std::cout << "\n";
      return 0;
    }
    if (*sweep_cmd) {
      size_t next_set = 0, next_tile = 0, next_vary = 0;
      using Step = tbdr::sweep::Step;
      for (const CLI::Option* opt : sweep_cmd->parse_order()) {
        if (opt == sweep_set) so.steps.push_back({Step::Kind::set, sweep_sets.at(next_set++)});
        else if (opt == sweep_tile) so.steps.push_back({Step::Kind::tile, sweep_tiles.at(next_tile++)});
        else if (opt == sweep_vary) so.steps.push_back({Step::Kind::vary, sweep_varies.at(next_vary++)});
        else if (opt == sweep_grid) so.steps.push_back({Step::Kind::grid, ""});
      }
      if (so.traces.empty()) so.traces.push_back(default_trace().string());
      tbdr::sweep::run_sweep(so);
      return 0;
    }
    if (*merge_cmd) {
      tbdr::sweep::merge_sweeps(merge_dirs, merge_out, merge_quiet);
      return 0;
    }
    if (*import_cmd) return import_command(ic);
    if (*diff_cmd) return diff_command(dc);
    return run_command(*run, o, set_opt, tile_opt);
  } catch (const tbdr::InputError& e) {
    std::cerr << "tbdrsim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tbdrsim: error: " << e.what() << "\n";
    return 1;
  }
}
