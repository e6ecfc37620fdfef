// `tbdrsim advise`: runs the rules (advise_rules.cpp), prices each finding by simulating the
// edited trace under the same preset, sorts by saving, writes text and JSON.
#include "tools/commands/advise.h"
#include "tools/commands/captured_notes.h"
#include "tools/commands/version.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/input_file.h"
#include "models/json_duplicates.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tools/commands/output.h"
#include "tools/commands/progress.h"
#include "tools/commands/report.h"

namespace tbdr::advise {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Every priced finding simulates the whole edited trace again, so advise's work is the findings times
// the trace's passes, and rules find about one finding per pass: quadratic in the passes (200 passes
// with a finding each took 15.6 s, 2,000 ran past 120 s). Refused above this many pass simulations
// (traces/README.md "Limits"); the real frames advised so far need a few hundred.
constexpr uint64_t kMaxPricedPassSimulations = 16384;

void check_pricing_work(const std::vector<Finding>& findings, const Trace& trace, const fs::path& path) {
  uint64_t passes = 0, priced = 0;
  for (const Frame& frame : trace.frames) passes += frame.passes.size();
  for (const Finding& f : findings) priced += !f.edit.empty();
  if (priced * passes > kMaxPricedPassSimulations)
    throw InputError(path.string(), "advise would price " + std::to_string(priced) + " findings by simulating the " +
                                        std::to_string(passes) + " passes of the trace for each (" +
                                        std::to_string(priced * passes) + " pass simulations), over the limit of " +
                                        std::to_string(kMaxPricedPassSimulations) +
                                        " (traces/README.md \"Limits\"); advise fewer frames or passes at a time");
}

int64_t signed_diff(uint64_t a, uint64_t b) { return int64_t(a) - int64_t(b); }

uint64_t total_bytes(const DramLedger& l) {
  const Traffic t = l.total();
  return t.read_bytes + t.write_bytes;
}

// Physical bytes saved per frame (the sort key), then nominal, then cycles.
int64_t saved_bytes(const FrameFigures& before, const FrameFigures& after) {
  return signed_diff(total_bytes(before.dram), total_bytes(after.dram));
}

// A fix's net change of the frame's physical DRAM bytes and (whole) cycles: after - before.
int64_t net_bytes(const FrameFigures& before, const FrameFigures& after) {
  return signed_diff(total_bytes(after.dram), total_bytes(before.dram));
}
int64_t net_cycles(const FrameFigures& before, const FrameFigures& after) {
  return std::llround(after.cycles - before.cycles);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// With a thousands separator every three digits, and a sign when `sign` ("+78,080", "-42,560", "0").
std::string grouped(int64_t v, bool sign) {
  const std::string digits = std::to_string(v < 0 ? -uint64_t(v) : uint64_t(v));
  std::string out = v < 0 ? "-" : sign && v > 0 ? "+" : "";  // appended to: "-" + string trips GCC 12's -Wrestrict
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}
std::string signed_fixed(double v, int digits) {
  std::string out = v > 0 ? "+" : "";
  return out += fixed(v, digits);
}

// after - before, per category and in all: negative = fewer bytes.
json net_ledger_json(const DramLedger& before, const DramLedger& after) {
  json by = json::object();
  for (size_t c = 0; c < kDramCategoryCount; ++c) {
    const Traffic& b = before.by_category[c];
    const Traffic& a = after.by_category[c];
    if (b == a) continue;
    by[dram_category_name(DramCategory(c))] = {{"read_bytes", signed_diff(a.read_bytes, b.read_bytes)},
                                               {"write_bytes", signed_diff(a.write_bytes, b.write_bytes)}};
  }
  const Traffic b = before.total(), a = after.total();
  return {{"bytes", signed_diff(total_bytes(after), total_bytes(before))},
          {"read_bytes", signed_diff(a.read_bytes, b.read_bytes)},
          {"write_bytes", signed_diff(a.write_bytes, b.write_bytes)},
          {"by_category", by}};
}

// A priced finding's figures as after - before, the verdict's inputs among them.
json net_json(const FrameFigures& before, const FrameFigures& after, double fps, uint64_t memory_freed) {
  const int64_t bytes = net_bytes(before, after);
  const uint64_t frame_bytes = total_bytes(before.dram);
  return {{"dram", net_ledger_json(before.dram, after.dram)},
          {"dram_nominal", net_ledger_json(before.dram_nominal, after.dram_nominal)},
          {"dram_mb_per_s", double(bytes) * fps / 1e6},
          {"dram_fraction", frame_bytes ? double(bytes) / double(frame_bytes) : 0.0},
          {"cycles", net_cycles(before, after)},  // whole cycles, as the verdict and the text
          {"fragments_shaded", signed_diff(after.fragments_shaded, before.fragments_shaded)},
          {"memory_bytes", -int64_t(memory_freed)},
          {"frame_ms", after.ms - before.ms},
          {"energy_joules", after.joules - before.joules}};
}

json figures_json(const FrameFigures& f, double fps) {
  return {{"dram", ledger_json(f.dram)},
          {"dram_nominal", ledger_json(f.dram_nominal)},
          {"dram_mb_per_s", double(total_bytes(f.dram)) * fps / 1e6},
          {"cycles", f.cycles},
          {"frame_ms", f.ms},
          {"energy_joules", f.joules}};
}

json subject_json(const Subject& s) {
  json j = json::object();
  if (s.frame >= 0) j["frame"] = s.frame;
  if (s.pass >= 0) j["pass"] = s.pass;
  if (!s.pass_name.empty()) j["pass_name"] = s.pass_name;
  if (s.subpass >= 0) j["subpass"] = s.subpass;
  if (s.attachment >= 0) j["attachment"] = s.attachment;
  if (s.draw >= 0) j["draw"] = s.draw;
  if (!s.image.empty()) j["image"] = s.image;
  if (!s.event.empty()) j["event"] = s.event;
  return j;
}

std::string where_text(const Subject& s) {
  std::string w;
  if (s.frame >= 0) w += "frame " + std::to_string(s.frame);
  if (!s.pass_name.empty()) w += " pass " + std::to_string(s.pass) + " " + s.pass_name;
  if (s.subpass >= 0) w += " subpass " + std::to_string(s.subpass);
  if (s.attachment >= 0) w += " attachment " + std::to_string(s.attachment);
  if (!s.image.empty()) w += " (" + s.image + ")";
  if (!s.event.empty()) w += " event " + s.event;
  return w.empty() ? w : w.substr(w[0] == ' ' ? 1 : 0);
}


// The index of the last "/"-separated number of a JSON pointer, -1 if none.
long last_index(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string tail = path.substr(slash + 1);
  return !tail.empty() && std::all_of(tail.begin(), tail.end(), ::isdigit) ? std::stol(tail) : -1;
}

// The merge model's decision on the merged render pass: its subpasses in one hardware pass, or why not.
std::string merge_decision(const RunStats& edited, const Subject& where) {
  if (where.frame < 0 || size_t(where.frame) >= edited.frames.size()) return "";
  const std::vector<PassStats>& passes = edited.frames[where.frame].passes;
  if (where.pass < 0 || size_t(where.pass) >= passes.size()) return "";
  const MergeStats& m = passes[where.pass].merge;
  if (m.merged) return "the merge model merges the subpasses";
  std::string why = "the merge model refuses:";
  for (const std::string& r : m.reasons) why += " " + r + ";";
  return why;
}

// The presented images (presented_images) as each frame last stores them, as the 8-bit pixels
// `run` writes, by frame and image name: what advise compares to keep its promise that a fix
// leaves the presented image as it was.
struct PresentedPixels : ImageSink {
  std::set<std::string> presented;
  std::map<std::string, std::vector<uint8_t>> images;
  explicit PresentedPixels(std::set<std::string> names) : presented(std::move(names)) {}
  void stored(const StoredImage& i) override {
    if (!presented.count(i.image_name)) return;
    std::string key = std::to_string(i.frame);  // "f" + ...: GCC 12's false -Wrestrict (GCC bug 105329)
    key.insert(0, 1, 'f');
    key += '/';
    key += i.image_name;
    images[key] = to_png(i).pixels;
  }
};

// The first image both runs store that differs, with its count of differing bytes; "" if none.
std::string first_changed_image(const PresentedPixels& before, const PresentedPixels& after) {
  for (const auto& [key, pixels] : after.images) {
    const auto it = before.images.find(key);
    if (it == before.images.end() || it->second == pixels) continue;
    size_t differing = 0;
    for (size_t i = 0; i < std::min(pixels.size(), it->second.size()); ++i) differing += pixels[i] != it->second[i];
    return key + " (" + std::to_string(differing) + " bytes of its 8-bit pixels differ)";
  }
  return "";
}

}  // namespace

json read_json_file(const fs::path& path) {
  // Bounded, regular files only, nesting limited before parsing (tools/doc/cli.md "Output files and input limits"): as every input.
  const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
  check_json_depth(text, path.string());
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(path.string(), std::string("not JSON: ") + without_json_exception_tags(e.what()));
  }
}

