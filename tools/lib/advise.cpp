// `tbdrsim advise`: runs the rules (advise_rules.cpp), prices each finding by simulating the
// edited trace under the same preset, sorts by saving, writes text and JSON.
#include "tools/lib/advise.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/input_file.h"
#include "models/json_duplicates.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tools/lib/output.h"
#include "tools/lib/report.h"

namespace tbdr::advise {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

int64_t signed_diff(uint64_t a, uint64_t b) { return int64_t(a) - int64_t(b); }

uint64_t total_bytes(const DramLedger& l) {
  const Traffic t = l.total();
  return t.read_bytes + t.write_bytes;
}

// Physical bytes saved per frame (the sort key), then nominal, then cycles.
int64_t saved_bytes(const FrameFigures& before, const FrameFigures& after) {
  return signed_diff(total_bytes(before.dram), total_bytes(after.dram));
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// before - after, per category: positive = saved.
json saving_json(const DramLedger& before, const DramLedger& after) {
  json by = json::object();
  for (size_t c = 0; c < kDramCategoryCount; ++c) {
    const Traffic& b = before.by_category[c];
    const Traffic& a = after.by_category[c];
    if (b == a) continue;
    by[dram_category_name(DramCategory(c))] = {{"read_bytes", signed_diff(b.read_bytes, a.read_bytes)},
                                               {"write_bytes", signed_diff(b.write_bytes, a.write_bytes)}};
  }
  const Traffic b = before.total(), a = after.total();
  return {{"read_bytes", signed_diff(b.read_bytes, a.read_bytes)},
          {"write_bytes", signed_diff(b.write_bytes, a.write_bytes)},
          {"by_category", by}};
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
    std::string key = "f" + std::to_string(i.frame);
    key += "/" + i.image_name;
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
  // Bounded, regular files only, nesting limited before parsing (issue 27): as every input.
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

std::vector<Finding> find_all(const json& trace, const RunStats& stats, const Trace* parsed) {
  std::vector<Finding> out;
  const RuleInput input{trace, stats, parsed};
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
  const models::ModelSet models = models::build_models(models::Configuration::from_preset(o.preset));
  SimOptions options;
  options.threads = std::max(1u, o.threads);
  // The fixes only drop work, so the original trace's estimate bounds every priced copy (README.md "Memory budget").
  check_memory_budget(estimate_memory(trace, models.resolved, options), o.max_memory, o.trace.string());
  PresentedPixels original_images(presented_images(document));
  const RunStats stats = simulate(trace, models, options, &original_images);
  advice.before = frame_figures(stats);
  advice.findings = find_all(document, stats, &trace);
  const fs::path base = o.trace.parent_path().empty() ? fs::path(".") : o.trace.parent_path();
  for (Finding& f : advice.findings) {
    if (f.edit.empty()) {  // reported, not priced
      f.after = advice.before;
      continue;
    }
    RunStats edited;
    PresentedPixels edited_images(original_images.presented);
    f.after = price(apply_edits(document, {&f}), base, o.preset, o.threads, &edited, &edited_images);
    f.priced = true;
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
      if (f.id == id || f.rule == id) {
        if (std::find(out.begin(), out.end(), &f) == out.end()) out.push_back(&f);
        ++matched;
      }
    if (!matched && !known_rule)
      throw InputError("--apply " + id, "no finding or rule has this id (tbdrsim advise lists them)");
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

std::string advice_text(const Advice& a) {
  std::ostringstream out;
  const uint64_t frame_bytes = total_bytes(a.before.dram);
  out << "advise " << a.trace_name << " (preset " << a.preset << ", last frame): " << frame_bytes << " B DRAM ("
      << fixed(double(frame_bytes) * a.fps / 1e6, 1) << " MB/s at " << fixed(a.fps, 0) << " fps), nominal "
      << total_bytes(a.before.dram_nominal) << " B, " << fixed(a.before.cycles, 0) << " cycles, "
      << fixed(a.before.ms, 3) << " ms, " << fixed(a.before.joules * 1e3, 3) << " mJ; " << a.findings.size()
      << " findings\n";
  for (const Finding& f : a.findings) {
    const int64_t saved = saved_bytes(a.before, f.after);
    const int64_t nominal = signed_diff(total_bytes(a.before.dram_nominal), total_bytes(f.after.dram_nominal));
    if (!f.priced) {
      out << f.id << "  " << where_text(f.where) << ": " << f.problem << " -> " << f.fix << " [" << f.note << "]\n";
      continue;
    }
    out << f.id << "  " << where_text(f.where) << ": " << f.problem << " -> " << f.fix << "; saves "
        << fixed(double(saved) * a.fps / 1e6, 2) << " MB/s ("
        << fixed(frame_bytes ? 100.0 * double(saved) / double(frame_bytes) : 0.0, 2) << "% of the frame's traffic, "
        << saved << " B/frame, nominal " << nominal << " B), " << fixed(a.before.cycles - f.after.cycles, 0)
        << " cycles";
    if (f.after.fragments_shaded != a.before.fragments_shaded)
      out << ", " << int64_t(a.before.fragments_shaded) - int64_t(f.after.fragments_shaded) << " fragments shaded";
    if (f.memory_bytes) out << ", " << f.memory_bytes << " B of memory";
    if (f.changes_images) out << " [changes images: " << f.note << "]";
    else if (!f.note.empty()) out << " [" << f.note << "]";
    out << "\n";
  }
  for (const Finding& f : a.withdrawn)
    out << "withdrawn " << f.id << "  " << where_text(f.where) << ": " << f.fix << " (" << f.withdrawn_because << ")\n";
  return out.str();
}

json advice_json(const Advice& a) {
  json findings = json::array();
  for (const Finding& f : a.findings) {
    json j = {{"id", f.id}, {"rule", f.rule}, {"where", subject_json(f.where)}, {"problem", f.problem},
              {"fix", f.fix}, {"edit", f.edit}, {"changes_images", f.changes_images}};
    if (!f.note.empty()) j["note"] = f.note;
    if (f.memory_bytes) j["memory_bytes_saved"] = f.memory_bytes;
    if (!f.priced) {
      findings.push_back(std::move(j));
      continue;
    }
    const uint64_t saved_total = uint64_t(std::max<int64_t>(0, saved_bytes(a.before, f.after)));
    j["saving"] = {{"dram", saving_json(a.before.dram, f.after.dram)},
                   {"dram_nominal", saving_json(a.before.dram_nominal, f.after.dram_nominal)},
                   {"dram_mb_per_s", double(saved_bytes(a.before, f.after)) * a.fps / 1e6},
                   {"dram_fraction", total_bytes(a.before.dram) ? double(saved_total) / double(total_bytes(a.before.dram)) : 0.0},
                   {"cycles", a.before.cycles - f.after.cycles},
                   {"fragments_shaded", int64_t(a.before.fragments_shaded) - int64_t(f.after.fragments_shaded)},
                   {"frame_ms", a.before.ms - f.after.ms},
                   {"energy_joules", a.before.joules - f.after.joules}};
    j["after"] = figures_json(f.after, a.fps);
    findings.push_back(std::move(j));
  }
  json withdrawn = json::array();
  for (const Finding& f : a.withdrawn)
    withdrawn.push_back({{"id", f.id}, {"rule", f.rule}, {"where", subject_json(f.where)}, {"fix", f.fix},
                         {"reason", f.withdrawn_because}});
  return {{"format", "tbdrsim-advice"}, {"schema_version", 1}, {"trace", a.trace_name}, {"preset", a.preset},
          {"fps", a.fps}, {"frame", figures_json(a.before, a.fps)}, {"findings", findings}, {"withdrawn", withdrawn}};
}

}  // namespace tbdr::advise
