// `tbdrsim sweep` and `sweep-merge`: expands configurations, validates them all, simulates the
// unfinished ones on N workers, writes one part per configuration and rebuilds results.csv/json from the parts.
#include "tools/lib/sweep.h"


#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "frontend/import_scene.h"
#include "frontend/staged_file.h"
#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/input_file.h"
#include "models/json_duplicates.h"
#include "models/registry.h"
#include "sim/huge_pages.h"
#include "sim/memory_estimate.h"
#include "sim/pipeline.h"
#include "tools/lib/html_report.h"
#include "tools/lib/report.h"

namespace tbdr::sweep {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr int k_version = 2;  // 2: parts carry their hashes
// Configurations of one sweep, checked before any is built (tools/doc/cli.md "Limits of input files"): each
// is resolved and kept in memory (its whole parameter set and its line of sweep.json).
constexpr size_t k_max_configurations = 1'000'000;

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

// Each row's assignments ("KEY=VALUE", in column order); an empty cell sets nothing.
std::vector<std::vector<std::string>> read_grid(const std::string& file) {
  // A regular file of bounded size (a FIFO or /dev/zero is refused before reading).
  const std::string text = read_input_file(file, InputLimits::kTextBytes, file);
  const std::string ext = fs::path(file).extension().string();
  std::vector<std::vector<std::string>> rows;
  if (ext == ".csv") {
    std::istringstream in(text);
    std::string line;
    std::vector<std::string> header;
    size_t line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      const std::string where = file + ":" + std::to_string(line_number);
      if (trim(line).empty() || trim(line)[0] == '#') continue;
      std::vector<std::string> cells = csv_cells(line, where);
      if (header.empty()) {
        std::set<std::string> seen;
        for (const std::string& key : cells) {
          check_key(key, where);
          if (!seen.insert(key).second) throw InputError(where, "column " + key + " given twice (only the last would apply)");
        }
        header = std::move(cells);
        continue;
      }
      if (cells.size() != header.size())
        throw InputError(where, "expected " + std::to_string(header.size()) + " cells (one per header column), found " +
                                    std::to_string(cells.size()));
      std::vector<std::string> row;
      for (size_t c = 0; c < cells.size(); ++c)
        if (!cells[c].empty()) row.push_back(header[c] + "=" + cells[c]);
      rows.push_back(std::move(row));
      if (rows.size() > k_max_configurations) throw InputError(where, too_many_configurations());
    }
    if (header.empty()) throw InputError(file, "no header row (the column names KIND, KIND.PARAM or tile)");
  } else if (ext == ".json") {
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

models::Configuration make_configuration(const std::string& preset, const std::vector<std::string>& assignments) {
  models::Configuration config = models::Configuration::from_preset(preset);
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
void set_columns(const nlohmann::json& resolved, ojson& row) {
  for (const auto& [kind, entry] : resolved.items()) {
    row["set." + kind] = entry.at("impl");
    for (const auto& [param, value] : entry.at("params").items()) row["set." + kind + "." + param] = value;
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

// ---- results ----------------------------------------------------------------------------------

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos && (s.empty() || (s.front() != ' ' && s.back() != ' '))) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_cell(const ojson& v) {
  if (v.is_string()) return csv_quote(v.get<std::string>());
  if (v.is_null()) return "";
  return v.dump();  // integers as integers, doubles in nlohmann's shortest round-trip form
}

// The union of the rows' keys: the identifying columns first (`fixed`, then set.*, then `after_set`),
// then every other key in order of first appearance (rows are sorted, so the order is deterministic).
std::vector<std::string> column_order(const std::vector<ojson>& rows, const std::vector<std::string>& fixed,
                                      const std::vector<std::string>& set_columns, const std::vector<std::string>& after_set) {
  std::vector<std::string> columns = fixed;
  columns.insert(columns.end(), set_columns.begin(), set_columns.end());
  columns.insert(columns.end(), after_set.begin(), after_set.end());
  std::unordered_set<std::string> seen(columns.begin(), columns.end());
  for (const ojson& row : rows)
    for (const auto& [key, value] : row.items())
      if (seen.insert(key).second) columns.push_back(key);
  return columns;
}

std::vector<std::string> set_column_order(const std::vector<ojson>& rows) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const ojson& row : rows)
    for (const auto& [key, value] : row.items())
      if (key.rfind("set.", 0) == 0 && seen.insert(key).second) out.push_back(key);
  return out;
}

std::string csv_text(const std::vector<std::string>& columns, const std::vector<ojson>& rows) {
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) {
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict, GCC bug 105329) on "literal" + string&&.
    if (c) out += ',';
    out += csv_quote(columns[c]);
  }
  out += "\n";
  for (const ojson& row : rows) {
    std::unordered_map<std::string, const ojson*> cells;
    for (const auto& [key, value] : row.items()) cells.emplace(key, &value);
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) out += ',';
      auto it = cells.find(columns[c]);
      if (it != cells.end()) out += csv_cell(*it->second);
    }
    out += "\n";
  }
  return out;
}

