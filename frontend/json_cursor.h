// Strict JSON walking for the frontend readers: a cursor that carries the file name and the JSON
// pointer of the value it stands on, so every error names both (traces/README.md, "Every error").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/errors.h"
#include "models/json_duplicates.h"

namespace tbdr {

// Parses strict JSON. A syntax error throws InputError naming the file and line/column; a key
// repeated within one object throws naming its JSON pointer (nlohmann would keep the last one
// silently, hiding a typo'd edit).
nlohmann::json parse_json_strict(const std::string& text, const std::string& display_name);

// One entry of a string -> enum table; tables are listed in full in error messages.
template <class E>
struct EnumEntry {
  const char* name;
  E value;
};

// A read-only position in a parsed document. Cheap to copy (a reference and two strings).
class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& value, std::string file, std::string pointer = "")
      : m_value(&value), m_file(std::move(file)), m_pointer(std::move(pointer)) {}

  const nlohmann::json& json() const { return *m_value; }
  const std::string& pointer() const { return m_pointer; }
  const std::string& file() const { return m_file; }
  // "<file>: <pointer>", the `where` of every InputError raised here.
  std::string where() const;
  [[noreturn]] void fail(const std::string& what) const;

  // ---- objects
  // Requires an object whose keys are all in `valid_keys`; an unknown key fails at its own
  // pointer, listing the valid ones.
  void expect_object(std::initializer_list<std::string_view> valid_keys) const;
  bool has(std::string_view key) const;
  std::optional<JsonCursor> get(std::string_view key) const;  // nullopt when absent
  JsonCursor require(std::string_view key) const;             // fails when absent
  JsonCursor child(std::string_view key) const;               // pointer of a key, present or not
  // Members in key order (nlohmann::json keeps a std::map), so the first error reported is
  // deterministic.
  std::vector<std::pair<std::string, JsonCursor>> members() const;

  // ---- arrays
  // Requires an array with min..max elements; returns its size.
  size_t expect_array(size_t min = 0, size_t max = std::numeric_limits<size_t>::max()) const;
  JsonCursor at(size_t index) const;
  std::vector<JsonCursor> elements(size_t min = 0, size_t max = std::numeric_limits<size_t>::max()) const;

  // ---- scalars
  bool is_null() const { return m_value->is_null(); }
  std::string as_string() const;
  std::string as_name() const;  // a non-empty string
  bool as_bool() const;
  double as_number() const;     // finite
  float as_float() const;       // finite once rounded to float
  float as_float(double lo, double hi) const;
  int64_t as_int(int64_t lo, int64_t hi) const;
  uint32_t as_uint(uint32_t lo = 0, uint32_t hi = std::numeric_limits<uint32_t>::max()) const {
    return static_cast<uint32_t>(as_int(lo, hi));
  }
  // An array of exactly `count` finite numbers.
  std::vector<float> as_floats(size_t count) const;

  template <class E>
  E as_enum(std::span<const EnumEntry<E>> table) const {
    const std::string s = as_string();
    for (const auto& e : table)
      if (s == e.name) return e.value;
    std::vector<std::string> names;
    for (const auto& e : table) names.emplace_back(e.name);
    fail(unknown_value_message(s, names));
  }
  // A list of enum names OR-ed into a bit mask (usage, stages, access).
  template <class E>
  uint32_t as_bits(std::span<const EnumEntry<E>> table) const {
    uint32_t bits = 0;
    for (const auto& element : elements()) bits |= static_cast<uint32_t>(element.as_enum(table));
    return bits;
  }

  // A short description of a value for "got ..." (scalars verbatim, containers by kind).
  static std::string describe(const nlohmann::json& value);
  static std::string unknown_value_message(const std::string& value, const std::vector<std::string>& valid);
  static std::string join(const std::vector<std::string>& items, size_t max_items = 40);

 private:
  const nlohmann::json* m_value;
  std::string m_file;
  std::string m_pointer;
};

}  // namespace tbdr
