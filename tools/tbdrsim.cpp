// The `tbdrsim` command line (CLI11): `run` simulates a trace and writes the report and images,
// `models` lists every model kind, implementation and parameter; `validate` compares with measurements.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <iostream>
#include <memory>
#include <sstream>

#include "frontend/import_scene.h"
#include "frontend/staged_file.h"
#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "sim/huge_pages.h"
#include "sim/memory_estimate.h"
#include "sim/pipeline.h"
#include "tools/commands/advise.h"
#include "tools/commands/calibrate.h"
#include "tools/commands/heatmaps.h"
#include "tools/commands/compare.h"
#include "tools/commands/html_report.h"
#include "tools/commands/trace_events.h"
#include "tools/commands/image_diff.h"
#include "tools/commands/install_paths.h"
#include "tools/commands/measurements.h"
#include "tools/commands/output.h"
#include "tools/commands/captured_notes.h"
#include "tools/commands/report.h"
#include "tools/commands/sweep.h"
#include "tools/commands/validation.h"
#include "tools/commands/version.h"

namespace fs = std::filesystem;

namespace {

// The bundled default trace (tools/commands/install_paths.h: beside the installed or the built binary).
fs::path default_trace() { return tbdr::bundled_traces() / "default" / "scene.json"; }

struct RunOptions {
  std::string trace;
  std::string preset = "reference";
  std::vector<std::string> sets;
  std::vector<std::string> tiles;
  std::string out = "out";
  std::string json;
  std::string html;
  bool advise = false;
  std::string csv;
  std::string draws_csv;
  std::string trace_events;  // --trace-events: the schedule for trace viewers (tools/commands/trace_events.h)
  std::string vs, vs_json, vs_html;  // --vs PRESET: the same run under a second preset, compared
  bool no_images = false;
  bool imr = false;
  bool quiet = false;
  bool heatmaps = false;
  unsigned threads = 0;
  bool time = false;
  unsigned repeat = 1;
  uint64_t max_memory = tbdr::kDefaultMemoryBudget;
};

// Applies --set and --tile in the order they were given on the command line (tools/doc/design.md "Design rules":
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
  // Named by this process, so the next run removes it should this one be killed (tools/doc/cli.md "Output
  // files and input limits").
  TempDir() : path(tbdr::make_temporary_folder("tbdrsim-import")) { tbdr::register_temporary(path); }
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
struct ValidateCli {
  std::string dir;  // empty: the bundled traces/validation
  std::string write_readme;
  std::string calibrated;  // a fitted preset shown beside mali-g76
  bool strict = false;     // exit 1 for any row outside, a known cause or not
  std::string json;        // --json FILE|-
  unsigned threads = 0;
  uint64_t max_memory = tbdr::kDefaultMemoryBudget;
};

// Prints the dated validation table (and writes it into models/README.md with --write-readme; the
// table as JSON with --json, alone on stdout for "-"). Ends with "N of M within". Exit 1 when a row
// lies outside its tolerance without a known cause, or with --strict outside it at all.
int validate_command(const ValidateCli& c) {
  std::vector<tbdr::NamedOutput> files;  // before any work, as every output path
  if (!c.json.empty() && c.json != "-") {
    tbdr::check_output_path(c.json, false, "--json");
    files.push_back({"--json", c.json});
  }
  if (!c.write_readme.empty()) {
    tbdr::check_output_path(c.write_readme, false, "--write-readme");
    tbdr::validation::check_readme_section(c.write_readme);
    files.push_back({"--write-readme", c.write_readme});
  }
  tbdr::check_distinct_outputs(files, tbdr::NamedOutput{});
  if (!c.calibrated.empty()) tbdr::models::build_models(tbdr::models::Configuration::from_preset(c.calibrated));
  const unsigned threads = c.threads ? c.threads : std::max(1u, std::thread::hardware_concurrency());
  // The bundled table; --dir only moves the traces.
  const fs::path table = tbdr::bundled_traces() / "validation" / "measurements.csv";
  const fs::path dir = c.dir.empty() ? table.parent_path() : fs::path(c.dir);
  std::vector<std::string> warnings;
  const std::vector<tbdr::validation::Row> rows =
      tbdr::validation::run_validation(table, dir, threads, "mali-g76", c.max_memory, true, &warnings);
  for (const std::string& w : warnings) std::cerr << "tbdrsim: warning: " << w << "\n";
  std::vector<tbdr::validation::Row> calibrated_rows;
  if (!c.calibrated.empty()) calibrated_rows = tbdr::validation::run_validation(table, dir, threads, c.calibrated, c.max_memory, true);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  const std::string text = std::string("Generated by `tbdrsim validate` (preset `mali-g76`, traces/validation) on ") + date +
                           ".\n\n" + tbdr::validation::table_markdown(rows);
  if (!c.write_readme.empty()) tbdr::validation::replace_readme_section(c.write_readme, text);
  bool stdout_taken = false;
  if (!c.json.empty()) {
    nlohmann::ordered_json body = {{"preset", "mali-g76"}};
    body["table"] = tbdr::validation::table_json(rows);
    if (!c.calibrated.empty())
      body["calibrated"] = {{"preset", tbdr::models::Configuration::from_preset(c.calibrated).preset_name()},
                            {"table", tbdr::validation::table_json(calibrated_rows)}};
    stdout_taken = tbdr::write_json_output(c.json, tbdr::json_document("tbdrsim-validation", 1, body, warnings).dump(2) + "\n");
  }
  if (!stdout_taken) {
    std::cout << text;
    if (!c.calibrated.empty())
      std::cout << "\nSide by side with `" << c.calibrated << "`:\n\n"
                << tbdr::validation::side_by_side_markdown(rows, calibrated_rows,
                                                           tbdr::models::Configuration::from_preset(c.calibrated).preset_name());
    std::cout << "\n" << tbdr::validation::summary_line(rows) << "\n";
  }
  return tbdr::validation::exit_status(rows, c.strict);
}

// The defaults are the correctness rule for images compared with Mesa llvmpipe
// (traces/README.md "Reference renderer"): at least 99.8 % of the pixels within 1 LSB, PSNR >= 54 dB.
// An exact comparison (two configurations of tbdrsim) is --max-mismatch 0 --tolerance 0.
struct DiffCli {
  std::string a, b, out, json;
  double max_mismatch = 0.002;
  double min_psnr = 54;
  int tolerance = 1;
};

int import_command(const ImportCli& c) {
  tbdr::check_output_path(c.out, false, "-o");
  tbdr::ImportOptions options;
  options.width = c.width;
  options.height = c.height;
  options.camera = c.camera;
  const tbdr::ImportSummary s = tbdr::import_scene(c.scene, c.out, options);
  std::cout << "imported " << c.scene << " -> " << s.trace.string() << ": " << s.meshes << " meshes, " << s.draws
            << " draws, " << s.vertices << " vertices, " << s.triangles << " triangles, "
            << (s.lines ? std::to_string(s.lines) + " lines, " : "") << (s.points ? std::to_string(s.points) + " points, " : "")
            << s.textures << " textures, "
            << (s.automatic_camera ? "automatic camera" : "scene camera") << ", " << s.width << "x" << s.height << " ("
            << s.size_reason << ")\n";
  for (const std::string& w : s.warnings) std::cerr << "tbdrsim: warning: " << w << "\n";
  return 0;
}

// An output path that names an input file (existing or not yet: the same path) is refused.
void check_not_input(const std::string& output, const std::string& option, const fs::path& input) {
  std::error_code ec;
  if (fs::weakly_canonical(output, ec) == fs::weakly_canonical(input, ec) || fs::equivalent(output, input, ec))
    throw tbdr::InputError(option + " " + output, "is the input " + input.string() + "; give another file");
}

// Exit 0 when the mismatching fraction is within --max-mismatch and the PSNR at least --min-psnr,
// 1 otherwise (2: bad input).
int diff_command(const DiffCli& c) {
  // NaN passes CLI11's range checks.
  if (!(c.max_mismatch >= 0 && c.max_mismatch <= 1))
    throw tbdr::InputError("--max-mismatch", "expected a fraction in [0, 1], got " + std::to_string(c.max_mismatch));
  if (std::isnan(c.min_psnr)) throw tbdr::InputError("--min-psnr", "expected a number of dB");
  if (!c.out.empty()) {
    tbdr::check_output_path(c.out, false, "--out");
    std::error_code ec;
    for (const std::string& input : {c.a, c.b})
      if (fs::equivalent(c.out, input, ec))
        throw tbdr::InputError("--out " + c.out, "is the input " + input + "; give another file");
  }
  if (!c.json.empty() && c.json != "-") {
    tbdr::check_output_path(c.json, false, "--json");
    check_not_input(c.json, "--json", c.a);
    check_not_input(c.json, "--json", c.b);
    if (!c.out.empty()) tbdr::check_distinct_outputs({{"--json", c.json}, {"--out", c.out}}, tbdr::NamedOutput{});
  }
  const tbdr::ImageDiff d = tbdr::diff_images(c.a, c.b, c.tolerance);
  if (!c.out.empty()) tbdr::write_heat_png(d, c.out);
  const bool pass = d.mismatch_fraction() <= c.max_mismatch && d.psnr >= c.min_psnr;
  bool stdout_taken = false;
  if (!c.json.empty()) {
    nlohmann::ordered_json body = {{"a", c.a}, {"b", c.b}};
    const nlohmann::ordered_json figures = tbdr::diff_json(d, c.tolerance);  // kept: items() refers into it
    for (const auto& [key, value] : figures.items()) body[key] = value;
    body["max_mismatch"] = c.max_mismatch;
    body["min_psnr_db"] = c.min_psnr;
    body["within"] = pass;
    stdout_taken = tbdr::write_json_output(c.json, tbdr::json_document("tbdrsim-diff", 1, body, {}).dump(2) + "\n");
  }
  char rule[160];
  std::snprintf(rule, sizeof rule, " -> %s (at most %.3f%% of the pixels differing, PSNR >= %.1f dB)",
                pass ? "within the threshold" : "over the threshold", 100 * c.max_mismatch, c.min_psnr);
  if (!stdout_taken) std::cout << tbdr::describe(d, c.tolerance) << rule << "\n";
  return pass ? 0 : 1;
}

// `tbdrsim models`: the text list, or with --json the same as JSON (alone on stdout for "-").
int models_command(const std::string& json_path) {
  if (!json_path.empty() && json_path != "-") tbdr::check_output_path(json_path, false, "--json");
  if (!json_path.empty() &&
      tbdr::write_json_output(json_path, tbdr::json_document("tbdrsim-models", 1, tbdr::models::models_json(), {}).dump(2) + "\n"))
    return 0;
  std::cout << tbdr::models::describe_models();
  std::cout << "\npresets:";
  for (const std::string& p : tbdr::models::preset_names()) std::cout << " " << p;
  std::cout << "\n";
  return 0;
}

struct AdviseCli {
  std::string trace, preset = "reference", json, out;
  double fps = 60;
  std::vector<std::string> apply;
  bool all = false;
  unsigned threads = 0;
  uint64_t max_memory = tbdr::kDefaultMemoryBudget;
};

// advise -o: an edited trace that names files (a mesh's .bin, a texture's .png) must be written into
// the trace's folder, where those names resolve (a trace's files lie inside its folder,
// traces/README.md); checked before anything is simulated.
void check_beside_trace(const std::string& output, const fs::path& trace) {
  const fs::path out_dir = fs::path(output).parent_path().empty() ? fs::path(".") : fs::path(output).parent_path();
  const fs::path trace_dir = trace.parent_path().empty() ? fs::path(".") : trace.parent_path();
  std::error_code ec;
  if (fs::weakly_canonical(fs::absolute(out_dir), ec) == fs::weakly_canonical(fs::absolute(trace_dir), ec)) return;
  const std::string file = tbdr::advise::first_file_reference(tbdr::advise::read_json_file(trace));
  if (file.empty()) return;
  throw tbdr::InputError("-o " + output, "the trace names files relative to its folder (\"" + file +
                                            "\"): write the edited trace into " + trace_dir.string());
}

struct CalibrateCli {
  std::string measurements, out, params;
  tbdr::calibrate::Options options;
};

// Fits the parameters, prints the report (in-sample and held-out error) and writes the fitted preset.
int calibrate_command(CalibrateCli c) {
  tbdr::check_output_path(c.out, false, "-o");
  check_not_input(c.out, "-o", c.measurements);
  std::stringstream list(c.params);
  for (std::string item; std::getline(list, item, ',');)
    if (!item.empty()) c.options.params.push_back(item);
  if (c.options.threads == 0) c.options.threads = std::max(1u, std::thread::hardware_concurrency());
  tbdr::calibrate::resolve_parameters(c.options.preset, c.options.params);  // bad names before any simulation
  const auto rows = tbdr::measurements::read_measurements(c.measurements);
  const tbdr::calibrate::Result result = tbdr::calibrate::calibrate(rows, c.options);
  const std::string name = tbdr::models::Configuration::from_preset(c.options.preset).preset_name() + "-calibrated";
  tbdr::OutputFolder output(".", false);
  output.add_file(c.out, tbdr::calibrate::fitted_preset(result, c.options, name).dump(2) + "\n");
  output.commit();
  std::cout << tbdr::calibrate::report_text(result) << "wrote " << c.out << "\n";
  return 0;
}

// Lists the findings (text on stdout, --json), and with --apply writes the edited trace to -o.
int advise_command(const AdviseCli& c) {
  // Bounded so every MB/s and per-second figure stays finite (--fps 1e308 printed "inf MB/s", --fps inf
  // wrote "fps": null); 10000 is far above any display's rate (tools/doc/advise.md "Ask what to change").
  if (!(c.fps > 0 && c.fps <= 10000)) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", c.fps);
    throw tbdr::InputError("--fps", std::string("expected a frame rate above 0 and at most 10000, got ") + text);
  }
  const fs::path trace = c.trace.empty() ? default_trace() : fs::path(c.trace);
  if (!c.apply.empty() && c.out.empty()) throw tbdr::InputError("--apply", "needs -o OUT.json for the edited trace");
  if (c.apply.empty() && !c.out.empty()) throw tbdr::InputError("-o " + c.out, "is written only with --apply ID...");
  if (!c.json.empty() && c.json != "-") {
    tbdr::check_output_path(c.json, false, "--json");
    check_not_input(c.json, "--json", trace);
  }
  if (!c.out.empty()) {
    tbdr::check_output_path(c.out, false, "-o");
    check_not_input(c.out, "-o", trace);
    check_beside_trace(c.out, trace);
    if (!c.json.empty() && c.json != "-") check_not_input(c.json, "--json", c.out);
  }
  tbdr::advise::AdviseOptions options;
  options.trace = trace;
  options.preset = c.preset;
  options.fps = c.fps;
  options.threads = c.threads ? c.threads : std::max(1u, std::thread::hardware_concurrency());
  options.max_memory = c.max_memory;
  options.progress = true;
  const tbdr::advise::Advice advice = tbdr::advise::advise(options);
  for (const std::string& w : advice.warnings) std::cerr << "tbdrsim: warning: " << w << "\n";
  tbdr::OutputFolder output(".", false);
  std::string applied;
  if (!c.apply.empty()) {
    const std::vector<const tbdr::advise::Finding*> chosen = tbdr::advise::select(advice, c.apply);
    const nlohmann::json document = tbdr::advise::read_json_file(trace);
    const nlohmann::json edited = tbdr::advise::apply_edits(document, chosen);
    const fs::path out_dir = fs::path(c.out).parent_path().empty() ? fs::path(".") : fs::path(c.out).parent_path();
    // Together, not summed; the files the trace names must resolve next to -o.
    const tbdr::advise::FrameFigures after = tbdr::advise::price(edited, out_dir, c.preset, options.threads);
    uint64_t memory_freed = 0;
    for (const tbdr::advise::Finding* f : chosen) memory_freed += f->memory_bytes;
    applied = "applied " + std::to_string(chosen.size()) + " findings together -> " + c.out + ": " +
              tbdr::advise::change_text(advice.before, after, c.fps, memory_freed) + "\n";
    output.add_file(c.out, edited.dump(2) + "\n");
  }
  const std::string json_text = c.json.empty() ? "" : tbdr::advise::advice_json(advice, c.all).dump(2) + "\n";
  if (!c.json.empty() && c.json != "-") output.add_file(c.json, json_text);
  output.commit();
  if (c.json == "-") std::cout << json_text;  // stdout carries the JSON alone; the summary of --apply goes to stderr
  else std::cout << tbdr::advise::advice_text(advice, c.all);
  (c.json == "-" ? std::cerr : std::cout) << applied;
  return 0;
}