// {"format", "version", "columns", "rows": [ one object per line, keys in column order ]}.
std::string json_text(const std::vector<std::string>& columns, const std::vector<ojson>& rows) {
  std::string out = "{\"format\": \"tbdrsim-sweep-results\", \"version\": " + std::to_string(k_version) +
                    ",\n \"columns\": " + ojson(columns).dump() + ",\n \"rows\": [";
  for (size_t r = 0; r < rows.size(); ++r) {
    std::unordered_map<std::string, const ojson*> cells;
    for (const auto& [key, value] : rows[r].items()) cells.emplace(key, &value);
    ojson ordered = ojson::object();
    for (const std::string& c : columns) {
      auto it = cells.find(c);
      if (it != cells.end()) ordered[c] = *it->second;
    }
    out += r ? ",\n  " : "\n  ";
    out += ordered.dump();
  }
  out += rows.empty() ? "]}\n" : "\n ]}\n";
  return out;
}

// A finished part's rows and attachment rows; a part edited or damaged by hand after part_done()
// accepted it is bad input naming the file, not an exception from inside nlohmann.
struct PartRows {
  ojson rows, attachments;
};
PartRows read_part(const fs::path& path) {
  const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
  check_json_depth(text, path.string());
  try {
    const ojson part = ojson::parse(text);
    PartRows out{part.at("rows"), part.at("attachments")};
    if (!out.rows.is_array() || !out.attachments.is_array()) throw std::runtime_error("rows are not arrays");
    return out;
  } catch (const std::exception& e) {
    throw InputError(path.string(), "a damaged sweep part (delete it and run the sweep again to redo its configuration): " +
                                        without_json_exception_tags(e.what()));
  }
}

// Rebuilds results.csv, results.json and attachments.csv from the parts of `indices`, in index order.
size_t write_results(const fs::path& dir, const std::vector<size_t>& indices) {
  std::vector<ojson> rows, attachment_rows;
  for (size_t index : indices) {
    const PartRows part = read_part(dir / "parts" / part_name(index));
    for (const ojson& r : part.rows) rows.push_back(r);
    for (const ojson& r : part.attachments) attachment_rows.push_back(r);
  }
  const std::vector<std::string> set_cols = set_column_order(rows);
  const std::vector<std::string> columns =
      column_order(rows, {"trace", "config_index"}, set_cols, {"row", "frame", "pass", "error", "name", "type"});
  const std::vector<std::string> attachment_columns =
      column_order(attachment_rows, {"trace", "config_index"}, set_cols, {"frame", "pass", "name", "attachment", "image"});
  write_atomically(dir / "results.csv", csv_text(columns, rows));
  write_atomically(dir / "results.json", json_text(columns, rows));
  write_atomically(dir / "attachments.csv", csv_text(attachment_columns, attachment_rows));
  write_atomically(dir / "report.html", sweep_html(set_cols, rows));
  return rows.size();
}

// ---- the sweep folder ---------------------------------------------------------------------------

std::string first_difference(const std::string& a_text, const std::string& b_text) {
  try {
    const ojson a = ojson::parse(a_text), b = ojson::parse(b_text);
    for (const char* key : {"format", "version", "preset", "traces", "models_fnv1a64", "configurations", "shard"})
      if (a.value(key, ojson()) != b.value(key, ojson())) return key;
  } catch (const std::exception&) {
    return "sweep.json is not valid JSON";
  }
  return "sweep.json";
}

// sweep.json: the sweep's fingerprint, one configuration per line (readable, diff-friendly).
std::string fingerprint_text(const ojson& fingerprint) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : fingerprint.items()) {
    out += first ? "\n " : ",\n ";
    first = false;
    out += ojson(key).dump() + ": ";
    if (key == "configurations" && value.is_array()) {
      out += "[";
      for (size_t i = 0; i < value.size(); ++i) {
        out += i ? ",\n  " : "\n  ";
        out += value[i].dump();
      }
      out += value.empty() ? "]" : "\n ]";
    } else {
      out += value.dump();
    }
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
      throw InputError(dir.string(), "holds a different sweep (its sweep.json differs in '" +
                                         first_difference(existing, fingerprint) +
                                         "'); resume with the same arguments, or choose another --out");
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

// What a valid part holds (tools/doc/sweeps.md): the hash of its sweep's sweep.json (shard 1/1), its
// configuration's assignments and hash, the hashes of the input files its rows were simulated from,
// and the hash of its rows. A part failing any check is simulated again on resume, named by sweep-merge.
struct PartExpectation {
  size_t index = 0;
  std::string sweep_hash;
  ojson assignments;
  std::string configuration_hash;  // empty: not checked (sweep-merge cannot resolve the preset)
  const ojson* inputs = nullptr;   // null: not checked
  size_t traces = 0;               // total rows expected, one per trace
};

std::string rows_hash(const ojson& rows, const ojson& attachments) {
  return hex64(fnv1a64(rows.dump() + "\n" + attachments.dump()));
}

// The first input file whose path or hash differs between two "inputs" arrays.
std::string changed_input(const ojson& a, const ojson& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
    const ojson& entry = i < a.size() ? a[i] : b[i];
    return entry.is_object() ? entry.value("path", std::string("?")) : std::string("?");
  }
  return "?";
}

