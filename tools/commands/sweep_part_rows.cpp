// A sweep part's rows in part format 3 (tools/doc/sweeps.md "What the output folder holds"): the column
// names and row shapes in a layout file the parts share, each row as the cells it shares with the row
// before it plus its own values; and back, each file checked before it is trusted.
#include "tools/commands/sweep_internal.h"

namespace tbdr::sweep {

namespace {

// A row's cells taken whole from the row before it: the same columns holding values written alike (1 and 1.0,
// 0.0 and -0.0 compare equal but are written differently), in the same places.
size_t shared_prefix(const FlatRow* before, const FlatRow& row) {
  if (!before) return 0;
  size_t n = 0;
  const size_t most = std::min(before->size(), row.size());
  while (n < most && (*before)[n].key == row[n].key && written_alike((*before)[n].value, row[n].value)) ++n;
  return n;
}

// Each row's shared prefix and shape, the layout's columns and shapes gathered on the way.
struct Encoder {
  PartLayout& layout;
  std::vector<uint32_t> column_of;  // per RowKey id: 1 + its column, 0 when not yet listed
  std::vector<uint32_t> shape;

  uint32_t column(const RowKey* key) {
    if (key->id >= column_of.size()) column_of.resize(key->id + 1, 0);
    if (column_of[key->id] == 0) {
      layout.columns.push_back(key);
      column_of[key->id] = uint32_t(layout.columns.size());
    }
    return column_of[key->id] - 1;
  }