FrameFigures frame_figures(const RunStats& stats) {
  FrameFigures f;
  if (stats.frames.empty()) return f;
  const FrameStats& last = stats.frames.back();
  f.dram = last.dram;
  f.dram_nominal = last.dram_nominal;
  f.cycles = last.frame_cycles;
  f.ms = last.clock_mhz > 0 ? last.frame_cycles / (last.clock_mhz * 1e3) : 0;
  f.joules = last.energy.total_joules;
  f.fragments_shaded = last.counters.fragments_shaded;
  return f;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::saves: return "saves";
    case Verdict::costs: return "costs";
    case Verdict::no_change: return "no_change";
    case Verdict::not_priced: break;
  }
  return "not_priced";
}

Verdict verdict(const FrameFigures& before, const FrameFigures& after, uint64_t memory_freed) {
  // The first figure that differs decides (advise.h): what the fix moves through DRAM first, so a
  // fix whose savers lose more than its own saving (LOAD -> CLEAR where empty tiles skipped both the
  // load and the store) is a cost, however many nominal bytes it drops.
  const int64_t differences[] = {net_bytes(before, after), net_cycles(before, after),
                                 signed_diff(after.fragments_shaded, before.fragments_shaded), -int64_t(memory_freed)};
  for (const int64_t d : differences)
    if (d != 0) return d < 0 ? Verdict::saves : Verdict::costs;
  return Verdict::no_change;
}