// `--json -` and `--csv -` write to stdout, in place of the text report; only one of them can.
void check_report_paths(const RunOptions& o) {
  if (o.json == "-" && o.csv == "-") throw tbdr::InputError("--csv -", "--json - already writes to stdout; give --csv a file");
  if (!o.json.empty() && o.json != "-") tbdr::check_output_path(o.json, false, "--json");
  if (!o.csv.empty() && o.csv != "-") tbdr::check_output_path(o.csv, false, "--csv");
  if (!o.draws_csv.empty()) tbdr::check_output_path(o.draws_csv, false, "--draws-csv");
  if (!o.html.empty()) tbdr::check_output_path(o.html, false, "--html");
  std::vector<tbdr::NamedOutput> files;
  for (const auto& [option, path] : {std::pair{"--json", o.json}, {"--csv", o.csv}})
    if (!path.empty() && path != "-") files.push_back({option, path});
  if (!o.trace_events.empty()) tbdr::check_output_path(o.trace_events, false, "--trace-events");
  if (!o.vs_json.empty() && o.vs_json != "-") tbdr::check_output_path(o.vs_json, false, "--vs-json");
  if (!o.vs_html.empty()) tbdr::check_output_path(o.vs_html, false, "--vs-html");  // "-" is not stdout here
  if (o.vs.empty() && (!o.vs_json.empty() || !o.vs_html.empty()))
    throw tbdr::InputError(o.vs_json.empty() ? "--vs-html" : "--vs-json", "writes the comparison of --vs: give --vs PRESET");
  if (o.vs_json == "-" && (o.json == "-" || o.csv == "-")) throw tbdr::InputError("--vs-json -", "stdout is taken already; give a file");
  if (o.vs_json != "-" && !o.vs_json.empty()) files.push_back({"--vs-json", o.vs_json});
  for (const auto& [option, path] : {std::pair{"--draws-csv", o.draws_csv}, {"--html", o.html}, {"--trace-events", o.trace_events},
                                     {"--vs-html", o.vs_html}})
    if (!path.empty()) files.push_back({option, path});
  tbdr::check_distinct_outputs(files, !o.no_images || o.heatmaps ? tbdr::NamedOutput{"--out", o.out} : tbdr::NamedOutput{});
  if (o.advise && o.html.empty()) throw tbdr::InputError("--advise", "its findings go into the HTML report: give --html FILE");
  if (o.advise && (!o.sets.empty() || !o.tiles.empty()))
    throw tbdr::InputError("--advise", "prices the fixes under the preset alone: leave out --set and --tile");
}