  void encode(const std::vector<FlatRow>& list, std::vector<std::pair<size_t, size_t>>& out) {
    for (size_t r = 0; r < list.size(); ++r) {
      const size_t prefix = shared_prefix(r ? &list[r - 1] : nullptr, list[r]);
      shape.clear();
      for (size_t c = prefix; c < list[r].size(); ++c) shape.push_back(column(list[r][c].key));
      const auto found = std::find(layout.shapes.begin(), layout.shapes.end(), shape);
      out.emplace_back(prefix, size_t(found - layout.shapes.begin()));
      if (found == layout.shapes.end()) layout.shapes.push_back(shape);
    }
  }
};

// A cell's value as JSON text: the worker's last text for its column when the value is written alike (most
// figures of a cost sweep's configurations repeat, each formatted once instead of once per part).
void write_value(const Cell& cell, PartWriter& part, JsonWriter& writer) {
  if (cell.key->id >= part.last_values.size()) part.last_values.resize(cell.key->id + 1);
  auto& [value, text] = part.last_values[cell.key->id];
  if (written_alike(value, cell.value) && !text.empty()) {
    part.text += text;
    return;
  }
  const size_t at = part.text.size();
  writer.value(cell.value);
  value = cell.value;
  text.assign(part.text, at);
}

void write_encoded(const std::vector<FlatRow>& list, const std::vector<std::pair<size_t, size_t>>& encoded,
                   JsonWriter& writer, PartWriter& part) {
  std::string& text = part.text;
  text += '[';
  for (size_t r = 0; r < list.size(); ++r) {
    text += r ? ",[" : "[";
    text += std::to_string(encoded[r].first);
    text += ',';
    text += std::to_string(encoded[r].second);
    for (size_t c = encoded[r].first; c < list[r].size(); ++c) {
      text += ',';
      write_value(list[r][c], part, writer);
    }
    text += ']';
  }
  text += ']';
}

// The layout file's text: {"format", "version", "columns": [names], "shapes": [[column, ...], ...]}.
std::string layout_text(const PartLayout& layout) {
  std::string text = "{\"format\":\"tbdrsim-sweep-layout\",\"version\":" + std::to_string(k_part_version) + ",\"columns\":[";
  for (size_t c = 0; c < layout.columns.size(); ++c) {
    if (c) text += ',';
    const std::string& quoted = layout.columns[c]->quoted;  // "name": as a key; the name alone here
    text.append(quoted, 0, quoted.size() - 1);
  }
  text += "],\"shapes\":[";
  for (size_t s = 0; s < layout.shapes.size(); ++s) {
    text += s ? ",[" : "[";
    for (size_t c = 0; c < layout.shapes[s].size(); ++c) {
      if (c) text += ',';
      text += std::to_string(layout.shapes[s][c]);
    }
    text += ']';
  }
  return text + "]}\n";
}

bool is_index(const ojson& v, size_t below) { return v.is_number_unsigned() && v.get<uint64_t>() < below; }

// A layout file's columns and shapes, or the problem naming its field.
std::string parse_layout(const std::string& text, ReadLayout& out) {
  const ojson layout = ojson::parse(text);
  if (!layout.is_object() || layout.value("format", "") != "tbdrsim-sweep-layout") return "not a sweep layout";
  if (!layout.contains("version") || layout.at("version") != ojson(k_part_version)) return "a layout of another version";
  const ojson& names = layout.value("columns", ojson());
  if (!names.is_array()) return "columns is not an array";
  std::unordered_set<std::string> distinct;
  for (size_t c = 0; c < names.size(); ++c) {
    if (!names[c].is_string()) return "columns[" + std::to_string(c) + "] is not a string";
    if (!distinct.insert(names[c].get<std::string>()).second) return "columns[" + std::to_string(c) + "]: " + names[c].get<std::string>() + " twice";
    out.columns.push_back(names[c].get<std::string>());
  }
  const ojson& shapes = layout.value("shapes", ojson());
  if (!shapes.is_array()) return "shapes is not an array";
  for (size_t s = 0; s < shapes.size(); ++s) {
    const std::string where = "shapes[" + std::to_string(s) + "]";
    if (!shapes[s].is_array()) return where + " is not an array of column indices";
    std::vector<uint32_t>& shape = out.shapes.emplace_back();
    for (const ojson& c : shapes[s]) {
      if (!is_index(c, out.columns.size())) return where + ": " + c.dump() + " is not one of the " + std::to_string(out.columns.size()) + " columns";
      if (std::find(shape.begin(), shape.end(), c.get<uint32_t>()) != shape.end()) return where + ": column " + c.dump() + " twice";
      shape.push_back(c.get<uint32_t>());
    }
  }
  return "";
}

// One list ("rows" or "attachments") decoded; the problem, naming the element, or "".
std::string decode_list(const ojson& list, const char* name, const std::vector<const RowKey*>& columns,
                        const std::vector<std::vector<uint32_t>>& shapes, std::vector<FlatRow>& out) {
  if (!list.is_array()) return std::string(name) + " is not an array";
  std::vector<size_t> seen;  // per RowKey id: 1 + the row that last held it
  const size_t first = out.size();
  for (size_t r = 0; r < list.size(); ++r) {
    const ojson& row = list[r];
    const std::string where = std::string(name) + "[" + std::to_string(r) + "]";
    if (!row.is_array() || row.size() < 2) return where + " is not an array [prefix, shape, values...]";
    const size_t before = r ? out[first + r - 1].size() : 0;
    if (!is_index(row[0], before + 1))
      return where + ": its shared prefix is not a count of at most the " + std::to_string(before) + " cells of the row before it";
    if (!is_index(row[1], shapes.size())) return where + ": its shape is not one of the layout's " + std::to_string(shapes.size());
    const std::vector<uint32_t>& shape = shapes[row[1].get<size_t>()];
    if (row.size() != 2 + shape.size())
      return where + ": " + std::to_string(row.size() - 2) + " values for a shape of " + std::to_string(shape.size()) + " columns";
    FlatRow cells;
    const size_t prefix = row[0].get<size_t>();
    cells.reserve(prefix + shape.size());
    if (prefix) cells.assign(out[first + r - 1].begin(), out[first + r - 1].begin() + ptrdiff_t(prefix));
    for (size_t c = 0; c < shape.size(); ++c) cells.push_back({columns[shape[c]], row[2 + c]});
    for (const Cell& c : cells) {
      if (c.key->id >= seen.size()) seen.resize(c.key->id + 1, 0);
      if (seen[c.key->id] == r + 1) return where + ": column " + c.key->name + " twice";
      seen[c.key->id] = r + 1;
    }
    out.push_back(std::move(cells));
  }
  return "";
}

}  // namespace

bool PartLayout::operator==(const PartLayout& other) const { return columns == other.columns && shapes == other.shapes; }

std::string layout_file_name(const std::string& hash) { return "layout-" + hash + ".json"; }

// Written once per run (and again only when the file there differs: a damaged one is replaced).
void LayoutFiles::ensure(const std::string& hash, const std::string& text) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (!m_written.insert(hash).second) return;
  const fs::path path = m_parts / layout_file_name(hash);
  std::string existing;
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(path, ec)) && read_text(path, existing) && existing == text) return;
  write_atomically(path, text);
}