bool recommended(const Finding& f) { return f.verdict == Verdict::saves || f.verdict == Verdict::not_priced; }

std::string change_text(const FrameFigures& before, const FrameFigures& after, double fps, uint64_t memory_freed) {
  const Verdict v = verdict(before, after, memory_freed);
  const int64_t bytes = net_bytes(before, after);
  const uint64_t frame_bytes = total_bytes(before.dram);
  std::string out = v == Verdict::saves ? "saves" : v == Verdict::costs ? "costs" : "no change";
  out += ": net " + grouped(bytes, true) + " B/frame (" + signed_fixed(double(bytes) * fps / 1e6, 2) + " MB/s, " +
         signed_fixed(frame_bytes ? 100.0 * double(bytes) / double(frame_bytes) : 0.0, 2) +
         "% of the frame's traffic), nominal " +
         grouped(signed_diff(total_bytes(after.dram_nominal), total_bytes(before.dram_nominal)), true) + " B, " +
         grouped(net_cycles(before, after), true) + " cycles";
  if (after.fragments_shaded != before.fragments_shaded)
    out += ", " + grouped(signed_diff(after.fragments_shaded, before.fragments_shaded), true) + " fragments shaded";
  if (memory_freed) out += ", " + grouped(-int64_t(memory_freed), true) + " B of memory";
  return out;
}

