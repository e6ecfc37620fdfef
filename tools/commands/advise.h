// `tbdrsim advise`: rules find what a frame wastes, each as an edit of a copy of the trace; every
// edit is priced by simulating the edited trace under the same preset, and only wins are recommended.
#pragma once

#include <nlohmann/json.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sim/frame.h"
#include "sim/memory_estimate.h"
#include "sim/pipeline.h"
#include "sim/stats.h"

namespace tbdr::advise {

// What a finding is about, in the trace's own ids (-1 / empty: not applicable).
struct Subject {
  int frame = -1, pass = -1, subpass = -1, attachment = -1, draw = -1;
  std::string pass_name, image, event;  // event: the capture's event id (draw name "event_<EID>")
};

// One frame's figures: the last frame of the run (the steady state: frames after the first
// repeat it, swapchain images rotate).
struct FrameFigures {
  DramLedger dram, dram_nominal;
  double cycles = 0, ms = 0, joules = 0;
  uint64_t fragments_shaded = 0;  // fragment program invocations (the HSR rules' price)
};

// Whether a priced fix is worth making. The last frame's figures after the fix against before, in
// this order, the first that differs decides (lower after: saves; higher: costs): physical DRAM bytes
// (every category, read and write, after every saver: AFBC, UBWC, transaction elimination, empty
// tiles), cycles, fragments shaded, then the DRAM allocation the fix frees (transient). All equal: no
// change. A finding without an edit (a report, e.g. parameter-buffer flushes) is not priced.
enum class Verdict { saves, costs, no_change, not_priced };
const char* verdict_name(Verdict v);  // "saves", "costs", "no_change", "not_priced"

struct Finding {
  std::string id;     // "<rule>:f<frame>.<pass name>[.a<attachment>|.s<subpass>...]": what --apply takes
  std::string rule;
  Subject where;
  std::string problem, fix;
  nlohmann::json edit = nlohmann::json::array();  // RFC 6902 operations on the trace JSON
  bool changes_images = false;                    // the rule says why in `note`
  std::string note;
  uint64_t memory_bytes = 0;                      // DRAM allocation no longer needed (transient)
  FrameFigures after;                             // the edited trace simulated
  bool priced = false;
  Verdict verdict = Verdict::not_priced;
  std::string withdrawn_because;                  // non-empty: the edit changed an image it should keep
};

struct RuleInput {
  const nlohmann::json& trace;  // the trace file as written
  const RunStats& stats;        // the trace simulated under the preset
  const Trace* parsed = nullptr;  // the trace as read (meshes from sidecars); null: inline meshes only
  // The preset's models, for the savers' eligibility of an image; null: unknown (a rule then assumes
  // the saver may apply).
  const models::ModelSet* models = nullptr;
};
using Rule = std::vector<Finding> (*)(const RuleInput&);
struct RuleInfo {
  const char* id;
  const char* summary;
  Rule rule;
};
const std::vector<RuleInfo>& rules();

// The images that leave the frame: swapchain images, images moved to `present`, else the image
// the last storing pass writes. A fix never changes them unless its rule says so.
std::set<std::string> presented_images(const nlohmann::json& trace);

// The last frame's figures of a run.
FrameFigures frame_figures(const RunStats& stats);

// The verdict on a fix whose edited trace has the figures `after` and frees `memory_freed` bytes.
Verdict verdict(const FrameFigures& before, const FrameFigures& after, uint64_t memory_freed);
// Listed without --all: the findings that save, and the reports (not priced).
bool recommended(const Finding& f);
// "saves: net -69,600 B/frame (-4.18 MB/s, -0.48% of the frame's traffic), nominal ..., -2,504 cycles":
// the verdict, then every figure as after - before (minus: fewer), as advice_text prints a finding.
std::string change_text(const FrameFigures& before, const FrameFigures& after, double fps, uint64_t memory_freed);

// A trace's JSON document, read as every input is (models/input_file.h); InputError naming `path`.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Applies the edits of `findings` together to `trace` (removals last, highest index first).
nlohmann::json apply_edits(const nlohmann::json& trace, const std::vector<const Finding*>& findings);
// The first `file` a trace names (meshes, textures, contents: files inside the trace's folder,
// traces/README.md); empty when it names none.
std::string first_file_reference(const nlohmann::json& trace);

struct AdviseOptions {
  std::filesystem::path trace;
  std::string preset = "reference";
  double fps = 60;
  unsigned threads = 1;
  uint64_t max_memory = kDefaultMemoryBudget;  // --max-memory, checked before the first simulation
  bool progress = false;  // a line per simulation on stderr (tools/commands/progress.h)
};

struct Advice {
  std::string trace_name, preset;
  std::vector<std::string> notes;  // captured_frame_notes of the trace: empty but for captured frames
  double fps = 60;
  FrameFigures before;
  std::vector<Finding> findings;  // every verdict, sorted by saving, largest first
  // Findings whose rule keeps images but whose edited trace changed a stored image: the rule's
  // premise did not hold in this trace (its `note` says which image and how many pixels).
  std::vector<Finding> withdrawn;
  std::vector<std::string> warnings;  // the trace's own (traces/README.md "warnings"): stderr and the JSON
};

// Every rule's findings, unpriced, in rule order. `parsed`: the same trace as read, for the rules
// that look at mesh data kept in sidecar files.
std::vector<Finding> find_all(const nlohmann::json& trace, const RunStats& stats, const Trace* parsed = nullptr,
                              const models::ModelSet* models = nullptr);

// Reads and simulates the trace, runs every rule, prices every finding. InputError on bad input.
Advice advise(const AdviseOptions& options);
// The findings `ids` name: a finding id whatever its verdict, a rule id its recommended findings.
// InputError naming an id no finding has, or a rule none of whose findings is recommended.
std::vector<const Finding*> select(const Advice& advice, const std::vector<std::string>& ids);
// Simulates `edited` (read with `base_dir` for its files) under the preset.
// `images`, when given, receives every stored image.
FrameFigures price(const nlohmann::json& edited, const std::filesystem::path& base_dir, const std::string& preset,
                   unsigned threads, RunStats* stats = nullptr, ImageSink* images = nullptr);

// The recommended findings; `all` (--all) adds the ones not worth it (costs, then no change) in a
// section of their own. Text and JSON carry the same figures.
std::string advice_text(const Advice& advice, bool all = false);
nlohmann::json advice_json(const Advice& advice, bool all = false);

}  // namespace tbdr::advise
