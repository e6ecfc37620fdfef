// Duplicate keys in user JSON (traces, presets): JSON leaves them undefined and nlohmann keeps the
// last one silently, so every reader refuses them, naming FILE: /json/pointer. A parser callback
// for any nlohmann::basic_json (the trace reader's json, the preset reader's ordered_json); it
// lives in models/, the bottom of the import chain, so both rooms can use it.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/errors.h"
#include "models/input_file.h"

namespace tbdr {

// Escapes one JSON pointer token (RFC 6901: "~" -> "~0", "/" -> "~1").
inline std::string json_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

// Pass to Json::parse(text, DuplicateKeyChecker<Json>(file)): throws InputError at the second
// occurrence of a key in one object, placed as FILE + separator + /json/pointer (traces "FILE:
// /a/b", presets "FILE#/a/b"). Tracks the JSON pointer of the value being parsed.
template <class Json>
class DuplicateKeyChecker {
 public:
  explicit DuplicateKeyChecker(const std::string& display_name, const std::string& separator = ": ")
      : m_file(display_name), m_separator(separator) {}

  const std::string& file() const { return m_file; }

  // The JSON pointer of the value being read now: for an error the lexer raises inside a value
  // (a number beyond double's range), whose position nlohmann does not give.
  std::string reading_pointer() const {
    std::string p;
    for (const Level& level : m_stack) {
      p += '/';  // appended: GCC 12 warns falsely (-Wrestrict, GCC bug 105329) on "/" + std::string&&
      p += level.is_array ? std::to_string(&level == &m_stack.back() ? level.index + 1 : level.index)
                          : json_pointer_token(level.key);
    }
    return p.empty() ? "/" : p;
  }

  bool operator()(int /*depth*/, typename Json::parse_event_t event, Json& parsed) {
    using Event = typename Json::parse_event_t;
    switch (event) {
      case Event::object_start:
        note_value();
        m_stack.push_back({false, -1, {}, {}});
        break;
      case Event::array_start:
        note_value();
        m_stack.push_back({true, -1, {}, {}});
        break;
      case Event::object_end:
      case Event::array_end:
        m_stack.pop_back();
        break;
      case Event::key: {
        Level& top = m_stack.back();
        top.key = parsed.template get<std::string>();
        if (!top.keys.insert(top.key).second)  // InputError keeps a key's line breaks out of the message
          throw InputError(m_file + m_separator + pointer(), "duplicate key \"" + top.key + "\"");
        break;
      }
      case Event::value:
        note_value();
        break;
    }
    return true;
  }

 private:
  struct Level {
    bool is_array;
    long index;
    std::string key;
    std::set<std::string> keys;
  };

  void note_value() {
    if (!m_stack.empty() && m_stack.back().is_array) ++m_stack.back().index;
  }

  std::string pointer() const {
    std::string p;
    for (const Level& level : m_stack) {
      p += '/';
      p += level.is_array ? std::to_string(level.index) : json_pointer_token(level.key);
    }
    return p;
  }

  std::string m_file, m_separator;
  std::vector<Level> m_stack;
};

// Json::parse(text) with `checker` watching. parse() copies its callback, so it gets a lambda holding
// a reference: after an exception the caller still asks checker.reading_pointer() where it was.
// Nesting deeper than InputLimits::kJsonDepth is refused before parsing, as for every JSON read.
template <class Json>
Json parse_checking_duplicates(const std::string& text, DuplicateKeyChecker<Json>& checker) {
  check_json_depth(text, checker.file());
  return Json::parse(text, [&checker](int depth, typename Json::parse_event_t event, Json& parsed) {
    return checker(depth, event, parsed);
  });
}

}  // namespace tbdr
