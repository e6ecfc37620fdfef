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

PartRows read_part(const fs::path& path) {
  const std::string text = read_input_file(path, InputLimits::kTextBytes, path.string());
  check_json_depth(text, path.string());
  try {
    const ojson part = ojson::parse(text);
    PartRows out{part.at("rows"), part.at("attachments"), text.size()};
    if (!out.rows.is_array() || !out.attachments.is_array()) throw std::runtime_error("rows are not arrays");
    return out;
  } catch (const std::exception& e) {
    throw InputError(path.string(), "a damaged sweep part (delete it and run the sweep again to redo its configuration): " +
                                        without_json_exception_tags(e.what()));
  }
}

// The rows of `index` and its attachment rows: kept from this run, else read from its part.
// Returns the part's size.
size_t rows_of_part(const fs::path& dir, size_t index, RowKeys& keys, KeptRows* kept, std::vector<FlatRow>& rows,
                    std::vector<FlatRow>& attachment_rows) {
  const auto it = kept ? kept->by_index.find(index) : decltype(kept->by_index.end()){};
  if (kept && it != kept->by_index.end()) {
    for (FlatRow& r : it->second.rows) rows.push_back(std::move(r));
    for (FlatRow& r : it->second.attachments) attachment_rows.push_back(std::move(r));
    const size_t bytes = it->second.text_bytes;
    kept->by_index.erase(it);
    return bytes;
  }
  const fs::path path = dir / "parts" / part_name(index);
  const PartRows part = read_part(path);
  for (const auto* list : {&part.rows, &part.attachments})
    for (const ojson& r : *list)
      if (!r.is_object()) throw InputError(path.string(), "a damaged sweep part (a row is not an object): delete it and run the sweep again");
  for (const ojson& r : part.rows) rows.push_back(flat_row(keys, r));
  for (const ojson& r : part.attachments) attachment_rows.push_back(flat_row(keys, r));
  return part.text_bytes;
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
  size_t part_bytes = 0;  // a row's text is about as long in the results as in its part
  for (size_t index : indices) part_bytes += rows_of_part(dir, index, keys, kept, rows, attachment_rows);
  const size_t reserve = part_bytes + 4 * rows.size() + 65536;
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
