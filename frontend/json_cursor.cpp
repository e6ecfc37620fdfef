// Strict JSON walking: parsing with line/column errors and duplicate-key detection, and typed
// accessors that fail with "<file>: <JSON pointer>: expected ..., got ..." in one line.
#include "frontend/json_cursor.h"

#include <cmath>
#include <sstream>

namespace tbdr {

nlohmann::json parse_json_strict(const std::string& text, const std::string& display_name) {
  DuplicateKeyChecker<nlohmann::json> checker(display_name);
  try {
    return parse_checking_duplicates(text, checker);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the last character read; count lines up to it ourselves
    // so the position does not depend on nlohmann's message format.
    const size_t end = std::min(e.byte, text.size());
    size_t line = 1, column = 0;
    for (size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 0;
      } else {
        ++column;
      }
    }
    if (column == 0) column = 1;
    std::string detail = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line L, column C: " prefix.
    for (const char* marker : {"syntax error", "parse error"}) {
      size_t at = detail.find(marker);
      if (at != std::string::npos) {
        detail = detail.substr(at);
        break;
      }
    }
    throw InputError(display_name + ": line " + std::to_string(line) + ", column " + std::to_string(column),
                     "invalid JSON: " + detail);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond double's range (e.g. 1e999): nlohmann reports it as out_of_range.406.
    std::string detail = e.what();
    const size_t at = detail.find("number overflow");
    throw InputError(display_name + ": " + checker.reading_pointer(),
                     "invalid JSON: " + (at == std::string::npos ? detail : detail.substr(at)));
  }
}

std::string JsonCursor::where() const { return m_file + ": " + (m_pointer.empty() ? "/" : m_pointer); }

// InputError keeps the message to one line.
void JsonCursor::fail(const std::string& what) const { throw InputError(where(), what); }

std::string JsonCursor::describe(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string s = value.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string JsonCursor::join(const std::vector<std::string>& items, size_t max_items) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  if (items.size() > max_items) out += ", ... (" + std::to_string(items.size() - max_items) + " more)";
  return out;
}

std::string JsonCursor::unknown_value_message(const std::string& value, const std::vector<std::string>& valid) {
  return "unknown value \"" + value + "\"; expected one of: " + join(valid);
}

// ---- objects

void JsonCursor::expect_object(std::initializer_list<std::string_view> valid_keys) const {
  if (!m_value->is_object()) fail("expected an object, got " + describe(*m_value));
  for (const auto& [key, value] : m_value->items()) {
    bool known = false;
    for (std::string_view valid : valid_keys) known = known || key == valid;
    if (!known) {
      std::vector<std::string> names(valid_keys.begin(), valid_keys.end());
      child(key).fail("unknown key \"" + key + "\"; valid keys: " + join(names));
    }
  }
}

bool JsonCursor::has(std::string_view key) const {
  return m_value->is_object() && m_value->find(key) != m_value->end();
}

std::optional<JsonCursor> JsonCursor::get(std::string_view key) const {
  if (!m_value->is_object()) fail("expected an object, got " + describe(*m_value));
  auto it = m_value->find(key);
  if (it == m_value->end()) return std::nullopt;
  return JsonCursor(*it, m_file, m_pointer + "/" + json_pointer_token(key));
}

JsonCursor JsonCursor::require(std::string_view key) const {
  auto found = get(key);
  if (!found) child(key).fail("required key is missing");
  return *found;
}

JsonCursor JsonCursor::child(std::string_view key) const {
  auto it = m_value->is_object() ? m_value->find(key) : m_value->end();
  static const nlohmann::json null_value;
  return JsonCursor(it == m_value->end() ? null_value : *it, m_file, m_pointer + "/" + json_pointer_token(key));
}