bool rows_of_configuration(const ojson& rows, size_t index) {
  for (const ojson& r : rows)
    if (!r.is_object() || r.value("config_index", ojson()) != ojson(index)) return false;
  return true;
}

std::string rows_problem(const ojson& part, const PartExpectation& expect) {
  const ojson& rows = part.at("rows");
  const ojson& attachments = part.at("attachments");
  if (!rows.is_array() || !attachments.is_array()) return "rows are not arrays";
  if (part.at("rows_fnv1a64") != rows_hash(rows, attachments)) return "its rows were edited or damaged (rows_fnv1a64 differs)";
  if (!rows_of_configuration(rows, expect.index) || !rows_of_configuration(attachments, expect.index))
    return "a row of another configuration";
  const auto totals = std::count_if(rows.begin(), rows.end(), [](const ojson& r) { return r.value("row", "") == "total"; });
  if (size_t(totals) != expect.traces) return "expected one total row per trace (" + std::to_string(expect.traces) + ")";
  return "";
}

// Why `part` is not the valid part `expect` describes; empty when it is. Throws on a wrong JSON type.
std::string part_problem(const ojson& part, const PartExpectation& expect) {
  if (!part.is_object() || part.value("format", "") != "tbdrsim-sweep-part") return "not a sweep part";
  // Compared as JSON, never converted: value<int>() of a float past int's range is undefined (fuzz_sweep_part,
  // tests/data/fuzz_regressions/part-version-float-overflow.json).
  if (!part.contains("version") || part.at("version") != ojson(k_version)) return "a part of another version of the sweep format";
  if (part.at("index") != ojson(expect.index)) return "not the part of configuration " + std::to_string(expect.index);
  if (part.at("sweep_fnv1a64") != expect.sweep_hash) return "a part of another sweep (sweep_fnv1a64 differs)";
  if (part.at("assignments") != expect.assignments) return "its assignments differ from sweep.json's";
  const auto is_input = [](const ojson& i) { return i.is_object() && i.size() == 2 && i.at("path").is_string() && i.at("fnv1a64").is_string(); };
  if (!part.at("inputs").is_array() || !std::all_of(part["inputs"].begin(), part["inputs"].end(), is_input))
    return "inputs is not an array of {path, fnv1a64}";
  if (!expect.configuration_hash.empty() && part.at("configuration_fnv1a64") != expect.configuration_hash)
    return "its configuration differs (configuration_fnv1a64)";
  if (std::string rows = rows_problem(part, expect); !rows.empty()) return rows;
  if (expect.inputs && part.at("inputs") != *expect.inputs)
    return "input file " + changed_input(part.at("inputs"), *expect.inputs) + " differs (inputs' fnv1a64)";
  return "";
}

// The part file at `path` parsed; `problem` set (and null returned) when it is not a valid part.
ojson read_checked_part(const fs::path& path, const PartExpectation& expect, std::string& problem) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  problem = !fs::exists(status) ? "missing" : !fs::is_regular_file(status) ? "not a regular file (a symlink?)" : "";
  if (!problem.empty()) return ojson();
  try {
    const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
    check_json_depth(text, path.string());
    ojson part = ojson::parse(text);
    problem = part_problem(part, expect);
    return problem.empty() ? part : ojson();
  } catch (const InputError& e) {
    problem = e.expected();
    return ojson();
  } catch (const std::exception& e) {
    problem = without_json_exception_tags(e.what());
    return ojson();
  }
}

// ---- progress -----------------------------------------------------------------------------------