// Stages --json and --csv (or keeps the one named "-" for stdout), commits, then prints.
// `advice`: advise's findings for the HTML report (null: none).
void write_reports(const RunOptions& o, const tbdr::ReportContext& context, const tbdr::RunStats& stats,
                   const nlohmann::json& advice, tbdr::OutputFolder& output) {
  std::string to_stdout;
  if (!o.html.empty())
    output.add_file(o.html, tbdr::html_report(tbdr::report_json(context, stats), tbdr::run_heatmaps(stats), advice));
  if (!o.draws_csv.empty()) output.add_file(o.draws_csv, tbdr::draws_csv(stats));
  if (!o.json.empty() || !o.csv.empty()) {
    const nlohmann::json report = tbdr::report_json(context, stats);
    const std::string json_text = report.dump(2) + "\n";
    if (o.json == "-") to_stdout = json_text;
    else if (!o.json.empty()) output.add_file(o.json, json_text);
    if (!o.csv.empty()) {
      const std::string csv_text = tbdr::sweep::report_csv(report);
      if (o.csv == "-") to_stdout = csv_text;
      else output.add_file(o.csv, csv_text);
    }
  }
  output.commit();
  if (!to_stdout.empty()) std::cout << to_stdout;
  else if (!o.quiet) std::cout << tbdr::report_text(context, stats);
}

