// Sweep folders and parts: the folder's fingerprint (sweep.json), each part checked against what
// its configuration expects before it is trusted, and `tbdrsim sweep-merge` of shard folders.
#include "tools/commands/sweep_internal.h"

namespace tbdr::sweep {

// ---- the sweep folder ---------------------------------------------------------------------------

// sweep.json: the sweep's fingerprint, one configuration per line (readable, diff-friendly). Without
// its "configurations", `configurations` gives them, written last ({"index": i, "assignments": [...]}
// a line, as the parsed file's), so a million of them are never held as a JSON tree.
std::string fingerprint_text(const ojson& fingerprint, const std::vector<std::vector<std::string>>* configurations) {
  std::string out = "{";
  bool first = true;
  auto lines = [&out](size_t count, const auto& line) {
    out += "[";
    for (size_t i = 0; i < count; ++i) {
      out += i ? ",\n  " : "\n  ";
      out += line(i);
    }
    out += count == 0 ? "]" : "\n ]";
  };
  for (const auto& [key, value] : fingerprint.items()) {
    out += first ? "\n " : ",\n ";
    first = false;
    out += ojson(key).dump() + ": ";
    const ojson& items = value;  // clang 14 captures no structured binding
    if (key == "configurations" && items.is_array()) lines(items.size(), [&items](size_t i) { return items[i].dump(); });
    else out += items.dump();
  }
  if (configurations) {
    out += ",\n \"configurations\": ";
    lines(configurations->size(), [configurations](size_t i) {
      return ojson{{"index", i}, {"assignments", (*configurations)[i]}}.dump();
    });
  }
  return out + "\n}\n";
}

// Creates `dir` for the sweep described by `fingerprint`, or checks that it already holds that sweep.
void prepare_folder(const fs::path& dir, const std::string& fingerprint) {
  const fs::path path = dir / "sweep.json";
  std::error_code ec;
  if (fs::exists(path, ec)) {
    std::string existing;
    if (!read_text(path, existing)) throw InputError(path.string(), "cannot read");
    if (existing != fingerprint)
      throw InputError(dir.string(), "holds a different sweep (" + sweep_difference(existing, fingerprint, {"the folder's sweep", "this one"}) +
                                         "); resume with the same arguments, or choose another --out");
    ensure_real_folder(dir / "parts");  // a resumed sweep writes its missing parts there
    return;
  }
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw InputError(dir.string(), "exists and is not a folder");
  if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec))
    throw InputError(dir.string(), "is not empty and holds no sweep (no sweep.json); choose a new or empty --out folder");
  fs::create_directories(dir);
  ensure_real_folder(dir / "parts");
  write_atomically(path, fingerprint);
}

// ---- parts and their validation ------------------------------------------------------------------



// The first input file whose path or hash differs between two "inputs" arrays.
std::string changed_input(const ojson& a, const ojson& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
    const ojson& entry = i < a.size() ? a[i] : b[i];
    return entry.is_object() ? entry.value("path", std::string("?")) : std::string("?");
  }
  return "?";
}

// Every row holds config_index `index` (a row without one is another configuration's).
bool rows_of_configuration(const std::vector<FlatRow>& rows, size_t index) {
  for (const FlatRow& row : rows) {
    const auto cell = std::find_if(row.begin(), row.end(), [](const Cell& c) { return c.key->name == "config_index"; });
    if (cell == row.end() || cell->value != ojson(index)) return false;
  }
  return true;
}

std::string rows_problem(const ojson& part, const fs::path& parts, const PartExpectation& expect, std::string* layout_file) {
  if (part.at("rows_fnv1a64") != part_rows_hash(part)) return "its rows were edited or damaged (rows_fnv1a64 differs)";
  RowKeys keys;
  ConfigurationRows rows;
  if (std::string problem = decode_part_rows(part, parts, *expect.layouts, keys, rows, layout_file); !problem.empty())
    return problem;
  if (!rows_of_configuration(rows.rows, expect.index) || !rows_of_configuration(rows.attachments, expect.index))
    return "a row of another configuration";
  const RowKey* row_key = keys.intern("row");
  const auto totals = std::count_if(rows.rows.begin(), rows.rows.end(), [row_key](const FlatRow& r) {
    return std::any_of(r.begin(), r.end(), [row_key](const Cell& c) { return c.key == row_key && c.value == "total"; });
  });
  if (size_t(totals) != expect.traces) return "expected one total row per trace (" + std::to_string(expect.traces) + ")";
  return "";
}