std::string clock_text(double seconds) {
  const long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// Progress on stderr (not with --quiet). On a terminal: one line redrawn in place. Otherwise (a Slurm
// or CI log, which shows a redrawn line only when the job ends): a plain line at the start, then
// whenever another 5 % of the configurations is done or 10 s have passed, and at the end.
class Progress {
 public:
  Progress(bool enabled, bool terminal, size_t total, size_t resumed)
      : m_enabled(enabled), m_terminal(terminal), m_total(total), m_resumed(resumed),
        m_start(std::chrono::steady_clock::now()), m_last_line(m_start) {}
  void draw(size_t done, size_t failed) {
    if (!m_enabled) return;
    const auto now = std::chrono::steady_clock::now();
    if (m_terminal) {
      std::cerr << "\r" << line(done, failed, now) << "\x1b[K" << std::flush;
      return;
    }
    const size_t step = m_total ? done * 20 / m_total : 20;  // 5 % steps
    if (m_lines > 0 && step == m_last_step && now - m_last_line < std::chrono::seconds(10)) return;
    std::cerr << line(done, failed, now) << "\n" << std::flush;
    ++m_lines;
    m_last_step = step;
    m_last_line = now;
  }
  void finish() {
    if (m_enabled && m_terminal) std::cerr << "\n" << std::flush;
  }

 private:
  std::string line(size_t done, size_t failed, std::chrono::steady_clock::time_point now) const {
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const size_t simulated = done - m_resumed, left = m_total - done;
    std::string text = "sweep: " + std::to_string(done) + "/" + std::to_string(m_total) + " configurations";
    std::string notes = m_terminal ? "" : std::to_string(m_total ? done * 100 / m_total : 100) + " %";
    if (m_resumed) notes += (notes.empty() ? "" : ", ") + std::to_string(m_resumed) + " resumed";
    if (!notes.empty()) text += " (" + notes + ")";
    text += ", " + std::to_string(failed) + " failed, elapsed " + clock_text(elapsed) + ", ETA ";
    return text + (simulated ? clock_text(elapsed / double(simulated) * double(left)) : std::string("?"));
  }

  bool m_enabled, m_terminal;
  size_t m_total, m_resumed;
  std::chrono::steady_clock::time_point m_start, m_last_line;
  size_t m_lines = 0, m_last_step = 0;
};

// Wall time of each simulated configuration (one worker each), for the closing summary.
struct ConfigurationTimes {
  double total_seconds = 0, slowest_seconds = 0;
  size_t count = 0, slowest_index = 0;
  void add(size_t index, double seconds) {
    total_seconds += seconds;
    ++count;
    if (seconds > slowest_seconds) slowest_seconds = seconds, slowest_index = index;
  }
  std::string summary(double wall_seconds, unsigned workers) const {
    if (count == 0) return "sweep: nothing left to simulate\n";
    char text[256];
    std::snprintf(text, sizeof text,
                  "sweep: %zu configuration%s simulated in %s on %u worker%s, %.2f s per configuration "
                  "(slowest: configuration %zu, %.2f s)\n",
                  count, count == 1 ? "" : "s", clock_text(wall_seconds).c_str(), workers, workers == 1 ? "" : "s",
                  total_seconds / double(count), slowest_index, slowest_seconds);
    return text;
  }
};

// A folder for imported scenes (glTF/OBJ -> trace), removed when the sweep ends.
struct ImportFolder {
  fs::path path;
  ImportFolder() : path(make_temporary_folder("tbdrsim-sweep")) {}  // named by PID: a later start removes it
  ImportFolder(const ImportFolder&) = delete;
  ImportFolder& operator=(const ImportFolder&) = delete;
  ~ImportFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct Prepared {
  std::unique_ptr<ImportFolder> imports;
  std::vector<std::vector<std::string>> configurations;
  std::vector<nlohmann::json> resolved;
  std::vector<Trace> traces;
  std::string fingerprint;  // sweep.json
  std::string sweep_hash;   // of sweep.json with shard 1/1: the same in every shard's parts
  ojson inputs;             // [{path, fnv1a64}] of every input file read (imports' outputs left out)
};

// ---- simulate once, cost many ------------------------------------------------------------------

// The configurations grouped by functional configuration (models::functional_part): for each group
// and trace the first run simulates and keeps its functional record, the others re-cost it
// (sim/pipeline.h cost_recorded: the same report, byte for byte). Records are held while their
// group has configurations left, within the budget: one that does not fit is dropped, and its
// group's later configurations simulate that trace again. Thread-safe: a group's first run of a
// trace holds that trace's entry while it simulates; re-costings only read the record.
class Reuse {
 public:
  Reuse(const std::vector<nlohmann::json>& resolved, const std::vector<size_t>& pending, size_t traces,
        uint64_t budget_bytes)
      : m_group_of(resolved.size(), 0), m_budget(budget_bytes) {
    std::map<std::string, size_t> groups;  // functional part's text -> group
    for (size_t index : pending) {
      const std::string key = models::functional_part(resolved[index]).dump();
      const auto [it, added] = groups.emplace(key, m_groups.size());
      if (added) m_groups.emplace_back().entries.resize(traces);
      for (std::unique_ptr<Entry>& e : m_groups[it->second].entries)
        if (!e) e = std::make_unique<Entry>();
      m_group_of[index] = it->second;
      ++m_groups[it->second].remaining;
    }
  }

  // Group by group, each in index order, so few groups hold records at once.
  void order(std::vector<size_t>& pending) const {
    std::stable_sort(pending.begin(), pending.end(), [&](size_t a, size_t b) { return m_group_of[a] < m_group_of[b]; });
  }

  RunStats stats(size_t index, size_t t, const Trace& trace, const models::ModelSet& models) {
    Entry& e = *m_groups[m_group_of[index]].entries[t];
    std::unique_lock<std::mutex> lock(e.mutex);
    if (e.state == Entry::State::unmade) return simulate_and_keep(e, trace, models);
    const bool kept = e.state == Entry::State::kept;
    lock.unlock();  // a kept record stays until this configuration is finished()
    count(kept ? &Reuse::m_costed : &Reuse::m_simulated);
    return kept ? cost_recorded(trace, e.record, models) : simulate(trace, models, one_thread(), nullptr);
  }

  // A configuration's rows are written; its group's last one frees the group's records.
  void finished(size_t index) {
    Group& g = m_groups[m_group_of[index]];
    std::lock_guard<std::mutex> lock(m_mutex);
    if (--g.remaining > 0) return;
    for (std::unique_ptr<Entry>& e : g.entries) {
      if (e->state == Entry::State::kept) m_held -= e->bytes;
      e->record = FunctionalRecord{};
    }
  }

  std::string summary() const {
    auto mib = [](uint64_t bytes) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
      return std::string(buf);
    };
    auto count_of = [](size_t n, const std::string& word) {
      return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
    };
    return "reuse: " + count_of(m_groups.size(), "functional configuration") + ", " +
           count_of(m_simulated, "simulation") + ", " + count_of(m_costed, "re-costing") + " from records (" +
           std::to_string(m_dropped) + " over the budget); records held at most " + mib(m_peak) + " MiB of the " +
           mib(m_budget) + " MiB budget\n";
  }

 private:
  struct Entry {
    enum class State { unmade, kept, dropped, failed };
    std::mutex mutex;
    State state = State::unmade;
    FunctionalRecord record;
    uint64_t bytes = 0;
  };
  struct Group {
    std::vector<std::unique_ptr<Entry>> entries;  // per trace
    size_t remaining = 0;                         // configurations not finished
  };

  static SimOptions one_thread() {
    SimOptions options;
    options.threads = 1;  // one thread per configuration: the sweep's workers use the cores
    return options;
  }

  void count(size_t Reuse::*counter) {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++(this->*counter);
  }

  // The group's first run of the trace (its entry locked): simulates, keeping the record if it fits.
  RunStats simulate_and_keep(Entry& e, const Trace& trace, const models::ModelSet& models) {
    e.state = Entry::State::failed;  // until the record is made: the others simulate (and fail) alone
    count(&Reuse::m_simulated);
    RunStats out;
    try {
      out = simulate(trace, models, one_thread(), nullptr, &e.record);
    } catch (...) {
      e.record = FunctionalRecord{};
      throw;
    }
    e.bytes = e.record.memory_bytes();
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_held + e.bytes <= m_budget) {
      e.state = Entry::State::kept;
      m_held += e.bytes;
      m_peak = std::max(m_peak, m_held);
    } else {
      e.state = Entry::State::dropped;
      e.record = FunctionalRecord{};
      ++m_dropped;
    }
    return out;
  }

  std::vector<size_t> m_group_of;  // per configuration index
  std::vector<Group> m_groups;
  uint64_t m_budget;
  std::mutex m_mutex;  // the counters and m_held
  uint64_t m_held = 0, m_peak = 0;
  size_t m_simulated = 0, m_costed = 0, m_dropped = 0;
};

