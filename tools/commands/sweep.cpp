// `tbdrsim sweep` and `sweep-merge`: expands configurations, validates them all, simulates the
// unfinished ones on N workers, writes one part per configuration and rebuilds results.csv/json from the parts.
#include "tools/commands/sweep_internal.h"
#include "tools/commands/csv.h"

namespace tbdr::sweep {


std::string too_many_configurations() {
  return "more than " + std::to_string(k_max_configurations) +
         " configurations (tools/doc/cli.md \"Limits of input files\"); split the sweep";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

// A file this tool wrote (sweep.json, a part), read as every input is (bounded, regular, nesting
// limited: tools/doc/cli.md "Output files and input limits"); false when it does not exist.
bool read_text(const fs::path& path, std::string& text) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  text = read_input_file(path, InputLimits::kTextBytes, path.string());
  check_json_depth(text, path.string());
  return true;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Staged as a run's outputs are (frontend/staged_file.h: an unguessable name created with O_CREAT |
// O_EXCL | O_NOFOLLOW, so a planted symlink or FIFO is never followed; removed on any failure, disk
// full included) and renamed: a reader (or a re-run after SIGKILL) sees the whole file or none.
void write_atomically(const fs::path& target, const std::string& text) {
  const fs::path staged = staged_path(target);
  write_staged(staged, target, text);
  std::error_code ec;
  fs::rename(staged, target, ec);
  if (!ec) return;
  fs::remove(staged, ec);
  throw std::runtime_error("cannot write " + target.string() + " (rename failed)");
}

// Staged files that a killed sweep left (their process is gone) are removed, so an interrupted and
// resumed sweep leaves the same files as an uninterrupted one; only this tool's pattern.
void remove_stale_temporaries(const fs::path& folder) {
  std::error_code ec;
  if (fs::is_directory(folder, ec)) remove_stale_staged(folder);
}

std::string part_name(size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06zu.json", index);
  return buf;
}

PartGroups part_groups(const std::vector<uint32_t>& functional_group) {
  PartGroups groups;
  groups.first.resize(functional_group.size(), SIZE_MAX);
  std::unordered_map<uint32_t, size_t> open;  // functional group -> first configuration of its latest run
  for (size_t i = 0; i < functional_group.size(); ++i) {
    auto [it, added] = open.try_emplace(functional_group[i], i);
    if (!added && groups.members[it->second].size() >= k_part_group) it->second = i;
    groups.members[it->second].push_back(i);
    groups.first[i] = it->second;
  }
  return groups;
}

// ---- grid files -------------------------------------------------------------------------------

std::string grid_value(const ojson& v, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  throw InputError(where, "expected a string, number or boolean value");
}

void check_key(const std::string& key, const std::string& where) {
  if (key.empty() || key.find('=') != std::string::npos || key.find(',') != std::string::npos)
    throw InputError(where, "expected a column name KIND, KIND.PARAM or tile, found '" + key + "'");
}

// The elements of a JSON text's top-level array, counted without parsing (strings and nesting
// skipped): a grid over the cap is refused before nlohmann builds a million objects (1,000,001 rows
// of a JSON grid took minutes to parse before the count refused them).
size_t top_level_elements(const std::string& text) {
  size_t depth = 0, commas = 0;
  bool in_string = false, escaped = false, any = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') ++depth;
    else if ((c == ']' || c == '}') && depth > 0) --depth;
    else if (c == ',' && depth == 1) ++commas;
    if (depth == 1 && c != '[' && c != ',' && c != ' ' && c != '\n' && c != '\r' && c != '\t') any = true;
    if (depth == 2 && (c == '[' || c == '{')) any = true;
  }
  return any ? commas + 1 : 0;
}

// Each row's assignments ("KEY=VALUE", in column order); an empty cell sets nothing.
std::vector<std::vector<std::string>> read_grid(const std::string& file) {
  // A regular file of bounded size (a FIFO or /dev/zero is refused before reading).
  const std::string text = read_input_file(file, InputLimits::kTextBytes, file);
  const std::string ext = fs::path(file).extension().string();
  std::vector<std::vector<std::string>> rows;
  if (ext == ".csv") {
    std::vector<std::string> header;
    csv::read_records(text, file, [&](csv::Record& record) {  // RFC 4180; blank and '#' lines skipped
      const std::string where = file + ":" + std::to_string(record.line);
      std::vector<std::string> cells = std::move(record.cells);
      if (header.empty()) {
        std::set<std::string> seen;
        for (const std::string& key : cells) {
          check_key(key, where);
          if (!seen.insert(key).second) throw InputError(where, "column " + key + " given twice (only the last would apply)");
        }
        header = std::move(cells);
        return;
      }
      if (cells.size() != header.size())
        throw InputError(where, "expected " + std::to_string(header.size()) + " cells (one per header column), found " +
                                    std::to_string(cells.size()));
      std::vector<std::string> row;
      for (size_t c = 0; c < cells.size(); ++c)
        if (!cells[c].empty()) row.push_back(header[c] + "=" + cells[c]);
      rows.push_back(std::move(row));
      if (rows.size() > k_max_configurations) throw InputError(where, too_many_configurations());
    });
    if (header.empty()) throw InputError(file, "no header row (the column names KIND, KIND.PARAM or tile)");
  } else if (ext == ".json") {
    if (top_level_elements(text) > k_max_configurations) throw InputError(file, too_many_configurations());
    ojson doc;
    DuplicateKeyChecker<ojson> checker(file);  // {"k": 16, "k": 32} would run only 32
    try {
      doc = parse_checking_duplicates(text, checker);
    } catch (const InputError&) {
      throw;
    } catch (const ojson::out_of_range& e) {  // a number beyond double's range: nlohmann gives no position
      throw InputError(file + ": " + checker.reading_pointer(), "not valid JSON: " + without_json_exception_tags(e.what()));
    } catch (const std::exception& e) {
      throw InputError(file, "not valid JSON: " + without_json_exception_tags(e.what()));
    }
    if (!doc.is_array()) throw InputError(file, "expected an array of configurations");
    if (doc.size() > k_max_configurations) throw InputError(file, too_many_configurations());
    for (size_t r = 0; r < doc.size(); ++r) {
      const std::string where = file + ": /" + std::to_string(r);
      std::vector<std::string> row;
      if (doc[r].is_object()) {
        for (const auto& [key, value] : doc[r].items()) {
          check_key(key, where + "/" + key);
          row.push_back(key + "=" + grid_value(value, where + "/" + key));
        }
      } else if (doc[r].is_array()) {
        std::set<std::string> seen;
        for (const ojson& a : doc[r]) {
          if (!a.is_string() || a.get<std::string>().find('=') == std::string::npos)
            throw InputError(where, "expected assignments \"KIND=IMPL\", \"KIND.PARAM=VALUE\" or \"tile=WxH\"");
          const std::string key = a.get<std::string>().substr(0, a.get<std::string>().find('='));
          if (!seen.insert(key).second) throw InputError(where, key + " assigned twice (only the last would apply)");
          row.push_back(a.get<std::string>());
        }
      } else {
        throw InputError(where, "expected an object {\"KIND.PARAM\": VALUE, ...} or an array of \"KEY=VALUE\" strings");
      }
      rows.push_back(std::move(row));
    }
  } else {
    throw InputError(file, "a grid file is .csv or .json");
  }
  if (rows.empty()) throw InputError(file, "the grid lists no configuration: the sweep is empty");
  return rows;
}

// ---- configurations ---------------------------------------------------------------------------

models::Configuration make_configuration(const models::Configuration& preset, const std::vector<std::string>& assignments) {
  models::Configuration config = preset;
  for (const std::string& a : assignments) {
    if (a.rfind("tile=", 0) == 0) config.set_tile(a.substr(5));
    else config.apply(a);
  }
  return config;
}

std::string label(size_t index, const std::vector<std::string>& assignments) {
  return "configuration " + std::to_string(index) + " (" + (assignments.empty() ? "the preset" : join(assignments, " ")) + ")";
}

// set.KIND and set.KIND.PARAM for every kind and parameter of ModelSet::resolved (defaults included).
void set_columns(const nlohmann::json& resolved, RowBuilder& row) {
  for (const auto& [kind, entry] : resolved.items()) {
    row.set("set." + kind, ojson(entry.at("impl")));
    for (const auto& [param, value] : entry.at("params").items()) row.set("set." + kind + "." + param, ojson(value));
  }
}

std::pair<unsigned, unsigned> parse_shard(const std::string& shard) {
  if (shard.empty()) return {1, 1};
  const std::vector<std::string> parts = split(shard, '/');
  auto number = [](const std::string& s) -> unsigned long {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoul(s);
  };
  const unsigned long k = parts.size() == 2 ? number(parts[0]) : 0, n = parts.size() == 2 ? number(parts[1]) : 0;
  if (k < 1 || n < 1 || k > n) throw InputError("--shard " + shard, "expected K/N with 1 <= K <= N");
  return {unsigned(k), unsigned(n)};
}


std::vector<std::vector<std::string>> expand_configurations(const SweepOptions& o) {
  std::vector<std::vector<std::string>> dims;  // per vary step: "KEY=value" assignments
  std::set<std::string> varied;                // keys, each varied once (a second --vary would override the first)
  bool has_grid_step = false;
  for (const Step& s : o.steps) {
    if (s.kind == Step::Kind::grid) has_grid_step = true;
    if (s.kind != Step::Kind::vary) continue;
    const size_t eq = s.text.find('=');
    const std::string where = "--vary " + s.text;
    if (eq == std::string::npos || eq == 0)
      throw InputError(where, "expected KEY=v1,v2,... with KEY one of KIND, KIND.PARAM or tile");
    const std::string key = s.text.substr(0, eq), list = s.text.substr(eq + 1);
    if (const std::string trimmed_key = trim(key); !varied.insert(trimmed_key).second)
      throw InputError(where, trimmed_key + " is varied twice: give its values in one --vary");
    if (trim(list).empty()) throw InputError(where, "no values: the product is empty");
    std::set<std::string> listed;
    std::vector<std::string> values;
    for (const std::string& raw : split(list, ',')) {
      const std::string v = trim(raw);
      if (v.empty()) throw InputError(where, "an empty value in the comma list");
      if (!listed.insert(v).second) throw InputError(where, v + " is listed twice");
      values.push_back(key + "=" + v);
    }
    dims.push_back(std::move(values));
  }
  if (!o.grid.empty() && !dims.empty()) throw InputError("sweep", "--vary and --grid are alternatives: give one of them");
  std::vector<std::vector<std::string>> grid;
  if (!o.grid.empty()) grid = read_grid(o.grid);
  else if (dims.empty()) throw InputError("sweep", "nothing to vary: give --vary KEY=v1,v2,... or --grid FILE");

  size_t count = grid.empty() ? 1 : grid.size();
  for (const auto& d : dims) {
    // Named by the --vary whose values cross the cap (its key: the text before '=').
    if (count > k_max_configurations / d.size())
      throw InputError("--vary " + d.front().substr(0, d.front().find('=')), too_many_configurations());
    count *= d.size();
  }
  std::vector<Step> steps = o.steps;
  if (!o.grid.empty() && !has_grid_step) steps.push_back({Step::Kind::grid, ""});
  std::vector<std::vector<std::string>> configurations(count);
  for (size_t i = 0; i < count; ++i) {
    // Digits of i, the last --vary varying fastest.
    std::vector<size_t> digit(dims.size());
    size_t rest = i;
    for (size_t d = dims.size(); d-- > 0;) {
      digit[d] = rest % dims[d].size();
      rest /= dims[d].size();
    }
    size_t vary = 0;
    for (const Step& s : steps) {
      switch (s.kind) {
        case Step::Kind::set: configurations[i].push_back(s.text); break;
        case Step::Kind::tile: configurations[i].push_back("tile=" + s.text); break;
        case Step::Kind::vary: configurations[i].push_back(dims[vary][digit[vary]]), ++vary; break;
        case Step::Kind::grid:
          configurations[i].insert(configurations[i].end(), grid[i].begin(), grid[i].end());
          break;
      }
    }
  }
  return configurations;
}

// What Prepared holds per configuration (tools/doc/cli.md "Memory budget", term "sweep configurations"):
// its assignments (a list of 24 B, 32 B a string plus its text beyond the 15 characters kept inline),
// its resolved-parameter hash (a 32 B string), functional group and shard (4 B each), and twice its line of
// sweep.json (the text kept and the one hashed for the parts).
MemoryTerm configurations_term(const SweepOptions& o, const std::vector<std::vector<std::string>>& configurations) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < configurations.size(); ++i) {
    uint64_t line = 36 + std::to_string(i).size();  // {"index": I, "assignments": []},\n plus indent
    bytes += 24 + 32 + 4 + 4;
    for (const std::string& a : configurations[i]) {
      bytes += 32 + (a.size() > 15 ? a.size() + 1 : 0);
      line += a.size() + 3;  // quoted, comma
    }
    bytes += 2 * line;
  }
  return {"sweep configurations",
          std::to_string(configurations.size()) + " configurations" + (o.grid.empty() ? "" : " of --grid " + o.grid), bytes};
}