// Why `part` is not the valid part `expect` describes; empty when it is. Throws on a wrong JSON type.
std::string part_problem(const ojson& part, const fs::path& parts, const PartExpectation& expect, std::string* layout_file) {
  if (!part.is_object() || part.value("format", "") != "tbdrsim-sweep-part") return "not a sweep part";
  // Compared as JSON, never converted: value<int>() of a float past int's range is undefined (fuzz_sweep_part,
  // tests/data/fuzz_regressions/part-version-float-overflow.json).
  if (!part.contains("version") || part.at("version") != ojson(k_part_version))
    return "a part of another version of the sweep format (this tbdrsim reads version " + std::to_string(k_part_version) + ")";
  if (part.at("index") != ojson(expect.index)) return "not the part of configuration " + std::to_string(expect.index);
  if (part.at("sweep_fnv1a64") != expect.sweep_hash) return "a part of another sweep (sweep_fnv1a64 differs)";
  if (part.at("assignments") != expect.assignments) return "its assignments differ from sweep.json's";
  const auto is_input = [](const ojson& i) { return i.is_object() && i.size() == 2 && i.at("path").is_string() && i.at("fnv1a64").is_string(); };
  if (!part.at("inputs").is_array() || !std::all_of(part["inputs"].begin(), part["inputs"].end(), is_input))
    return "inputs is not an array of {path, fnv1a64}";
  if (!expect.configuration_hash.empty() && part.at("configuration_fnv1a64") != expect.configuration_hash)
    return "its configuration differs (configuration_fnv1a64)";
  if (std::string rows = rows_problem(part, parts, expect, layout_file); !rows.empty()) return rows;
  if (expect.inputs && part.at("inputs") != *expect.inputs)
    return "input file " + changed_input(part.at("inputs"), *expect.inputs) + " differs (inputs' fnv1a64)";
  return "";
}

// The part file at `path` parsed; `problem` set (and null returned) when it is not a valid part.
ojson read_checked_part(const fs::path& path, const PartExpectation& expect, std::string& problem, std::string* layout_file) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  problem = !fs::exists(status) ? "missing" : !fs::is_regular_file(status) ? "not a regular file (a symlink?)" : "";
  if (!problem.empty()) return ojson();
  try {
    const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
    check_json_depth(text, path.string());
    ojson part = ojson::parse(text);
    problem = part_problem(part, path.parent_path(), expect, layout_file);
    return problem.empty() ? part : ojson();
  } catch (const InputError& e) {
    problem = e.expected();
    return ojson();
  } catch (const std::exception& e) {
    problem = without_json_exception_tags(e.what());
    return ojson();
  }
}

std::vector<std::string_view> part_lines(const std::string& text, std::string& problem) {
  (void)problem;
  // A last line without its newline is read too: cut short, its JSON is what is named (and an empty file's).
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size() || lines.empty();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.emplace_back(text.data() + start, end - start);
    start = end + 1;
  }
  return lines;
}

std::vector<ojson> read_checked_group(const fs::path& path, const std::vector<PartExpectation>& expects, std::string& problem,
                                      std::set<std::string>* layout_files) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  problem = !fs::exists(status) ? "missing" : !fs::is_regular_file(status) ? "not a regular file (a symlink?)" : "";
  if (!problem.empty()) return {};
  std::vector<ojson> parts;
  size_t line = 0, number = 0;  // number: the line being read, from 1
  try {
    const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
    const std::vector<std::string_view> lines = part_lines(text, problem);
    if (problem.empty() && lines.size() != expects.size())
      problem = "holds " + std::to_string(lines.size()) + " lines, expected " + std::to_string(expects.size()) +
                " (configurations " + std::to_string(expects.front().index) + " to " + std::to_string(expects.back().index) + ")";
    for (; problem.empty() && line < lines.size(); ++line) {
      number = line + 1;
      const std::string one(lines[line]);
      check_json_depth(one, path.string());
      std::string layout;
      parts.push_back(ojson::parse(one));
      problem = part_problem(parts.back(), path.parent_path(), expects[line], &layout);
      if (layout_files && problem.empty()) layout_files->insert(layout);
    }
  } catch (const InputError& e) {
    problem = e.expected();
  } catch (const std::exception& e) {
    problem = without_json_exception_tags(e.what());
  }
  if (problem.empty()) return parts;
  if (number > 0 && expects.size() > 1) problem = "line " + std::to_string(number) + ": " + problem;
  return {};
}

