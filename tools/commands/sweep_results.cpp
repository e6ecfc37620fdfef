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

ConfigurationRows read_part(const fs::path& path, LayoutCache& layouts, RowKeys& keys) {
  const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
  check_json_depth(text, path.string());
  const auto damaged = [&path](const std::string& problem) {
    return InputError(path.string(), "a damaged sweep part (delete it and run the sweep again to redo its configuration): " + problem);
  };
  ConfigurationRows out;
  std::string problem;
  try {
    problem = decode_part_rows(ojson::parse(text), path.parent_path(), layouts, keys, out);
  } catch (const std::exception& e) {
    throw damaged(without_json_exception_tags(e.what()));
  }
  if (!problem.empty()) throw damaged(problem);
  return out;
}

// The rows of `index` and its attachment rows: kept from this run, else read from its part.
void rows_of_part(const fs::path& dir, size_t index, LayoutCache& layouts, RowKeys& keys, KeptRows* kept, std::vector<FlatRow>& rows,
                    std::vector<FlatRow>& attachment_rows) {
  const auto it = kept ? kept->by_index.find(index) : decltype(kept->by_index.end()){};
  if (kept && it != kept->by_index.end()) {
    for (FlatRow& r : it->second.rows) rows.push_back(std::move(r));
    for (FlatRow& r : it->second.attachments) attachment_rows.push_back(std::move(r));
    kept->by_index.erase(it);
    return;
  }
  ConfigurationRows part = read_part(dir / "parts" / part_name(index), layouts, keys);
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
ResultsWritten write_results(const fs::path& dir, const std::vector<size_t>& indices, KeptRows* kept) {
  RowKeys own_keys;
  RowKeys& keys = kept ? kept->keys : own_keys;
  std::vector<FlatRow> rows, attachment_rows;
  LayoutCache layouts;
  for (size_t index : indices) rows_of_part(dir, index, layouts, keys, kept, rows, attachment_rows);
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