// Every configuration resolved (bad input refused naming it), kept as Prepared's few figures; returns
// the hash of their resolved parameters, one line each, for sweep.json's models_fnv1a64.
uint64_t resolve_configurations(const SweepOptions& o, Prepared& p) {
  uint64_t models_hash = fnv1a64("");
  std::unordered_map<std::string, uint32_t> groups;  // functional part's text -> functional group
  std::unordered_set<std::string> estimated;         // memory_estimate_inputs seen, as text
  const bool keep = p.configurations.size() <= k_kept_model_sets;
  for (size_t i = 0; i < p.configurations.size(); ++i) {
    std::unique_ptr<models::ModelSet> built;
    try {
      if (!p.preset) p.preset = models::Configuration::from_preset(o.preset);
      built = std::make_unique<models::ModelSet>(models::build_models(make_configuration(*p.preset, p.configurations[i])));
    } catch (const InputError& e) {
      throw InputError(label(i, p.configurations[i]), e.what());
    }
    const nlohmann::json& resolved = built->resolved;
    const std::string text = resolved.dump();
    p.resolved_hash.push_back(hex64(fnv1a64(text)));
    models_hash = fnv1a64("\n", fnv1a64(text, models_hash));
    const auto group = groups.emplace(models::functional_part(resolved).dump(), uint32_t(groups.size())).first;
    p.functional_group.push_back(group->second);
    // Configurations differing only in parameters the estimate does not read are estimated once, and
    // only what it reads is kept (a grid may vary texture.l2_bytes in each of a million rows).
    std::string inputs = memory_estimate_inputs(resolved).dump();
    if (estimated.insert(inputs).second) p.estimated.push_back(std::move(inputs));
    if (keep) p.models.push_back(std::move(built));
  }
  return models_hash;
}