// Wall time and page faults at the start of a simulate() (--time).
struct RunClock {
  std::chrono::steady_clock::time_point start;
  long minor_faults = 0, major_faults = 0;
  static RunClock now() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return {std::chrono::steady_clock::now(), usage.ru_minflt, usage.ru_majflt};
  }
};

// --time's line on the tiles' workers (sums over workers and renders, tbdr::TileWorkerTimes): busy
// over span is the stage's efficiency against its own workers; busy against the tiles phase of a
// one-thread run shows how much slower each tile ran (bench/README.md "Where the 16-thread tiles go").
void print_tile_workers(const tbdr::TileWorkerTimes& t, const std::string& which) {
  if (t.workers == 0) return;
  std::fprintf(stderr,
               "tbdrsim: tile workers %u: busy %.6f s of %.6f s (%.1f %%), waiting to start %.6f s, idle at the "
               "end %.6f s, other %.6f s%s\n",
               t.workers, t.busy, t.span, t.span > 0 ? 100.0 * t.busy / t.span : 0.0, t.start_wait, t.end_wait,
               t.span - t.busy - t.start_wait - t.end_wait, which.c_str());
}

// --time's lines for one simulate(): wall time and peak RSS, the page faults it took (a fault
// per fresh 4 KiB page or 2 MiB huge page the kernel hands out and zeroes: what makes a first run
// slower than the next, bench/README.md), and the phases. tools/bench_llvmpipe reads them:
// simulate() only, trace parsing excluded.
void print_run_times(const RunClock& clock, const tbdr::PhaseTimes& phases, unsigned run_index, unsigned repeat) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock.start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const std::string which = repeat > 1 ? " (run " + std::to_string(run_index) + " of " + std::to_string(repeat) + ")" : "";
  std::fprintf(stderr, "tbdrsim: simulate %.6f s, peak RSS %.1f MiB%s\n", seconds, double(usage.ru_maxrss) / 1024.0,
               which.c_str());
  std::fprintf(stderr, "tbdrsim: page faults %ld minor, %ld major%s\n", usage.ru_minflt - clock.minor_faults,
               usage.ru_majflt - clock.major_faults, which.c_str());
  const double other = seconds - phases.geometry - phases.binning - phases.tiles - phases.savers - phases.setup -
                       phases.transfers - phases.costing - phases.images;
  std::fprintf(stderr,
               "tbdrsim: phases geometry %.6f s, binning %.6f s, tiles %.6f s, savers %.6f s, setup %.6f s, "
               "transfers %.6f s, costing %.6f s, images %.6f s, other %.6f s%s\n",
               phases.geometry, phases.binning, phases.tiles, phases.savers, phases.setup, phases.transfers,
               phases.costing, phases.images, other, which.c_str());
  print_tile_workers(phases.tile_workers, which);
}

// run --vs PRESET: the trace simulated again under PRESET (the same --set and --tile after it), and
// the two reports compared (tools/commands/compare.h): text on stdout, --vs-json and --vs-html files.
void compare_with_preset(const CLI::App& run, const RunOptions& o, CLI::Option* set_opt, CLI::Option* tile_opt,
                         const tbdr::Trace& trace, const tbdr::SimOptions& options, const nlohmann::json& report_a) {
  RunOptions other = o;
  other.preset = o.vs;
  const tbdr::models::Configuration config = configuration(run, other, set_opt, tile_opt);
  const tbdr::models::ModelSet models = tbdr::models::build_models(config);
  tbdr::check_memory_budget(tbdr::estimate_memory(trace, models.resolved, options), o.max_memory, trace.path);
  const tbdr::RunStats stats = tbdr::simulate(trace, models, options, nullptr);
  const tbdr::ReportContext context{trace.path, trace.name, config.preset_name(), models.resolved, trace.warnings,
                                      tbdr::captured_frame_notes(trace)};
  tbdr::CompareOptions compare;
  compare.a = report_a["preset"].get<std::string>();
  compare.b = config.preset_name();
  compare.json = o.vs_json;
  compare.html = o.vs_html;
  compare.quiet = o.quiet || o.json == "-" || o.csv == "-";  // stdout carries that file alone
  tbdr::write_comparison(report_a, tbdr::report_json(context, stats), compare);
}