ojson simulate_configuration(size_t index, const SweepOptions& o, const Prepared& p, Reuse* reuse, size_t& failures) {
  ojson part = ojson::object();
  part["format"] = "tbdrsim-sweep-part";
  part["version"] = k_version;
  part["index"] = index;
  part["assignments"] = p.configurations[index];
  part["sweep_fnv1a64"] = p.sweep_hash;
  part["configuration_fnv1a64"] = hex64(fnv1a64(p.resolved[index].dump()));
  part["inputs"] = p.inputs;
  part["rows_fnv1a64"] = "";  // set once the rows are made; here for the key order
  part["rows"] = ojson::array();
  part["attachments"] = ojson::array();
  const models::Configuration config = make_configuration(o.preset, p.configurations[index]);
  const models::ModelSet models = models::build_models(config);
  for (size_t t = 0; t < p.traces.size(); ++t) {
    const Trace& trace = p.traces[t];
    ojson base = ojson::object();
    base["trace"] = o.traces[t];
    base["config_index"] = index;
    set_columns(models.resolved, base);
    std::vector<ojson> rows, attachments;
    try {
      SimOptions options;
      options.threads = 1;  // one thread per configuration: the sweep's workers use the cores
      const RunStats stats = reuse ? reuse->stats(index, t, trace, models) : simulate(trace, models, options, nullptr);
      const ReportContext context{trace.path, trace.name, config.preset_name(), models.resolved, trace.warnings};
      const nlohmann::json report = report_json(context, stats);
      double frame_cycles = 0, frame_ms = 0;
      for (const nlohmann::json& frame : report.at("frames")) {
        const size_t f = frame.at("index").get<size_t>();
        frame_cycles += frame.value("frame_cycles", 0.0);
        frame_ms += frame.value("frame_ms", 0.0);
        const nlohmann::json& passes = frame.at("passes");
        for (size_t pi = 0; pi < passes.size(); ++pi) {
          ojson row = base;
          row["row"] = "pass";
          row["frame"] = f;
          row["pass"] = pi;
          nlohmann::json pass = passes[pi];
          if (pass.contains("attachments") && pass["attachments"].is_array()) {
            const nlohmann::json& records = pass["attachments"];
            for (size_t a = 0; a < records.size(); ++a) {
              ojson arow = base;
              arow["frame"] = f;
              arow["pass"] = pi;
              arow["name"] = pass.value("name", "");  // the pass's name, as in results.csv
              arow["attachment"] = a;
              flatten(records[a], "", arow);
              attachments.push_back(std::move(arow));
            }
            pass.erase("attachments");
          }
          flatten(pass, "", row);
          rows.push_back(std::move(row));
        }
      }
      ojson total = base;
      total["row"] = "total";
      flatten(report.at("totals"), "", total);
      total["frame_cycles"] = frame_cycles;
      total["frame_ms"] = frame_ms;
      rows.push_back(std::move(total));
    } catch (const std::exception& e) {
      ++failures;
      rows.clear();
      attachments.clear();
      ojson row = base;
      row["row"] = "total";
      row["error"] = e.what();
      rows.push_back(std::move(row));
    }
    for (ojson& r : rows) part["rows"].push_back(std::move(r));
    for (ojson& r : attachments) part["attachments"].push_back(std::move(r));
  }
  part["rows_fnv1a64"] = rows_hash(part["rows"], part["attachments"]);
  return part;
}

}  // namespace