// Every trace read (scenes imported) and every configuration resolved, hashed into the fingerprint
// (sweep.json) and the inputs each part carries: all that can reject the input, before any simulation.
Prepared prepare(const SweepOptions& o, unsigned shard, unsigned shards) {
  record_input_digests();  // every file read from here on: presets, grid, traces, sidecars, textures, scenes
  Prepared p;
  p.configurations = expand_configurations(o);
  // A grid's rows are an input's choice too: their term alone over the budget is refused before they
  // are resolved, naming where they came from; check_sweep_memory adds it to the rest.
  const MemoryTerm configurations = configurations_term(o, p.configurations);
  check_memory_budget(MemoryEstimate{{configurations}}, o.max_memory, o.grid.empty() ? "sweep" : o.grid);
  const uint64_t models_hash = resolve_configurations(o, p);
  ojson traces = ojson::array();
  for (const std::string& path : o.traces) {
    if (is_importable_scene(path)) {
      // A glTF/OBJ scene is imported once, with default settings (as `run SCENE` does).
      if (!p.imports) p.imports = std::make_unique<ImportFolder>();
      const fs::path target = p.imports->path / std::to_string(p.traces.size()) / "scene.json";
      p.traces.push_back(read_trace(import_scene(path, target).trace));
    } else {
      p.traces.push_back(read_trace(path));
    }
    // Once per trace, on stderr (tools/doc/cli.md "Machine-readable output"); the rows carry figures only.
    for (const std::string& w : p.traces.back().warnings) std::cerr << "tbdrsim: warning: " << path << ": " << w << "\n";
    const std::vector<uint8_t> bytes = read_input_bytes(path, InputLimits::kBinaryBytes, path);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    traces.push_back({{"path", path}, {"fnv1a64", hex64(fnv1a64(text))}});
  }
  keep_freed_heap_memory();  // the configurations reuse what the last one freed (sim/huge_pages.h)
  p.inputs = ojson::array();
  for (const InputDigest& d : input_digests())  // an import's own outputs vary by folder: left out
    if (!p.imports || d.path.rfind(p.imports->path.string(), 0) != 0)
      p.inputs.push_back({{"path", d.path}, {"fnv1a64", hex64(d.fnv1a64)}});
  p.inputs_text = p.inputs.dump();
  ojson fingerprint = ojson::object();
  fingerprint["format"] = "tbdrsim-sweep";
  fingerprint["version"] = k_version;
  fingerprint["preset"] = o.preset;
  fingerprint["traces"] = traces;
  fingerprint["models_fnv1a64"] = hex64(models_hash);
  fingerprint["shard"] = "1/1";
  p.sweep_hash = hex64(fnv1a64(fingerprint_text(fingerprint, &p.configurations)));
  fingerprint["shard"] = std::to_string(shard) + "/" + std::to_string(shards);
  p.shard_of = assign_shards(p.functional_group, shards);
  if (shards > 1) {  // this shard's configurations, for sweep-merge to name the shard of a missing part
    fingerprint["shard_configurations"] = ojson::array();
    for (size_t i = 0; i < p.shard_of.size(); ++i)
      if (p.shard_of[i] == shard) fingerprint["shard_configurations"].push_back(i);
  }
  p.fingerprint = fingerprint_text(fingerprint, &p.configurations);
  return p;
}

}  // namespace tbdr::sweep