int run_command(const CLI::App& run, const RunOptions& given, CLI::Option* set_opt, CLI::Option* tile_opt) {
  // `--json -` or `--csv -` makes stdout a data stream for a script: without an explicit --out it
  // writes no images (tools/doc/cli.md "Machine-readable output"); --heatmaps still go to --out.
  RunOptions o = given;
  if ((o.json == "-" || o.csv == "-") && run.count("--out") == 0) o.no_images = true;
  // Everything that can reject the input happens before any output is created.
  if (!o.no_images || o.heatmaps) tbdr::check_output_path(o.out, true, "--out");
  check_report_paths(o);
  const tbdr::models::Configuration config = configuration(run, o, set_opt, tile_opt);
  const tbdr::models::ModelSet models = tbdr::models::build_models(config);
  const fs::path trace_path = o.trace.empty() ? default_trace() : fs::path(o.trace);
  // A glTF/OBJ scene is imported with default settings into a temporary folder, removed afterwards.
  std::unique_ptr<TempDir> imported;
  if (tbdr::is_importable_scene(trace_path)) imported = std::make_unique<TempDir>();
  const tbdr::Trace trace = imported ? tbdr::read_trace(tbdr::import_scene(trace_path, imported->path / "scene.json").trace)
                                     : tbdr::read_trace(trace_path);
  // Every file read so far is a registered input (models/input_file.h): --json must not replace one.
  if (!o.json.empty() && o.json != "-") tbdr::check_output_path(o.json, false, "--json");
  tbdr::SimOptions options;
  options.path = o.imr ? tbdr::RenderPath::imr : tbdr::RenderPath::tbdr;
  options.overdraw = o.heatmaps || !o.html.empty();  // the HTML report shows every heatmap
  options.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  // Before any output or large allocation (tools/doc/cli.md "Memory budget").
  tbdr::check_memory_budget(tbdr::estimate_memory(trace, models.resolved, options), o.max_memory,
                            trace_path.string());

  tbdr::OutputFolder output(o.out, !o.no_images);
  tbdr::PhaseTimes phases;
  if (o.time) options.phase_times = &phases;
  // --repeat: the runs before the last write nothing; each later one reuses the memory the first
  // mapped (sim/huge_pages.cpp), as a sweep's configurations do, and what it freed on the heap
  // (after the trace is read: its file buffer, freed, would stay in the heap too).
  tbdr::keep_freed_heap_memory();
  tbdr::RunStats stats;
  for (unsigned run_index = 1; run_index <= o.repeat; ++run_index) {
    phases = tbdr::PhaseTimes{};
    const RunClock clock = RunClock::now();
    stats = tbdr::simulate(trace, models, options, run_index == o.repeat ? &output : nullptr);
    if (o.time) print_run_times(clock, phases, run_index, o.repeat);
  }
  if (o.heatmaps) tbdr::write_heatmaps(stats, output, o.out);
  if (!o.trace_events.empty())
    output.add_file(o.trace_events, tbdr::trace_events_json(stats, *models.cores, "tbdrsim " + config.preset_name()).dump(1) + "\n");

  const tbdr::ReportContext context{trace.path, trace.name, config.preset_name(), models.resolved, trace.warnings,
                                      tbdr::captured_frame_notes(trace)};
  nlohmann::json advice;  // null: no findings section
  if (o.advise) {
    const fs::path simulated = imported ? imported->path / "scene.json" : trace_path;
    advice = tbdr::advise::advice_json(tbdr::advise::advise({simulated, o.preset, 60, options.threads, o.max_memory}));
  }
  // --vs: the comparison takes stdout in place of the text report.
  RunOptions shown = o;
  shown.quiet = o.quiet || !o.vs.empty();
  if (!o.vs.empty()) compare_with_preset(run, o, set_opt, tile_opt, trace, options, tbdr::report_json(context, stats));
  // Each warning once, on stderr, whatever stdout carries (and in the JSON report's "warnings").
  for (const std::string& w : trace.warnings) std::cerr << "tbdrsim: warning: " << w << "\n";
  write_reports(shown, context, stats, advice, output);
  return 0;
}

}  // namespace

// An empty path (--json '') would read as "not given" and silently change what is written: refused.
const CLI::Validator k_non_empty_path(
    [](std::string& s) { return s.empty() ? std::string("expected a path, got an empty string") : std::string(); },
    "PATH");

// At most 1024 worker threads (tools/doc/cli.md "Limits of input files"): each keeps per-thread compiled draws
// and tile memory, so --threads 100000 would exhaust memory before simulating a tile.
const CLI::Validator k_thread_count(CLI::Range(0u, 1024u).description(""));

// --max-memory BYTES with K, M, G, T suffixes (powers of 1024; KiB, MB, ... too): the memory budget of
// tools/doc/cli.md "Memory budget". At least 1 byte; a value that overflows 64 bits is refused by CLI11.
void add_max_memory_option(CLI::App* command, uint64_t& budget) {
  command
      ->add_option("--max-memory", budget,
                   "memory budget in bytes (suffixes K, M, G, T: powers of 1024; default 8G): a configuration whose "
                   "estimate exceeds it is refused before simulating (tools/doc/cli.md \"Memory budget\")")
      ->check(CLI::Validator(
          [](std::string& s) { return s.rfind('-', 0) == 0 ? std::string("expected a size in bytes, got " + s) : std::string(); },
          ""))  // AsSizeValue would wrap "-1" to 2^64 - 1
      ->transform(CLI::AsSizeValue(false).description(""))
      ->check(CLI::Range(uint64_t(1), ~uint64_t(0)).description(""));
}

// A closed standard descriptor (`tbdrsim run >&-`) would be taken by the next file this process
// opens, so the text report would land in a staged output. Each closed one gets /dev/null opened the
// other way round (stdout and stderr read-only, stdin write-only): held, and every write to it fails.
void hold_closed_standard_descriptors() {
  for (const int fd : {0, 1, 2})
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int held = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
      if (held >= 0 && held != fd) {
        ::dup2(held, fd);
        ::close(held);
      }
    }
}

// `status` once everything written to stdout has reached it; else 1 and one line on stderr: a report
// that went nowhere (a full disk, /dev/full, a closed stdout or pipe) is a failed run (tools/doc/cli.md
// "Using the CLI"), not exit 0.
int with_stdout_flushed(int status) {
  errno = 0;  // set again only by a write failing here; a failure earlier in the run leaves no reason
  std::cout.flush();
  int error = errno;
  const bool flushed = std::fflush(stdout) == 0;
  if (!flushed) error = errno;
  if (!std::cout || std::ferror(stdout) || !flushed) {
    std::cerr << "tbdrsim: cannot write to stdout" << (error != 0 ? std::string(": ") + std::strerror(error) : "") << "\n";
    return 1;
  }
  return status;
}

