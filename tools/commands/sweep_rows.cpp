// Sweep rows as flat cells under interned column names: a report flattened once, written as JSON
// text (parts, results.json) and CSV directly, and kept for the results instead of re-parsing parts.
#include "tools/commands/sweep_internal.h"

namespace tbdr::sweep {

// ---- column names --------------------------------------------------------------------------------

const RowKey* RowKeys::intern(const std::string& name) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto it = m_index.find(name);
  if (it != m_index.end()) return it->second;
  RowKey& key = m_keys.emplace_back();
  key.name = name;
  key.quoted = ojson(name).dump() + ":";
  key.id = uint32_t(m_keys.size() - 1);
  m_index.emplace(key.name, &key);
  return &key;
}

size_t RowKeys::size() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_keys.size();
}

// ---- building rows -------------------------------------------------------------------------------

void RowBuilder::start(const FlatRow& base) {
  for (const Cell& c : m_row) m_position[c.key->id] = 0;
  m_row.clear();
  m_row.reserve(std::max(m_longest, base.size()));
  m_row.insert(m_row.end(), base.begin(), base.end());
  for (size_t i = 0; i < m_row.size(); ++i) mark(m_row[i].key, i);
  m_last = m_row.empty() ? nullptr : m_row.back().key;
}

void RowBuilder::mark(const RowKey* key, size_t cell) {
  if (key->id >= m_position.size()) m_position.resize(std::max<size_t>(key->id + 1, 2 * m_position.size()), 0);
  m_position[key->id] = uint32_t(cell + 1);
}

const RowKey* RowBuilder::key_of(const std::string& name) {
  if (!m_successors) return m_keys.intern(name);
  const size_t slot = m_last ? m_last->id + 1 : 0;
  if (slot >= m_successors->size()) m_successors->resize(slot + 1, nullptr);
  const RowKey*& next = (*m_successors)[slot];
  if (!next || next->name != name) next = m_keys.intern(name);
  m_last = next;
  return next;
}

// As ordered_json's operator[]: a name set again keeps its place and takes the new value.
void RowBuilder::set(const std::string& name, ojson value) {
  const RowKey* key = key_of(name);
  if (key->id < m_position.size() && m_position[key->id] != 0) {
    m_row[m_position[key->id] - 1].value = std::move(value);
    return;
  }
  m_row.push_back({key, std::move(value)});
  mark(key, m_row.size() - 1);
}

void RowBuilder::flatten(const nlohmann::json& value, const char* skip) {
  m_path.clear();
  flatten_at(value, skip);
}

// A leaf's column is its path, object keys and array indices joined by "." (tools/doc/sweeps.md).
size_t RowBuilder::enter(std::string_view step) {
  const size_t length = m_path.size();
  if (length) m_path += '.';
  m_path += step;
  return length;
}

// A null leaf is left out (a report's absent figure).
void RowBuilder::leaf(ojson value) {
  if (!value.is_null()) set(m_path, std::move(value));
}

void RowBuilder::flatten_at(const nlohmann::json& value, const char* skip) {
  const auto descend = [&](const std::string& step, const nlohmann::json& child) {
    const size_t length = enter(step);
    flatten_at(child, nullptr);
    leave(length);
  };
  if (value.is_object()) {
    for (const auto& [k, v] : value.get_ref<const nlohmann::json::object_t&>())
      if (!skip || k != skip) descend(k, v);
  } else if (value.is_array()) {
    const auto& items = value.get_ref<const nlohmann::json::array_t&>();
    for (size_t i = 0; i < items.size(); ++i) descend(std::to_string(i), items[i]);
  } else if (!value.is_null()) {
    set(m_path, ojson(value));
  }
}

FlatRow RowBuilder::take() {
  for (const Cell& c : m_row) m_position[c.key->id] = 0;
  m_longest = std::max(m_longest, m_row.size());
  return std::move(m_row);
}

// What the row reads back as from its part: JSON keeps no integer's signedness (a non-negative one
// parses as unsigned) and writes a NaN or infinity as null.
void as_read_back(FlatRow& row) {
  for (Cell& c : row) {
    if (c.value.is_number_integer() && !c.value.is_number_unsigned() && c.value.get<int64_t>() >= 0)
      c.value = c.value.get<uint64_t>();
    else if (c.value.is_number_float() && !std::isfinite(c.value.get<double>()))
      c.value = nullptr;
  }
}

bool written_alike(const ojson& a, const ojson& b) {
  if (a.type() != b.type()) return false;
  if (!a.is_number_float()) return a == b;
  const double x = a.get<double>(), y = b.get<double>();
  return std::memcmp(&x, &y, sizeof x) == 0;
}

// ---- writing rows --------------------------------------------------------------------------------

JsonWriter::JsonWriter(std::string& out)
    : m_out(out), m_serializer(nlohmann::detail::output_adapter<char>(out), ' ') {}

void JsonWriter::value(const ojson& v) { m_serializer.dump(v, false, false, 0); }

void JsonWriter::row(const FlatRow& row) {
  m_out += '{';
  for (size_t i = 0; i < row.size(); ++i) {
    if (i) m_out += ',';
    m_out += row[i].key->quoted;
    value(row[i].value);
  }
  m_out += '}';
}

void JsonWriter::rows(const std::vector<FlatRow>& rows) {
  m_out += '[';
  for (size_t r = 0; r < rows.size(); ++r) {
    if (r) m_out += ',';
    row(rows[r]);
  }
  m_out += ']';
}

// ---- columns -------------------------------------------------------------------------------------

void Columns::place(const FlatRow& row) const {
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i].key->id >= m_cell.size()) m_cell.resize(row[i].key->id + 1, nullptr);
    m_cell[row[i].key->id] = &row[i];
  }
}