std::vector<std::pair<std::string, JsonCursor>> JsonCursor::members() const {
  if (!m_value->is_object()) fail("expected an object, got " + describe(*m_value));
  std::vector<std::pair<std::string, JsonCursor>> out;
  for (auto it = m_value->begin(); it != m_value->end(); ++it)
    out.emplace_back(it.key(), JsonCursor(it.value(), m_file, m_pointer + "/" + json_pointer_token(it.key())));
  return out;
}

// ---- arrays

size_t JsonCursor::expect_array(size_t min, size_t max) const {
  if (!m_value->is_array()) fail("expected an array, got " + describe(*m_value));
  const size_t n = m_value->size();
  if (n < min || n > max) {
    std::string range = min == max ? std::to_string(min)
                        : max == std::numeric_limits<size_t>::max()
                            ? "at least " + std::to_string(min)
                            : std::to_string(min) + " to " + std::to_string(max);
    fail("expected an array of " + range + " elements, got " + std::to_string(n));
  }
  return n;
}

JsonCursor JsonCursor::at(size_t index) const {
  return JsonCursor((*m_value)[index], m_file, m_pointer + "/" + std::to_string(index));
}

std::vector<JsonCursor> JsonCursor::elements(size_t min, size_t max) const {
  const size_t n = expect_array(min, max);
  std::vector<JsonCursor> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(at(i));
  return out;
}

// ---- scalars

std::string JsonCursor::as_string() const {
  if (!m_value->is_string()) fail("expected a string, got " + describe(*m_value));
  return m_value->get<std::string>();
}

std::string JsonCursor::as_name() const {
  std::string s = as_string();
  if (s.empty()) fail("expected a non-empty name");
  return s;
}

bool JsonCursor::as_bool() const {
  if (!m_value->is_boolean()) fail("expected true or false, got " + describe(*m_value));
  return m_value->get<bool>();
}

double JsonCursor::as_number() const {
  if (!m_value->is_number()) fail("expected a number, got " + describe(*m_value));
  const double v = m_value->get<double>();
  if (!std::isfinite(v)) fail("expected a finite number, got " + describe(*m_value));
  return v;
}

float JsonCursor::as_float() const {
  const double v = as_number();
  const float f = static_cast<float>(v);
  if (!std::isfinite(f)) fail("number " + describe(*m_value) + " is out of float range");
  return f;
}

float JsonCursor::as_float(double lo, double hi) const {
  const double v = as_number();
  if (v < lo || v > hi) {
    auto text = [](double x) {
      std::ostringstream out;
      out << x;  // 0, 1, 0.5: no trailing ".0"
      return out.str();
    };
    std::string range = hi == std::numeric_limits<double>::infinity() ? ">= " + text(lo)
                                                                       : "from " + text(lo) + " to " + text(hi);
    fail("expected a number " + range + ", got " + describe(*m_value));
  }
  return as_float();
}

int64_t JsonCursor::as_int(int64_t lo, int64_t hi) const {
  auto range_text = [&] {
    if (hi == std::numeric_limits<int64_t>::max() || hi == std::numeric_limits<uint32_t>::max())
      return "an integer >= " + std::to_string(lo);
    return "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  };
  // 3.0 is a float in JSON terms; counts and indices must be written as integers.
  if (!m_value->is_number_integer()) fail("expected " + range_text() + ", got " + describe(*m_value));
  int64_t v;
  if (m_value->is_number_unsigned()) {
    const uint64_t u = m_value->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail("expected " + range_text() + ", got " + describe(*m_value));
    v = static_cast<int64_t>(u);
  } else {
    v = m_value->get<int64_t>();
  }
  if (v < lo || v > hi) fail("expected " + range_text() + ", got " + describe(*m_value));
  return v;
}

std::vector<float> JsonCursor::as_floats(size_t count) const {
  if (!m_value->is_array() || m_value->size() != count)
    fail("expected an array of " + std::to_string(count) + " numbers, got " +
         (m_value->is_array() ? "an array of " + std::to_string(m_value->size()) : describe(*m_value)));
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = at(i).as_float();
  return out;
}

}  // namespace tbdr
