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

// The rows of each configuration of a group's part file, by index.
std::map<size_t, ConfigurationRows> read_group(const fs::path& path, LayoutCache& layouts, RowKeys& keys) {
  const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
  const auto damaged = [&path](const std::string& problem) {
    return InputError(path.string(), "a damaged sweep part (delete it and run the sweep again to redo its configurations): " + problem);
  };
  std::map<size_t, ConfigurationRows> out;
  std::string problem;
  const std::vector<std::string_view> lines = part_lines(text, problem);
  for (size_t line = 0; line < lines.size() && problem.empty(); ++line) {
    const std::string one(lines[line]);
    check_json_depth(one, path.string());
    ConfigurationRows rows;
    try {
      const ojson part = ojson::parse(one);
      problem = decode_part_rows(part, path.parent_path(), layouts, keys, rows);
      if (problem.empty()) out[part.at("index").get<size_t>()] = std::move(rows);
    } catch (const std::exception& e) {
      problem = without_json_exception_tags(e.what());
    }
    if (!problem.empty() && lines.size() > 1) problem = "line " + std::to_string(line + 1) + ": " + problem;
  }
  if (!problem.empty()) throw damaged(problem);
  return out;
}

// The rows of `index` and its attachment rows: kept from this run, else read from its group's part (each
// group file read once, its configurations' rows held in `read` until taken).
void rows_of_part(const fs::path& dir, size_t index, const PartGroups& groups, std::map<size_t, ConfigurationRows>& read,
                  LayoutCache& layouts, RowKeys& keys, KeptRows* kept, std::vector<FlatRow>& rows, std::vector<FlatRow>& attachment_rows) {
  const auto it = kept ? kept->by_index.find(index) : decltype(kept->by_index.end()){};
  ConfigurationRows part;
  if (kept && it != kept->by_index.end()) {
    part = std::move(it->second);
    kept->by_index.erase(it);
  } else {
    if (!read.count(index)) {
      const fs::path path = dir / "parts" / part_name(groups.first.at(index));
      read.merge(read_group(path, layouts, keys));
      if (!read.count(index))
        throw InputError(path.string(), "a damaged sweep part: it does not hold configuration " + std::to_string(index));
    }
    part = std::move(read[index]);
    read.erase(index);
  }
  for (FlatRow& r : part.rows) rows.push_back(std::move(r));
  for (FlatRow& r : part.attachments) attachment_rows.push_back(std::move(r));
}

// A bound on results.json's size (results.csv's is smaller): each cell's key as written, its value's text
// (a number's at most 24 characters, a string's its length, doubled for escapes) and separators. Parts
// gave it while they repeated every key; format 3's are a seventh of the results.
size_t results_reserve(const std::vector<FlatRow>& rows) {
  size_t bytes = 65536;
  for (const FlatRow& row : rows) {
    bytes += 8;
    for (const Cell& c : row)
      bytes += c.key->quoted.size() + 26 + (c.value.is_string() ? 2 * c.value.get_ref<const std::string&>().size() : 0);
  }
  return bytes;
}

// report.html reads the total rows only, and of them the columns it shows, as ordered_json objects
// (tools/commands/html_sweep.cpp).
std::vector<ojson> total_rows(RowKeys& keys, const std::vector<FlatRow>& rows) {
  const RowKey* row_key = keys.intern("row");
  std::vector<char> read(keys.size(), 2);  // per RowKey id: 2 not yet asked, else sweep_html_reads
  std::vector<ojson> out;
  for (const FlatRow& row : rows) {
    const bool total = std::any_of(row.begin(), row.end(), [&](const Cell& c) { return c.key == row_key && c.value == "total"; });
    if (!total) continue;
    ojson object = ojson::object();
    auto& cells = object.get_ref<ojson::object_t&>();  // a row's names are distinct: appended unsearched
    for (const Cell& c : row) {
      if (read[c.key->id] == 2) read[c.key->id] = sweep_html_reads(c.key->name);
      if (read[c.key->id]) cells.emplace_back(c.key->name, c.value);
    }
    out.push_back(std::move(object));
  }
  return out;
}

// Rebuilds results.csv, results.json and attachments.csv from the parts of `indices`, in index order;
// those this run wrote come from `kept` (moved out of it), the others are read from their files.
ResultsWritten write_results(const fs::path& dir, const std::vector<size_t>& indices, const PartGroups& groups, KeptRows* kept) {
  RowKeys own_keys;
  RowKeys& keys = kept ? kept->keys : own_keys;
  std::vector<FlatRow> rows, attachment_rows;
  LayoutCache layouts;
  std::map<size_t, ConfigurationRows> read;
  for (size_t index : indices) rows_of_part(dir, index, groups, read, layouts, keys, kept, rows, attachment_rows);
  const size_t reserve = results_reserve(rows);
  const RowKey* error = keys.intern("error");
  const size_t failed = size_t(std::count_if(rows.begin(), rows.end(), [error](const FlatRow& row) {
    return std::any_of(row.begin(), row.end(), [error](const Cell& c) { return c.key == error; });
  }));
  const std::vector<std::string> set_cols = set_column_order(rows);
  const Columns columns =
      column_order(keys, rows, {"trace", "config_index"}, set_cols, {"row", "frame", "pass", "error", "name", "type"});
  const Columns attachment_columns =
      column_order(keys, attachment_rows, {"trace", "config_index"}, set_cols, {"frame", "pass", "name", "attachment", "image"});
  {
    const ResultTexts texts = result_texts(columns, rows, reserve);
    write_atomically(dir / "results.csv", texts.csv);
    write_atomically(dir / "results.json", texts.json);
  }
  write_atomically(dir / "attachments.csv", csv_text(attachment_columns, attachment_rows));
  write_atomically(dir / "report.html", sweep_html(set_cols, total_rows(keys, rows)));
  return {rows.size(), failed};
}

std::string report_csv(const nlohmann::json& report) {
  RowKeys keys;
  RowBuilder builder(keys);
  std::vector<FlatRow> rows;
  for (const nlohmann::json& frame : report.at("frames")) {
    const nlohmann::json& passes = frame.at("passes");
    for (size_t pi = 0; pi < passes.size(); ++pi) {
      builder.start({});
      builder.set("frame", ojson(frame.at("index")));
      builder.set("pass", pi);
      builder.flatten(passes[pi], "attachments");  // a list per pass: a sweep's attachments.csv, not a column set
      rows.push_back(builder.take());
    }
  }
  return csv_text(column_order(keys, rows, {"frame", "pass", "name", "type"}, {}, {}), rows);
}

}  // namespace tbdr::sweep