const Cell* Columns::cell(const RowKey* key) const { return key->id < m_cell.size() ? m_cell[key->id] : nullptr; }

void Columns::clear(const FlatRow& row) const {
  for (const Cell& c : row) m_cell[c.key->id] = nullptr;
}

std::vector<std::string> Columns::names() const {
  std::vector<std::string> out;
  for (const RowKey* key : keys) out.push_back(key->name);
  return out;
}

// The union of the rows' names: the identifying columns first (`fixed`, then set.*, then `after_set`),
// then every other name in order of first appearance (rows are sorted, so the order is deterministic).
Columns column_order(RowKeys& names, const std::vector<FlatRow>& rows, const std::vector<std::string>& fixed,
                     const std::vector<std::string>& set_columns, const std::vector<std::string>& after_set) {
  Columns columns;
  std::vector<char> seen;
  const auto add = [&](const RowKey* key) {
    if (key->id >= seen.size()) seen.resize(std::max<size_t>(key->id + 1, names.size()), 0);
    if (seen[key->id]) return;
    seen[key->id] = 1;
    columns.keys.push_back(key);
  };
  for (const auto* list : {&fixed, &set_columns, &after_set})
    for (const std::string& name : *list) add(names.intern(name));
  for (const FlatRow& row : rows)
    for (const Cell& c : row) add(c.key);
  return columns;
}

std::vector<std::string> set_column_order(const std::vector<FlatRow>& rows) {
  std::vector<std::string> out;
  std::vector<char> seen;
  for (const FlatRow& row : rows)
    for (const Cell& c : row) {
      if (c.key->name.rfind("set.", 0) != 0) continue;
      if (c.key->id >= seen.size()) seen.resize(c.key->id + 1, 0);
      if (!seen[c.key->id]) out.push_back(c.key->name);
      seen[c.key->id] = 1;
    }
  return out;
}

void csv_header(const Columns& columns, std::string& out) {
  for (size_t c = 0; c < columns.keys.size(); ++c) {
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict, GCC bug 105329) on "literal" + string&&.
    if (c) out += ',';
    out += csv_quote(columns.keys[c]->name);
  }
  out += "\n";
}

// A CSV cell: a number or boolean as its JSON text (`json`, written already), a string quoted as
// RFC 4180 needs, null as nothing.
void csv_cell(const ojson& value, std::string_view json, std::string& out) {
  if (value.is_null()) return;
  if (value.is_string()) out += csv_quote(value.get_ref<const std::string&>());
  else out += json;
}

// Integers as integers, doubles in nlohmann's shortest round-trip form, strings quoted as RFC 4180
// needs, null as an empty cell.
std::string csv_text(const Columns& columns, const std::vector<FlatRow>& rows, size_t reserve) {
  std::string out, json;
  out.reserve(reserve);
  csv_header(columns, out);
  JsonWriter writer(json);
  std::vector<ojson> last(columns.keys.size());
  std::vector<std::string> texts(columns.keys.size());
  for (const FlatRow& row : rows) {
    columns.place(row);
    for (size_t c = 0; c < columns.keys.size(); ++c) {
      if (c) out += ',';
      const Cell* cell = columns.cell(columns.keys[c]);
      if (!cell) continue;
      if (!written_alike(last[c], cell->value)) {  // as result_texts: a repeated value formatted once
        last[c] = cell->value;
        json.clear();
        if (!cell->value.is_string() && !cell->value.is_null()) writer.value(cell->value);
        texts[c] = json;
      }
      csv_cell(cell->value, texts[c], out);
    }
    out += "\n";
    columns.clear(row);
  }
  return out;
}

// results.json: {"format", "version", "tbdrsim" (the build: tools/commands/version.h), "columns", "rows": [
// one object per line, keys in column order ]}; and results.csv, its rows with the same columns. Written
// together, each value once: a number's CSV cell is its JSON text (writing each double twice was a tenth of
// the results' cost).
ResultTexts result_texts(const Columns& columns, const std::vector<FlatRow>& rows, size_t reserve) {
  ResultTexts out;
  std::string& json = out.json;
  json.reserve(reserve);
  out.csv.reserve(reserve);
  csv_header(columns, out.csv);
  // Appended piecewise: GCC 12 warns falsely (-Warray-bounds, as GCC bug 105329) on "literal" + string&&.
  json += "{\"format\": \"tbdrsim-sweep-results\", \"version\": ";
  json += std::to_string(k_version);
  json += ", \"tbdrsim\": ";
  json += version_json().dump();
  json += ",\n \"columns\": ";
  json += ojson(columns.names()).dump();
  json += ",\n \"rows\": [";
  JsonWriter writer(json);
  // Per column, the last value written and its text: a cost sweep's rows repeat most values (every
  // functional figure, the fixed parameters), each formatted once instead of once per row.
  std::vector<std::pair<ojson, std::string>> last(columns.keys.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    json += r ? ",\n  {" : "\n  {";
    columns.place(rows[r]);
    bool first = true;
    for (size_t c = 0; c < columns.keys.size(); ++c) {
      if (c) out.csv += ',';
      const Cell* cell = columns.cell(columns.keys[c]);
      if (!cell) continue;
      if (!first) json += ',';
      first = false;
      json += columns.keys[c]->quoted;
      const size_t at = json.size();
      if (written_alike(last[c].first, cell->value)) {
        json += last[c].second;
      } else {
        writer.value(cell->value);
        last[c] = {cell->value, json.substr(at)};
      }
      csv_cell(cell->value, std::string_view(json).substr(at), out.csv);
    }
    json += '}';
    out.csv += "\n";
    columns.clear(rows[r]);
  }
  json += rows.empty() ? "]}\n" : "\n ]}\n";
  return out;
}

}  // namespace tbdr::sweep