std::string report_csv(const nlohmann::json& report) {
  std::vector<ojson> rows;
  for (const nlohmann::json& frame : report.at("frames")) {
    const nlohmann::json& passes = frame.at("passes");
    for (size_t pi = 0; pi < passes.size(); ++pi) {
      ojson row = ojson::object();
      row["frame"] = frame.at("index");
      row["pass"] = pi;
      nlohmann::json pass = passes[pi];
      pass.erase("attachments");  // a list per pass: a sweep's attachments.csv, not a column set
      flatten(pass, "", row);
      rows.push_back(std::move(row));
    }
  }
  return csv_text(column_order(rows, {"frame", "pass", "name", "type"}, {}, {}), rows);
}

std::vector<std::string> csv_cells(const std::string& line, const std::string& where) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cells.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else cells.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  if (quoted) throw InputError(where, "unterminated quoted cell");
  for (std::string& c : cells) c = trim(c);
  return cells;
}


void flatten(const nlohmann::json& value, const std::string& prefix, nlohmann::ordered_json& out) {
  auto key = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
  if (value.is_object()) {
    for (const auto& [k, v] : value.items()) flatten(v, key(k), out);
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) flatten(value[i], key(std::to_string(i)), out);
  } else if (!value.is_null()) {
    out[prefix] = value;
  }
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

// Every trace read (scenes imported) and every configuration resolved, hashed into the fingerprint
// (sweep.json) and the inputs each part carries: all that can reject the input, before any simulation.
Prepared prepare(const SweepOptions& o, unsigned shard, unsigned shards) {
  record_input_digests();  // every file read from here on: presets, grid, traces, sidecars, textures, scenes
  Prepared p;
  p.configurations = expand_configurations(o);
  std::string models_text;
  for (size_t i = 0; i < p.configurations.size(); ++i) {
    try {
      p.resolved.push_back(models::build_models(make_configuration(o.preset, p.configurations[i])).resolved);
    } catch (const InputError& e) {
      throw InputError(label(i, p.configurations[i]), e.what());
    }
    models_text += p.resolved.back().dump() + "\n";
  }
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
    const std::vector<uint8_t> bytes = read_input_bytes(path, InputLimits::kBinaryBytes, path);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    traces.push_back({{"path", path}, {"fnv1a64", hex64(fnv1a64(text))}});
  }
  keep_freed_heap_memory();  // the configurations reuse what the last one freed (sim/huge_pages.h)
  p.inputs = ojson::array();
  for (const InputDigest& d : input_digests())  // an import's own outputs vary by folder: left out
    if (!p.imports || d.path.rfind(p.imports->path.string(), 0) != 0)
      p.inputs.push_back({{"path", d.path}, {"fnv1a64", hex64(d.fnv1a64)}});
  ojson fingerprint = ojson::object();
  fingerprint["format"] = "tbdrsim-sweep";
  fingerprint["version"] = k_version;
  fingerprint["preset"] = o.preset;
  fingerprint["traces"] = traces;
  fingerprint["models_fnv1a64"] = hex64(fnv1a64(models_text));
  fingerprint["shard"] = "1/1";
  fingerprint["configurations"] = ojson::array();
  for (size_t i = 0; i < p.configurations.size(); ++i)
    fingerprint["configurations"].push_back({{"index", i}, {"assignments", p.configurations[i]}});
  p.sweep_hash = hex64(fnv1a64(fingerprint_text(fingerprint)));
  fingerprint["shard"] = std::to_string(shard) + "/" + std::to_string(shards);
  p.fingerprint = fingerprint_text(fingerprint);
  return p;
}