std::string first_file_reference(const json& trace) {
  if (trace.is_array())
    for (const json& item : trace)
      if (std::string f = first_file_reference(item); !f.empty()) return f;
  if (!trace.is_object()) return "";
  for (auto it = trace.begin(); it != trace.end(); ++it) {
    if (it.key() == "file" && it->is_string()) return it->get<std::string>();
    if (std::string f = first_file_reference(*it); !f.empty()) return f;
  }
  return "";
}

json apply_edits(const json& trace, const std::vector<const Finding*>& findings) {
  json ops = json::array(), removes = json::array();
  for (const Finding* f : findings)
    for (const json& op : f->edit) (op["op"] == "remove" ? removes : ops).push_back(op);
  // Removals after every other edit, the highest index of a list first, so no path shifts.
  std::vector<json> r(removes.begin(), removes.end());
  std::stable_sort(r.begin(), r.end(), [](const json& a, const json& b) {
    const std::string pa = a["path"], pb = b["path"];
    const std::string la = pa.substr(0, pa.rfind('/')), lb = pb.substr(0, pb.rfind('/'));
    return la != lb ? la < lb : last_index(pa) > last_index(pb);
  });
  for (json& op : r) ops.push_back(std::move(op));
  return trace.patch(ops);
}

FrameFigures price(const json& edited, const fs::path& base_dir, const std::string& preset, unsigned threads,
                   RunStats* stats_out, ImageSink* images) {
  const Trace trace = read_trace_text(edited.dump(), base_dir, "edited.json");
  const models::ModelSet models = models::build_models(models::Configuration::from_preset(preset));
  SimOptions options;
  options.threads = std::max(1u, threads);
  RunStats stats = simulate(trace, models, options, images);
  const FrameFigures f = frame_figures(stats);
  if (stats_out) *stats_out = std::move(stats);
  return f;
}

std::vector<Finding> find_all(const json& trace, const RunStats& stats, const Trace* parsed,
                              const models::ModelSet* models) {
  std::vector<Finding> out;
  const RuleInput input{trace, stats, parsed, models};
  for (const RuleInfo& r : rules())
    for (Finding& f : r.rule(input)) out.push_back(std::move(f));
  return out;
}

Advice advise(const AdviseOptions& o) {
  if (!(o.fps > 0)) throw InputError("--fps", "expected a positive frame rate");
  Advice advice;
  advice.preset = o.preset;
  advice.fps = o.fps;
  const json document = read_json_file(o.trace);
  const Trace trace = read_trace(o.trace);  // the reader's checks, with the file's own name
  advice.trace_name = trace.name;
  advice.warnings = trace.warnings;
  advice.notes = captured_frame_notes(trace);
  const models::ModelSet models = models::build_models(models::Configuration::from_preset(o.preset));
  SimOptions options;
  options.threads = std::max(1u, o.threads);
  // The fixes only drop work, so the original trace's estimate bounds every priced copy (tools/doc/cli.md
  // "Memory budget").
  check_memory_budget(estimate_memory(trace, models.resolved, options), o.max_memory, o.trace.string());
  PresentedPixels original_images(presented_images(document));
  std::optional<StepProgress> progress;
  if (o.progress) progress.emplace("advise", 0);
  if (progress) progress->next("simulating " + o.trace.filename().string());
  const RunStats stats = simulate(trace, models, options, &original_images);
  advice.before = frame_figures(stats);
  advice.findings = find_all(document, stats, &trace, &models);
  check_pricing_work(advice.findings, trace, o.trace);
  const fs::path base = o.trace.parent_path().empty() ? fs::path(".") : o.trace.parent_path();
  if (progress)
    progress->set_total(1 + std::count_if(advice.findings.begin(), advice.findings.end(),
                                          [](const Finding& f) { return !f.edit.empty(); }));
  for (Finding& f : advice.findings) {
    if (f.edit.empty()) {  // reported, not priced
      f.after = advice.before;
      continue;
    }
    if (progress) progress->next("pricing " + f.id);
    RunStats edited;
    PresentedPixels edited_images(original_images.presented);
    f.after = price(apply_edits(document, {&f}), base, o.preset, o.threads, &edited, &edited_images);
    f.priced = true;
    f.verdict = verdict(advice.before, f.after, f.memory_bytes);
    if (f.rule == "merge-passes" || f.rule == "merge-fix") f.note = merge_decision(edited, f.where);
    const std::string changed = f.changes_images ? "" : first_changed_image(original_images, edited_images);
    if (!changed.empty()) f.withdrawn_because = "the edited trace changes image " + changed;
  }
  const auto kept = std::stable_partition(advice.findings.begin(), advice.findings.end(),
                                          [](const Finding& f) { return f.withdrawn_because.empty(); });
  advice.withdrawn.assign(std::make_move_iterator(kept), std::make_move_iterator(advice.findings.end()));
  advice.findings.erase(kept, advice.findings.end());
  // A draw order saves only under an HSR that shades in draw order (early_z, fpk): not under none
  // (every fragment shaded) nor deferred (only the visible one): no saving, no finding.
  std::erase_if(advice.findings, [&](const Finding& f) {
    return f.rule == "front-to-back" && f.after.fragments_shaded >= advice.before.fragments_shaded;
  });
  std::stable_sort(advice.findings.begin(), advice.findings.end(), [&](const Finding& a, const Finding& b) {
    const int64_t sa = saved_bytes(advice.before, a.after), sb = saved_bytes(advice.before, b.after);
    if (sa != sb) return sa > sb;
    const int64_t na = signed_diff(total_bytes(advice.before.dram_nominal), total_bytes(a.after.dram_nominal));
    const int64_t nb = signed_diff(total_bytes(advice.before.dram_nominal), total_bytes(b.after.dram_nominal));
    if (na != nb) return na > nb;
    return a.after.cycles < b.after.cycles;
  });
  return advice;
}