// `tbdrsim run`'s options into `o`; `set_opt` and `tile_opt` keep --set and --tile's order.
CLI::App* add_run_command(CLI::App& app, RunOptions& o, CLI::Option*& set_opt, CLI::Option*& tile_opt) {
  CLI::App* run = app.add_subcommand("run", "simulate a trace: per-pass report, images, JSON");
  run->add_option("trace", o.trace, "trace file (.json, format in traces/README.md) or a .gltf/.glb/.obj scene (imported with default settings); default: the bundled scene")->check(k_non_empty_path);
  run->add_option("--preset", o.preset, "preset name (models/presets/*.json) or preset JSON file")->check(k_non_empty_path)->capture_default_str();
  set_opt = run->add_option(
      "--set", o.sets, "KIND=IMPL picks an implementation, KIND.PARAM=VALUE sets a parameter; repeatable, left to right");
  tile_opt = run->add_option("--tile", o.tiles, "WxH: shorthand for --set tiling.width=W --set tiling.height=H");
  run->add_option("--out", o.out, "folder for the images (PNG per stored attachment)")->check(k_non_empty_path)->capture_default_str();
  run->add_option("--json", o.json, "write the report (schema v1, traces/README.md) to this file; - for stdout (and no images unless --out is given)")->check(k_non_empty_path);
  run->add_option("--csv", o.csv, "write one CSV row per pass (the report's figures; columns in tools/doc/cli.md \"Using the CLI\") to this file; - for stdout")
      ->check(k_non_empty_path);
  run->add_option("--draws-csv", o.draws_csv,
                  "write one CSV row per draw of every render pass (tools/doc/reports.md \"Per-draw costs\") to this file")
      ->check(k_non_empty_path);
  run->add_option("--html", o.html, "write the report as one self-contained HTML page (tools/doc/reports.md \"HTML report and heatmaps\")")->check(k_non_empty_path);
  run->add_option("--trace-events", o.trace_events,
                  "write the simulated schedule in the Trace Event Format (Perfetto, chrome://tracing; tools/doc/frame_explorer.md)")
      ->check(k_non_empty_path);
  run->add_option("--vs", o.vs, "also simulate under this preset (same --set/--tile) and print the comparison in place of the report")
      ->check(k_non_empty_path);
  run->add_option("--vs-json", o.vs_json, "with --vs: write the comparison as JSON (tbdrsim compare --json) to this file; - for stdout")
      ->check(k_non_empty_path);
  run->add_option("--vs-html", o.vs_html, "with --vs: write the comparison as one self-contained HTML page")->check(k_non_empty_path);
  run->add_flag("--advise", o.advise, "with --html: add `tbdrsim advise`'s findings, each fix priced under the preset");
  run->add_flag("--no-images", o.no_images, "write no images");
  run->add_flag("--imr", o.imr, "render through the immediate-mode reference path instead of tiles");
  run->add_flag("--quiet", o.quiet, "print no report on stdout");
  run->add_flag("--time", o.time,
                "print simulate()'s wall time (trace parsing excluded), phases, tile workers' times, page faults "
                "and peak RSS on stderr");
  run->add_option("--repeat", o.repeat,
                  "simulate N times in this process (report and images from the last; --time prints each run's): "
                  "later runs reuse the memory of earlier ones, as a sweep's configurations do")
      ->check(CLI::Range(1u, 1000000u));
  run->add_option("--threads", o.threads,
                  "threads for the tiles of each pass (default or 0: all cores, at most 1024); outputs are identical for any count")
      ->check(k_thread_count);
  add_max_memory_option(run, o.max_memory);
  run->add_flag("--heatmaps", o.heatmaps,
                "also write heatmap PNGs into --out: per-tile cycles and DRAM bytes, fragments per pixel (overdraw)");
  return run;
}

// sweep's options: the fixed and varied steps are kept apart by kind, then put back in their
// command-line order (sweep_command).
struct SweepCli {
  tbdr::sweep::SweepOptions so;
  std::vector<std::string> sets, tiles, varies;
  bool no_reuse = false;
  CLI::App* cmd = nullptr;
  CLI::Option *set = nullptr, *tile = nullptr, *vary = nullptr, *grid = nullptr;
};

// `tbdrsim sweep` (tools/commands/sweep.h; tools/doc/sweeps.md).
void add_sweep_command(CLI::App& app, SweepCli& sc) {
  tbdr::sweep::SweepOptions& so = sc.so;
  CLI::App* sweep_cmd = sc.cmd = app.add_subcommand("sweep", "simulate many configurations over traces: results.csv/json, resumable");
  sweep_cmd->add_option("traces", so.traces, "trace files; default: the bundled scene")->check(k_non_empty_path);
  sweep_cmd->add_option("--preset", so.preset, "preset every configuration starts from")->check(k_non_empty_path)->capture_default_str();
  sc.set = sweep_cmd->add_option("--set", sc.sets, "fixed KIND=IMPL or KIND.PARAM=VALUE, left to right");
  sc.tile = sweep_cmd->add_option("--tile", sc.tiles, "fixed WxH, left to right");
  sc.vary = sweep_cmd->add_option(
      "--vary", sc.varies, "KEY=v1,v2,...: what --set takes (or tile=WxH,...) with a comma list; cartesian product, first --vary slowest");
  sc.grid = sweep_cmd->add_option("--grid", so.grid, "explicit configurations: CSV (header KEY,...) or JSON file")->check(k_non_empty_path);
  sweep_cmd->add_option("-j,--jobs", so.jobs, "workers (default: the number of cores, at most 1024)")->check(k_thread_count);
  sweep_cmd->add_option("--shard", so.shard, "K/N: run shard K of N: whole functional configurations (a simulation and its re-costings), balanced by estimated work (merge with sweep-merge)");
  sweep_cmd->add_flag("--quiet", so.quiet, "no progress line and no summary");
  sweep_cmd->add_flag("--no-reuse", sc.no_reuse,
                      "simulate every configuration (default: once per functional configuration, re-costing the rest)");
  sweep_cmd
      ->add_option("--record-budget", so.record_budget_mib, "MiB of functional records held at once (default 1024)")
      ->check(CLI::Range(uint64_t(0), uint64_t(1) << 30));
  add_max_memory_option(sweep_cmd, so.max_memory);
  sweep_cmd->add_option("--out", so.out, "sweep folder: sweep.json, parts/, results.csv, results.json, attachments.csv")->check(k_non_empty_path)->required();
}