// This shard's configurations (`mine`) and those without a valid part (`pending`): a part damaged,
// edited, foreign, or simulated from input files that changed since is simulated again.
void find_pending(const fs::path& dir, const Prepared& p, std::pair<unsigned, unsigned> shard, bool quiet,
                  std::vector<size_t>& mine, std::vector<size_t>& pending) {
  for (size_t i = shard.first - 1; i < p.configurations.size(); i += shard.second) {
    mine.push_back(i);
    PartExpectation expect{i, p.sweep_hash, p.configurations[i], hex64(fnv1a64(p.resolved[i].dump())), &p.inputs,
                           p.traces.size()};
    std::string problem;
    const fs::path path = dir / "parts" / part_name(i);
    (void)read_checked_part(path, expect, problem);
    if (problem.empty()) continue;
    pending.push_back(i);
    if (problem != "missing" && !quiet)
      std::cerr << "sweep: " << path.string() << ": " << problem << "; simulating configuration " << i << " again\n";
  }
}

// The sweep's memory before any folder is written (tools/doc/cli.md "Memory budget"): the largest estimate of
// one configuration on one trace (one thread each) x the workers, plus the record budget when reusing.
// Configurations differing only in parameters the estimate does not read are estimated once.
void check_sweep_memory(const SweepOptions& o, const Prepared& p) {
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  SimOptions one_thread;
  one_thread.threads = 1;
  MemoryEstimate worst;
  std::set<std::string> seen;
  for (const nlohmann::json& resolved : p.resolved) {
    const std::string key = resolved.value("tiling", nlohmann::json()).dump() + resolved.value("texture", nlohmann::json()).dump() +
                            resolved.value("cores", nlohmann::json()).dump();
    if (!seen.insert(key).second) continue;
    for (const Trace& trace : p.traces) {
      MemoryEstimate estimate = estimate_memory(trace, resolved, one_thread);
      if (worst.terms.empty() || estimate.total() > worst.total()) worst = std::move(estimate);
    }
  }
  const uint64_t workers = std::min<uint64_t>(jobs, std::max<size_t>(1, p.configurations.size()));
  for (MemoryTerm& term : worst.terms) {
    term.bytes = term.bytes > ~uint64_t(0) / workers ? ~uint64_t(0) : term.bytes * workers;
    term.cause = "-j " + std::to_string(workers) + " x " + term.cause;
  }
  if (o.reuse)
    worst.terms.push_back({"functional records", "--record-budget " + std::to_string(o.record_budget_mib) + " MiB",
                           o.record_budget_mib << 20});
  check_memory_budget(worst, o.max_memory, "sweep");
}

size_t run_sweep(const SweepOptions& o) {
  if (o.out.empty()) throw InputError("sweep", "--out DIR is required");
  if (o.traces.empty()) throw InputError("sweep", "no trace given");
  const auto [shard, shards] = parse_shard(o.shard);
  const Prepared p = prepare(o, shard, shards);
  check_sweep_memory(o, p);

  const fs::path dir(o.out);
  prepare_folder(dir, p.fingerprint);
  remove_stale_temporaries(dir);
  remove_stale_temporaries(dir / "parts");

  std::vector<size_t> mine, pending;
  find_pending(dir, p, {shard, shards}, o.quiet, mine, pending);
  size_t resumed = mine.size() - pending.size();
  std::unique_ptr<Reuse> reuse;
  if (o.reuse) {
    reuse = std::make_unique<Reuse>(p.resolved, pending, p.traces.size(), o.record_budget_mib << 20);
    reuse->order(pending);
  }

  unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = unsigned(std::min<size_t>(jobs, pending.size()));
  Progress progress(!o.quiet, ::isatty(STDERR_FILENO), mine.size(), resumed);
  ConfigurationTimes times;
  const auto sweep_start = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::condition_variable changed;
  size_t done = resumed, failed = 0, workers_left = jobs;
  std::exception_ptr fatal;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (;;) {
      const size_t k = next++;
      if (k >= pending.size()) break;
      const size_t index = pending[k];
      try {
        size_t failures = 0;
        const auto start = std::chrono::steady_clock::now();
        const ojson part = simulate_configuration(index, o, p, reuse.get(), failures);
        write_atomically(dir / "parts" / part_name(index), part.dump() + "\n");
        if (reuse) reuse->finished(index);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::lock_guard<std::mutex> lock(mutex);
        times.add(index, seconds);
        ++done;
        failed += failures ? 1 : 0;
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!fatal) fatal = std::current_exception();
        next = pending.size();
      }
      changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    --workers_left;
    changed.notify_all();
  };
  // The opening line before any worker runs: drawn first in the loop below, it raced the first
  // configurations, which (re-costed from a record) can finish before the loop takes the mutex.
  progress.draw(done, failed);
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(worker);
  {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      progress.draw(done, failed);
      if (workers_left == 0) break;
      changed.wait_for(lock, std::chrono::seconds(1));
    }
  }
  for (std::thread& t : threads) t.join();
  progress.finish();
  if (fatal) std::rethrow_exception(fatal);

  const size_t rows = write_results(dir, mine);
  // Failures of resumed parts count too: the results are the whole shard's.
  size_t failed_runs = 0;
  for (size_t index : mine)
    for (const ojson& r : read_part(dir / "parts" / part_name(index)).rows)
      if (r.is_object() && r.contains("error")) ++failed_runs;
  if (!o.quiet)
    std::cout << "sweep: " << mine.size() << " configuration" << (mine.size() == 1 ? "" : "s") << " x " << o.traces.size()
              << " trace" << (o.traces.size() == 1 ? "" : "s") << " (" << resumed << " resumed, " << failed_runs
              << " failed runs), " << rows << " rows in " << (dir / "results.csv").string() << ", results.json, attachments.csv\n"
              << times.summary(std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count(), jobs);
  if (!o.quiet && reuse) std::cout << reuse->summary();
  return failed_runs;
}