std::vector<const Finding*> select(const Advice& advice, const std::vector<std::string>& ids) {
  std::vector<const Finding*> out;
  for (const std::string& id : ids) {
    bool known_rule = false;
    for (const RuleInfo& r : rules()) known_rule |= id == r.id;
    size_t matched = 0;
    for (const Finding& f : advice.findings)
      if (f.id == id || (f.rule == id && recommended(f))) {
        if (std::find(out.begin(), out.end(), &f) == out.end()) out.push_back(&f);
        ++matched;
      }
    if (!matched && !known_rule)
      throw InputError("--apply " + id, "no finding or rule has this id (tbdrsim advise --all lists them)");
    if (!matched)  // an unchanged trace written under a new name would look like a fix
      throw InputError("--apply " + id, "no finding of this rule saves in this trace (tbdrsim advise --all lists the others)");
  }
  // Two edits of the same place (one path equal to or inside the other) cannot be applied together.
  auto within = [](const std::string& a, const std::string& b) { return a == b || a.rfind(b + "/", 0) == 0; };
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = i + 1; j < out.size(); ++j)
      for (const json& x : out[i]->edit)
        for (const json& y : out[j]->edit)
          if (within(x["path"], y["path"]) || within(y["path"], x["path"]))
            throw InputError("--apply " + out[i]->id + " " + out[j]->id,
                             "both edit " + x["path"].get<std::string>() + "; apply one, then advise the edited trace");
  return out;
}

namespace {

// The findings of one section, in print order: the recommended ones by saving, or the ones not
// worth it (--all), the largest cost first, then those that change nothing.
std::vector<const Finding*> section(const Advice& a, bool worth_it) {
  std::vector<const Finding*> out;
  for (const Finding& f : a.findings)
    if (recommended(f) == worth_it) out.push_back(&f);
  if (!worth_it)
    std::stable_sort(out.begin(), out.end(), [&](const Finding* x, const Finding* y) {
      if (x->verdict != y->verdict) return x->verdict == Verdict::costs;
      return saved_bytes(a.before, x->after) < saved_bytes(a.before, y->after);
    });
  return out;
}

size_t count_verdict(const Advice& a, Verdict v) {
  return size_t(std::count_if(a.findings.begin(), a.findings.end(), [&](const Finding& f) { return f.verdict == v; }));
}

void finding_line(std::ostream& out, const Advice& a, const Finding& f) {
  out << f.id << "  " << where_text(f.where) << ": " << f.problem << " -> " << f.fix;
  if (!f.priced) {
    out << " [" << f.note << "]\n";
    return;
  }
  out << "; " << change_text(a.before, f.after, a.fps, f.memory_bytes);
  if (f.changes_images) out << " [changes images: " << f.note << "]";
  else if (!f.note.empty()) out << " [" << f.note << "]";
  out << "\n";
}

}  // namespace