// A shard folder's sweep.json with its shard set to 1/1 (as every shard's parts hash it).
// The folder's "shard": "K/N" and "shard_configurations" into `owners` (a folder of another N is refused).
void learn_shard(const ojson& fp, const fs::path& path, ShardOwners& owners) {
  const std::string shard = fp.value("shard", std::string("1/1"));
  const auto [k, n] = parse_shard(shard);
  if (n == 1) return;
  if (owners.shards != 0 && owners.shards != n)
    throw InputError(path.string(), "is shard " + shard + ", another folder given a shard of " + std::to_string(owners.shards));
  owners.shards = n;
  owners.given.insert(k);
  const ojson list = fp.value("shard_configurations", ojson::array());
  for (const ojson& i : list)
    if (i.is_number_unsigned()) owners.shard_of[i.get<size_t>()] = k;
}

ojson read_fingerprint(const fs::path& dir, const std::string& given, ShardOwners* owners) {
  const fs::path path = dir / "sweep.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(given, "not a sweep folder (no readable sweep.json)");
  const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
  check_json_depth(text, path.string());
  ojson fp;
  try {
    fp = ojson::parse(text);
  } catch (const std::exception& e) {
    throw InputError(path.string(), "not valid JSON: " + without_json_exception_tags(e.what()));
  }
  const auto valid_configuration = [](const ojson& c) { return c.is_object() && c.contains("assignments"); };
  if (!fp.is_object() || !fp.contains("traces") || !fp["traces"].is_array() || !fp.contains("configurations") ||
      !fp["configurations"].is_array() ||
      !std::all_of(fp["configurations"].begin(), fp["configurations"].end(), valid_configuration))
    throw InputError(path.string(), "not a sweep's sweep.json (an object with traces and configurations)");
  if (owners) learn_shard(fp, path, *owners);
  fp["shard"] = "1/1";
  fp.erase("shard_configurations");
  return fp;
}

// The index a part file's name gives (000042.json -> 42), or SIZE_MAX when it names none.
size_t index_of_part_name(const std::string& name) {
  const std::string stem = name.substr(0, name.size() - 5);
  if (stem.empty() || stem.size() > 12 || !std::all_of(stem.begin(), stem.end(), ::isdigit)) return SIZE_MAX;
  const size_t index = std::stoul(stem);
  return part_name(index) == name ? index : SIZE_MAX;
}

// The configurations a group's part file says it holds: each line's "index" (checked against the sweep
// by read_checked_group after), or SIZE_MAX for a line without one.
std::vector<size_t> indices_of_lines(const fs::path& file) {
  const std::string text = read_input_file(file, InputLimits::kTextBytes, file.string());
  std::string problem;
  std::vector<size_t> out;
  for (const std::string_view line : part_lines(text, problem)) {
    const std::string one(line);
    check_json_depth(one, file.string());
    const ojson part = ojson::parse(one, nullptr, false);
    const bool indexed = part.is_object() && part.contains("index") && part["index"].is_number_unsigned();
    out.push_back(indexed ? part["index"].get<size_t>() : SIZE_MAX);
  }
  return out;
}