// A shard folder's sweep.json with its shard set to 1/1 (as every shard's parts hash it).
ojson read_fingerprint(const fs::path& dir, const std::string& given) {
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
  fp["shard"] = "1/1";
  return fp;
}

// The index a part file's name gives (000042.json -> 42), or SIZE_MAX when it names none.
size_t index_of_part_name(const std::string& name) {
  const std::string stem = name.substr(0, name.size() - 5);
  if (stem.empty() || stem.size() > 12 || !std::all_of(stem.begin(), stem.end(), ::isdigit)) return SIZE_MAX;
  const size_t index = std::stoul(stem);
  return part_name(index) == name ? index : SIZE_MAX;
}

// The parts of one shard folder, each checked against the sweep (`first`) and against the input files
// of the first part read (`reference`): a part failing either is bad input naming it.
void collect_parts(const fs::path& dir, const ojson& first, std::map<size_t, std::pair<std::string, std::string>>& parts,
                   ojson& reference, std::string& reference_file) {
  std::error_code ec;
  if (!fs::is_directory(dir / "parts", ec)) return;
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "parts")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const std::string sweep_hash = hex64(fnv1a64(fingerprint_text(first)));
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    if (name.empty() || name[0] == '.' || file.extension() != ".json") continue;
    const size_t index = index_of_part_name(name);
    if (index >= first.at("configurations").size())
      throw InputError(file.string(), "a part of no configuration of this sweep");
    const PartExpectation expect{index, sweep_hash, first["configurations"][index]["assignments"], "",
                                 reference.is_null() ? nullptr : &reference, first["traces"].size()};
    std::string problem;
    const ojson part = read_checked_part(file, expect, problem);
    if (!problem.empty())
      throw InputError(file.string(), "not a valid part of this sweep: " + problem +
                                          (problem.rfind("input file", 0) == 0 ? " from " + reference_file : "") +
                                          "; run its shard again to redo it");
    if (reference.is_null()) reference = part.at("inputs"), reference_file = file.string();
    const std::string text = read_input_file(file, InputLimits::kTextBytes, file.string());
    auto [it, inserted] = parts.emplace(index, std::make_pair(text, file.string()));
    if (!inserted && it->second.first != text)
      throw InputError(file.string(), "differs from " + it->second.second + " (the same configuration)");
  }
}

void merge_sweeps(const std::vector<std::string>& dirs, const std::string& out, bool quiet) {
  if (dirs.empty()) throw InputError("sweep-merge", "no shard folder given");
  if (out.empty()) throw InputError("sweep-merge", "--out DIR is required");
  ojson first, reference;
  std::string first_text, reference_file;
  std::map<size_t, std::pair<std::string, std::string>> parts;  // index -> (text, file)
  for (size_t d = 0; d < dirs.size(); ++d) {
    const ojson fp = read_fingerprint(dirs[d], dirs[d]);
    if (d == 0) {
      first = fp;
      first_text = fingerprint_text(fp);
    } else if (fp != first) {
      throw InputError(dirs[d], "is a shard of a different sweep than " + dirs[0] + " ('" +
                                    first_difference(fp.dump(), first.dump()) + "' differs)");
    }
    collect_parts(dirs[d], first, parts, reference, reference_file);
  }
  const size_t count = first.at("configurations").size();
  std::vector<size_t> missing;
  for (size_t i = 0; i < count; ++i)
    if (!parts.count(i)) missing.push_back(i);
  if (!missing.empty())
    throw InputError("sweep-merge", std::to_string(missing.size()) + " of " + std::to_string(count) +
                                        " configurations have no part (first: configuration " +
                                        std::to_string(missing.front()) + ", parts/" + part_name(missing.front()) +
                                        " in no shard); finish every shard first");
  const fs::path dir(out);
  prepare_folder(dir, first_text);
  remove_stale_temporaries(dir);
  remove_stale_temporaries(dir / "parts");
  std::vector<size_t> all;
  for (const auto& [index, part] : parts) {
    const fs::path target = dir / "parts" / part_name(index);
    std::string existing;
    if (!read_text(target, existing) || existing != part.first) write_atomically(target, part.first);
    all.push_back(index);
  }
  const size_t rows = write_results(dir, all);
  if (!quiet)
    std::cout << "sweep-merge: " << dirs.size() << " folder" << (dirs.size() == 1 ? "" : "s") << ", " << count
              << " configurations, " << rows << " rows in " << (dir / "results.csv").string() << "\n";
}

}  // namespace tbdr::sweep