std::string advice_text(const Advice& a, bool all) {
  std::ostringstream out;
  const uint64_t frame_bytes = total_bytes(a.before.dram);
  const std::vector<const Finding*> listed = section(a, true), not_worth_it = section(a, false);
  out << "advise " << a.trace_name << " (preset " << a.preset << ", last frame): " << frame_bytes << " B DRAM ("
      << fixed(double(frame_bytes) * a.fps / 1e6, 1) << " MB/s at " << fixed(a.fps, 0) << " fps), nominal "
      << total_bytes(a.before.dram_nominal) << " B, " << fixed(a.before.cycles, 0) << " cycles, "
      << fixed(a.before.ms, 3) << " ms, " << fixed(a.before.joules * 1e3, 3) << " mJ; " << listed.size()
      << (listed.size() == 1 ? " finding; " : " findings; ") << not_worth_it.size() << " not worth it (" << count_verdict(a, Verdict::costs) << " cost, "
      << count_verdict(a, Verdict::no_change) << " change nothing" << (all ? ")" : "; --all lists them)") << "\n";
  for (const std::string& n : a.notes) out << "note: " << n << "\n";
  for (const Finding* f : listed) finding_line(out, a, *f);
  if (all && !not_worth_it.empty()) {
    out << "not worth it:\n";
    for (const Finding* f : not_worth_it) finding_line(out, a, *f);
  }
  for (const Finding& f : a.withdrawn)
    out << "withdrawn " << f.id << "  " << where_text(f.where) << ": " << f.fix << " (" << f.withdrawn_because << ")\n";
  return out.str();
}

namespace {

json finding_json(const Advice& a, const Finding& f) {
  json j = {{"id", f.id}, {"rule", f.rule}, {"where", subject_json(f.where)}, {"problem", f.problem},
            {"fix", f.fix}, {"edit", f.edit}, {"changes_images", f.changes_images}, {"verdict", verdict_name(f.verdict)}};
  if (!f.note.empty()) j["note"] = f.note;
  if (f.memory_bytes) j["memory_bytes_saved"] = f.memory_bytes;
  if (!f.priced) return j;
  j["net"] = net_json(a.before, f.after, a.fps, f.memory_bytes);
  j["after"] = figures_json(f.after, a.fps);
  return j;
}

}  // namespace

json advice_json(const Advice& a, bool all) {
  json findings = json::array(), not_worth_it = json::array();
  for (const Finding* f : section(a, true)) findings.push_back(finding_json(a, *f));
  for (const Finding* f : section(a, false)) not_worth_it.push_back(finding_json(a, *f));
  json withdrawn = json::array();
  for (const Finding& f : a.withdrawn)
    withdrawn.push_back({{"id", f.id}, {"rule", f.rule}, {"where", subject_json(f.where)}, {"fix", f.fix},
                         {"reason", f.withdrawn_because}});
  json out = {{"format", "tbdrsim-advice"}, {"schema_version", 2}, {"tbdrsim", version_json()}, {"trace", a.trace_name}, {"preset", a.preset},
              {"fps", a.fps}, {"frame", figures_json(a.before, a.fps)}, {"findings", findings},
              {"not_worth_it_counts", {{"costs", count_verdict(a, Verdict::costs)},
                                       {"no_change", count_verdict(a, Verdict::no_change)}}},
              {"withdrawn", withdrawn}, {"warnings", a.warnings}};
  if (all) out["not_worth_it"] = not_worth_it;
  if (!a.notes.empty()) out["notes"] = a.notes;
  return out;
}

}  // namespace tbdr::advise