// The parts of one shard folder, each checked against the sweep (`first`) and against the input files
// of the first part read (`merged.reference`): a part failing either is bad input naming it. Layout files
// are read as parts refer to them.
void collect_parts(const fs::path& dir, const ojson& first, MergedParts& merged) {
  std::error_code ec;
  if (!fs::is_directory(dir / "parts", ec)) return;
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "parts")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const std::string sweep_hash = hex64(fnv1a64(fingerprint_text(first)));
  const size_t count = first.at("configurations").size();
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    if (name.empty() || name[0] == '.' || file.extension() != ".json" || name.rfind("layout-", 0) == 0) continue;
    const size_t head = index_of_part_name(name);
    if (head >= count) throw InputError(file.string(), "a part of no configuration of this sweep");
    std::vector<size_t> indices;
    try {  // a symlink is not followed: read_checked_group names it
      if (fs::is_regular_file(fs::symlink_status(file, ec))) indices = indices_of_lines(file);
    } catch (const std::exception&) {
      indices = {head};  // read_checked_group names what is wrong
    }
    // A group's configurations in index order from the one its name gives (what else is wrong is named below).
    const auto in_order = [&](size_t k) { return k < indices.size() && indices[k] < count && (k == 0 ? indices[k] == head : indices[k] > indices[k - 1]); };
    if (indices.empty()) indices = {head};
    for (size_t k = 0; k < indices.size(); ++k)
      if (!in_order(k) && indices[k] != SIZE_MAX)
        throw InputError(file.string(), "not a valid part of this sweep: line " + std::to_string(k + 1) + ": configuration " +
                                            std::to_string(indices[k]) + " out of place (a file holds configurations " +
                                            "in increasing order from the one its name gives); run its shard again to redo it");
    std::vector<PartExpectation> expects;
    for (size_t k = 0; k < indices.size(); ++k) {
      const size_t index = in_order(k) ? indices[k] : head;
      expects.push_back({index, sweep_hash, first["configurations"][index]["assignments"], "",
                         merged.reference.is_null() ? nullptr : &merged.reference, first["traces"].size(), &merged.cache});
    }
    std::string problem;
    std::set<std::string> layouts;
    const std::vector<ojson> parts = read_checked_group(file, expects, problem, &layouts);
    if (!problem.empty())
      throw InputError(file.string(), "not a valid part of this sweep: " + problem +
                                          (problem.find("input file") != std::string::npos ? " from " + merged.reference_file : "") +
                                          "; run its shard again to redo it");
    if (merged.reference.is_null()) merged.reference = parts.front().at("inputs"), merged.reference_file = file.string();
    const std::string text = read_input_file(file, InputLimits::kTextBytes, file.string());
    auto [it, inserted] = merged.parts.emplace(head, std::make_pair(text, file.string()));
    if (!inserted && it->second.first != text)
      throw InputError(file.string(), "differs from " + it->second.second + " (the same configurations)");
    for (size_t index : indices) {
      if (merged.groups.first[index] != SIZE_MAX && merged.groups.first[index] != head)
        throw InputError(file.string(), "holds configuration " + std::to_string(index) + ", as parts/" +
                                            part_name(merged.groups.first[index]) + " of another folder does");
      merged.groups.first[index] = head;
    }
    merged.groups.members[head] = indices;
    for (const ojson& part : parts) {
      const std::string hash = part.at("layout_fnv1a64").get<std::string>();
      merged.layouts.emplace(layout_file_name(hash), merged.cache.get(dir / "parts", hash).text);
    }
  }
}

// A file of the merged folder's parts/, written unless it holds `text` already.
void write_if_changed(const fs::path& target, const std::string& text) {
  std::string existing;
  if (!read_text(target, existing) || existing != text) write_atomically(target, text);
}

void merge_sweeps(const std::vector<std::string>& dirs, const std::string& out, bool quiet) {
  if (dirs.empty()) throw InputError("sweep-merge", "no shard folder given");
  if (out.empty()) throw InputError("sweep-merge", "--out DIR is required");
  ojson first;
  std::string first_text;
  MergedParts merged;
  ShardOwners owners;
  for (size_t d = 0; d < dirs.size(); ++d) {
    const ojson fp = read_fingerprint(dirs[d], dirs[d], &owners);
    if (d == 0) {
      first = fp;
      first_text = fingerprint_text(fp);
    } else if (fp != first) {
      throw InputError(dirs[d], "is a shard of a different sweep than " + dirs[0] + " (" +
                                    sweep_difference(first.dump(), fp.dump(), {dirs[0], dirs[d]}) + ")");
    }
    if (d == 0) merged.groups.first.assign(first.at("configurations").size(), SIZE_MAX);
    collect_parts(dirs[d], first, merged);
  }
  const size_t count = first.at("configurations").size();
  std::vector<size_t> missing;
  for (size_t i = 0; i < count; ++i)
    if (merged.groups.first[i] == SIZE_MAX) missing.push_back(i);
  if (!missing.empty()) throw InputError("sweep-merge", missing_parts_message(missing, count, owners));
  const fs::path dir(out);
  prepare_folder(dir, first_text);
  remove_stale_temporaries(dir);
  remove_stale_temporaries(dir / "parts");
  for (const auto& [name, text] : merged.layouts) write_if_changed(dir / "parts" / name, text);
  std::vector<size_t> all;
  for (const auto& [head, part] : merged.parts) write_if_changed(dir / "parts" / part_name(head), part.first);
  for (size_t i = 0; i < count; ++i) all.push_back(i);
  const size_t rows = write_results(dir, all, merged.groups).rows;
  if (!quiet)
    std::cout << "sweep-merge: " << dirs.size() << " folder" << (dirs.size() == 1 ? "" : "s") << ", " << count
              << " configurations, " << rows << " rows in " << (dir / "results.csv").string() << "\n";
}

}  // namespace tbdr::sweep