void part_rows_text(const std::vector<FlatRow>& rows, const std::vector<FlatRow>& attachments, PartWriter& writer) {
  PartLayout layout;
  Encoder encoder{layout, {}, {}};
  std::vector<std::pair<size_t, size_t>> encoded_rows, encoded_attachments;
  encoder.encode(rows, encoded_rows);
  encoder.encode(attachments, encoded_attachments);
  if (writer.layout_hash.empty() || !(layout == writer.layout)) {  // most parts of a sweep share one
    const std::string text = layout_text(layout);
    writer.layout_hash = hex64(fnv1a64(text));
    writer.layout = std::move(layout);
    writer.files.ensure(writer.layout_hash, text);
  }
  std::string& text = writer.text;
  text += "\"layout_fnv1a64\":\"" + writer.layout_hash + "\",\"rows_fnv1a64\":\"";
  const size_t hash_at = text.size();
  text += "0000000000000000\",";  // hex64's 16 digits, set below
  const size_t rows_at = text.size();
  text += "\"rows\":";
  JsonWriter json(text);
  write_encoded(rows, encoded_rows, json, writer);
  text += ",\"attachments\":";
  write_encoded(attachments, encoded_attachments, json, writer);
  text.replace(hash_at, 16, hex64(fnv1a64(std::string_view(text).substr(rows_at))));  // as part_rows_hash
}

std::string part_rows_hash(const ojson& part) {
  return hex64(fnv1a64("\"rows\":" + part.at("rows").dump() + ",\"attachments\":" + part.at("attachments").dump()));
}

// The layout `hash` names in `parts` (read once per folder and hash), or the problem with it.
const ReadLayout& LayoutCache::get(const fs::path& parts, const std::string& hash) {
  const fs::path path = parts / layout_file_name(hash);
  const auto [it, added] = m_layouts.try_emplace(path.string());
  ReadLayout& layout = it->second;
  if (!added) return layout;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  layout.problem = !fs::exists(status) ? "missing" : !fs::is_regular_file(status) ? "not a regular file (a symlink?)" : "";
  if (!layout.problem.empty()) return layout;
  try {
    layout.text = read_input_file(path, InputLimits::kTextBytes, path.string());
    check_json_depth(layout.text, path.string());
    layout.problem = hex64(fnv1a64(layout.text)) != hash ? "edited or damaged (its fnv1a64 is not the one its name gives)"
                                                         : parse_layout(layout.text, layout);
  } catch (const InputError& e) {
    layout.problem = e.expected();
  } catch (const std::exception& e) {
    layout.problem = without_json_exception_tags(e.what());
  }
  return layout;
}

std::string decode_part_rows(const ojson& part, const fs::path& parts, LayoutCache& layouts, RowKeys& keys,
                             ConfigurationRows& out, std::string* layout_file) {
  const ojson& hash = part.value("layout_fnv1a64", ojson());
  if (!hash.is_string() || hash.get_ref<const std::string&>().size() != 16 ||
      hash.get_ref<const std::string&>().find_first_not_of("0123456789abcdef") != std::string::npos)
    return "layout_fnv1a64 is not 16 hexadecimal digits";
  const std::string name = layout_file_name(hash.get<std::string>());
  const ReadLayout& layout = layouts.get(parts, hash.get<std::string>());
  if (!layout.problem.empty()) return "its layout " + name + ": " + layout.problem;
  if (layout_file) *layout_file = name;
  std::vector<const RowKey*> columns;
  for (const std::string& c : layout.columns) columns.push_back(keys.intern(c));
  if (std::string problem = decode_list(part.at("rows"), "rows", columns, layout.shapes, out.rows); !problem.empty()) return problem;
  return decode_list(part.at("attachments"), "attachments", columns, layout.shapes, out.attachments);
}

}  // namespace tbdr::sweep