int sweep_command(SweepCli& sc) {
  tbdr::sweep::SweepOptions& so = sc.so;
  tbdr::check_output_path(so.out, true, "--out");
  size_t next_set = 0, next_tile = 0, next_vary = 0;
  using Step = tbdr::sweep::Step;
  for (const CLI::Option* opt : sc.cmd->parse_order()) {
    if (opt == sc.set) so.steps.push_back({Step::Kind::set, sc.sets.at(next_set++)});
    else if (opt == sc.tile) so.steps.push_back({Step::Kind::tile, sc.tiles.at(next_tile++)});
    else if (opt == sc.vary) so.steps.push_back({Step::Kind::vary, sc.varies.at(next_vary++)});
    else if (opt == sc.grid) so.steps.push_back({Step::Kind::grid, ""});
  }
  if (so.traces.empty()) so.traces.push_back(default_trace().string());
  so.reuse = !sc.no_reuse;
  tbdr::sweep::run_sweep(so);
  return 0;
}

// `tbdrsim import` (frontend/import_scene.h).
CLI::App* add_import_command(CLI::App& app, ImportCli& ic) {
  CLI::App* import_cmd = app.add_subcommand("import", "convert a glTF 2.0 (.gltf/.glb) or OBJ scene into a trace folder");
  import_cmd->add_option("scene", ic.scene, "scene file (.gltf, .glb, .obj)")->check(k_non_empty_path)->required();
  import_cmd->add_option("-o,--out", ic.out, "the trace JSON to write (DIR/TRACE.json; sidecar and textures go next to it)")->check(k_non_empty_path)->required();
  import_cmd->add_option("--width", ic.width, "framebuffer width (default 640)")->check(CLI::Range(1u, 16384u));
  import_cmd->add_option("--height", ic.height, "framebuffer height (default 480, or from the camera's aspect ratio)")
      ->check(CLI::Range(1u, 16384u));
  import_cmd->add_option("--camera", ic.camera, "camera index N, or \"auto\" to frame the bounds (default: the first camera, else auto)");
  return import_cmd;
}

CLI::App* add_validate_command(CLI::App& app, ValidateCli& vc) {
  CLI::App* validate_cmd = app.add_subcommand(
      "validate", "simulate traces/validation under mali-g76 and compare with the Vulkan-Samples measurements (table)");
  validate_cmd->add_option("--dir", vc.dir, "folder of the validation traces (default: the bundled share/tbdrsim/traces/validation)")->check(k_non_empty_path);
  validate_cmd->add_option("--threads", vc.threads, "threads per hardware pass (default: all cores)")
      ->check(k_thread_count);
  validate_cmd->add_option("--write-readme", vc.write_readme, "also replace the table between the markers of this file (models/README.md)")->check(k_non_empty_path);
  validate_cmd->add_option("--calibrated", vc.calibrated,
                           "also simulate under this fitted preset (tbdrsim calibrate -o) and print both tables side by side")
      ->check(k_non_empty_path);
  validate_cmd->add_option("--json", vc.json, "also write the table as JSON to this file; - for stdout alone")->check(k_non_empty_path);
  validate_cmd->add_flag("--strict", vc.strict, "exit 1 when any row lies outside its tolerance, its cause known or not");
  add_max_memory_option(validate_cmd, vc.max_memory);
  return validate_cmd;
}

CLI::App* add_calibrate_command(CLI::App& app, CalibrateCli& cc) {
  CLI::App* calibrate_cmd = app.add_subcommand(
      "calibrate", "fit preset parameters to measured figures (NLopt), with held-out error");
  calibrate_cmd->add_option("measurements", cc.measurements, "measurement CSV (models/README.md \"Calibration\")")
      ->check(k_non_empty_path)->required();
  calibrate_cmd->add_option("--preset", cc.options.preset, "preset to start from (name or JSON file)")
      ->check(k_non_empty_path)->capture_default_str();
  calibrate_cmd->add_option("--params", cc.params, "KIND.PARAM,... to fit within their declared ranges")->required();
  calibrate_cmd->add_option("--folds", cc.options.folds, "K-fold held-out error (default 0: leave-one-out)");
  calibrate_cmd->add_option("--max-evaluations", cc.options.max_evaluations, "simulations of the rows per fit")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  calibrate_cmd->add_option("--threads", cc.options.threads, "traces simulated at a time, one thread each (default: all cores, at most 1024)")
      ->check(k_thread_count);
  calibrate_cmd->add_option("-o,--out", cc.out, "the fitted preset to write (JSON)")->check(k_non_empty_path)->required();
  add_max_memory_option(calibrate_cmd, cc.options.max_memory);
  return calibrate_cmd;
}

// `tbdrsim diff` (tools/commands/image_diff.h).
CLI::App* add_diff_command(CLI::App& app, DiffCli& dc) {
  CLI::App* diff_cmd = app.add_subcommand("diff", "compare two PNG images: identical pixels, max difference, PSNR");
  diff_cmd->add_option("a", dc.a, "first PNG")->check(k_non_empty_path)->required();
  diff_cmd->add_option("b", dc.b, "second PNG")->check(k_non_empty_path)->required();
  diff_cmd->add_option("--out", dc.out, "write a heat image of the differences (PNG)")->check(k_non_empty_path);
  diff_cmd->add_option("--json", dc.json, "also write the figures and the verdict as JSON to this file; - for stdout alone")
      ->check(k_non_empty_path);
  diff_cmd->add_option("--max-mismatch", dc.max_mismatch,
                       "largest fraction of pixels allowed to differ (exit 1 beyond); default: the correctness rule of traces/README.md \"Reference renderer\"")
      ->capture_default_str();
  diff_cmd->add_option("--min-psnr", dc.min_psnr, "smallest PSNR in dB (exit 1 below); default: the correctness rule of traces/README.md \"Reference renderer\"")
      ->capture_default_str();
  diff_cmd->add_option("--tolerance", dc.tolerance, "per-channel difference (8-bit LSB) still counted as identical")
      ->capture_default_str()
      ->check(CLI::Range(0, 255));

  return diff_cmd;
}

