// Sweep results: results.csv, results.json and attachments.csv rebuilt from the parts, in a fixed
// column order; a report's flattened figures as one CSV row (`tbdrsim run --csv`).
#include "tools/commands/sweep_internal.h"

namespace tbdr::sweep {

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

// {"format", "version", "tbdrsim" (the build: tools/commands/version.h), "columns", "rows": [ one object per
// line, keys in column order ]}.
std::string json_text(const std::vector<std::string>& columns, const std::vector<ojson>& rows) {
  std::string out = "{\"format\": \"tbdrsim-sweep-results\", \"version\": " + std::to_string(k_version) +
                    ", \"tbdrsim\": " + version_json().dump() + ",\n \"columns\": " + ojson(columns).dump() + ",\n \"rows\": [";
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
ResultsWritten write_results(const fs::path& dir, const std::vector<size_t>& indices) {
  std::vector<ojson> rows, attachment_rows;
  size_t failed = 0;
  for (size_t index : indices) {
    PartRows part = read_part(dir / "parts" / part_name(index));
    for (ojson& r : part.rows) {
      if (r.is_object() && r.contains("error")) ++failed;
      rows.push_back(std::move(r));
    }
    for (ojson& r : part.attachments) attachment_rows.push_back(std::move(r));
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
  return {rows.size(), failed};
}

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

}  // namespace tbdr::sweep