// `tbdrsim compare A.json B.json` (tools/commands/compare.h).
CLI::App* add_compare_command(CLI::App& app, tbdr::CompareOptions& compare_options) {
  CLI::App* compare_cmd = app.add_subcommand("compare", "two JSON reports side by side: per frame and per pass, A, B and B - A");
  compare_cmd->add_option("a", compare_options.a, "report A (tbdrsim run --json)")->check(k_non_empty_path)->required();
  compare_cmd->add_option("b", compare_options.b, "report B")->check(k_non_empty_path)->required();
  compare_cmd->add_option("--json", compare_options.json, "write the comparison as JSON to this file; - for stdout")->check(k_non_empty_path);
  compare_cmd->add_option("--html", compare_options.html, "write the comparison as one self-contained HTML page")->check(k_non_empty_path);
  compare_cmd->add_flag("--quiet", compare_options.quiet, "print no comparison on stdout");
  return compare_cmd;
}

CLI::App* add_advise_command(CLI::App& app, AdviseCli& ac) {
  CLI::App* advise_cmd = app.add_subcommand(
      "advise", "find what a frame wastes and price each fix by simulating the edited trace; list the fixes that save");
  advise_cmd->add_option("trace", ac.trace, "trace file (.json); default: the bundled scene")->check(k_non_empty_path);
  advise_cmd->add_option("--preset", ac.preset, "preset name or preset JSON file")->check(k_non_empty_path)->capture_default_str();
  advise_cmd->add_option("--fps", ac.fps, "frame rate for MB/s, above 0 and at most 10000")->capture_default_str();
  advise_cmd->add_option("--json", ac.json, "write the findings (JSON, schema_version 2) to this file; - for stdout")->check(k_non_empty_path);
  advise_cmd->add_flag("--all", ac.all, "also list the findings not worth it: those that cost, those that change nothing");
  advise_cmd->add_option("--apply", ac.apply, "finding ids or rule ids whose edits to apply together (needs -o)");
  advise_cmd->add_option("-o,--out", ac.out, "the edited trace to write (with --apply)")->check(k_non_empty_path);
  advise_cmd->add_option("--threads", ac.threads, "threads per hardware pass (default: all cores)")
      ->check(k_thread_count);
  add_max_memory_option(advise_cmd, ac.max_memory);

  return advise_cmd;
}

int main(int argc, char** argv) {
  hold_closed_standard_descriptors();
  CLI::App app{"tbdrsim: a cycle-approximate simulator of tile-based deferred rendering GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", tbdr::version_line(),
                       "print the version and the git commit tbdrsim was built from (\"unknown\" outside git) and exit");

  RunOptions o;
  CLI::Option* set_opt = nullptr;
  CLI::Option* tile_opt = nullptr;
  CLI::App* run = add_run_command(app, o, set_opt, tile_opt);
  CLI::App* models_cmd = app.add_subcommand("models", "list every model kind, implementation, parameter and preset");
  std::string models_json_path;
  models_cmd->add_option("--json", models_json_path, "also write the list as JSON to this file; - for stdout alone")
      ->check(k_non_empty_path);

  // sweep / sweep-merge (tools/commands/sweep.h; tools/doc/sweeps.md).
  SweepCli sc;
  add_sweep_command(app, sc);
  CLI::App* sweep_cmd = sc.cmd;
  std::vector<std::string> merge_dirs;
  std::string merge_out;
  bool merge_quiet = false;
  CLI::App* merge_cmd = app.add_subcommand("sweep-merge", "combine the shard folders of one sweep into one folder");
  merge_cmd->add_option("dirs", merge_dirs, "shard folders")->check(k_non_empty_path)->required();
  merge_cmd->add_option("--out", merge_out, "the merged sweep folder")->check(k_non_empty_path)->required();
  merge_cmd->add_flag("--quiet", merge_quiet, "no summary");

  // import / diff: frontend/import_scene.h, tools/commands/image_diff.h.
  ImportCli ic;
  CLI::App* import_cmd = add_import_command(app, ic);
  ValidateCli vc;
  CLI::App* validate_cmd = add_validate_command(app, vc);
  CalibrateCli cc;
  CLI::App* calibrate_cmd = add_calibrate_command(app, cc);
  DiffCli dc;
  CLI::App* diff_cmd = add_diff_command(app, dc);
  tbdr::CompareOptions compare_options;
  CLI::App* compare_cmd = add_compare_command(app, compare_options);
  AdviseCli ac;
  CLI::App* advise_cmd = add_advise_command(app, ac);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return with_stdout_flushed(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return with_stdout_flushed(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return with_stdout_flushed(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // One line, as every other bad input (tools/doc/design.md "Design rules": errors); CLI11's own report takes two.
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::cerr << "tbdrsim: " << message << " (tbdrsim --help)\n";
    return 2;
  }

  // `run` removes its temporaries when interrupted (SIGINT/SIGTERM) and exits 128 + signal.
  if (!*models_cmd && !*sweep_cmd && !*merge_cmd && !*import_cmd && !*diff_cmd && !*validate_cmd && !*calibrate_cmd && !*compare_cmd) tbdr::install_interrupt_cleanup("tbdrsim");

  const auto dispatch = [&]() -> int {
    if (*models_cmd) return models_command(models_json_path);
    if (*sweep_cmd) return sweep_command(sc);
    if (*merge_cmd) {
      tbdr::check_output_path(merge_out, true, "--out");
      tbdr::sweep::merge_sweeps(merge_dirs, merge_out, merge_quiet);
      return 0;
    }
    if (*import_cmd) return import_command(ic);
    if (*diff_cmd) return diff_command(dc);
    if (*validate_cmd) return validate_command(vc);
    if (*calibrate_cmd) return calibrate_command(cc);
    if (*advise_cmd) return advise_command(ac);
    if (*compare_cmd) return tbdr::compare_command(compare_options);
    return run_command(*run, o, set_opt, tile_opt);
  };
  try {
    return with_stdout_flushed(dispatch());
  } catch (const tbdr::InputError& e) {
    std::cerr << "tbdrsim: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // An input or configuration that needs more memory than there is: bad input (exit 2), one line.
    std::cerr << "tbdrsim: out of memory: the input or configuration needs more memory than this machine gives "
                 "(tools/doc/cli.md \"Limits of input files\")\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tbdrsim: error: " << e.what() << "\n";
    return 1;
  }
}
