// Errors shared by every room (models/ is the bottom of the import chain, so it lives here):
// InputError is bad user input (a trace, a parameter, a file),
// reported by the CLI in one line with exit code 2 (tools/doc/design.md "Design rules": errors).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace tbdr {

// Messages stay one line: the CLI prints them as they are (tools/doc/design.md "Design rules": errors). Line breaks
// and tabs copied from the input (a JSON key, a preset string, a library's message) become spaces.
inline std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}
// The same without trailing spaces: for a library's message, which often ends in a line break.
inline std::string one_line_trimmed(std::string s) {
  s = one_line(std::move(s));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// `where` names the file and the JSON path / draw index / parameter; `what` says what was expected.
// Both are kept to one line (one_line), whatever the input holds.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& where, const std::string& what)
      : InputError(Parts{one_line(where), one_line(what)}) {}
  const std::string& where() const { return m_where; }
  const std::string& expected() const { return m_what; }

 private:
  struct Parts {
    std::string where, what;
  };
  explicit InputError(Parts parts)
      : std::runtime_error(parts.where.empty() ? parts.what : parts.where + ": " + parts.what),
        m_where(std::move(parts.where)),
        m_what(std::move(parts.what)) {}

  std::string m_where, m_what;
};

// nlohmann::json's messages begin "[json.exception.parse_error.101] ", naming the library's
// exception class, not the input's problem; libraries that embed them (tinygltf) pass that on.
// Returns `message` with every such tag removed.
inline std::string without_json_exception_tags(std::string message) {
  for (size_t at = message.find("[json.exception."); at != std::string::npos; at = message.find("[json.exception.")) {
    const size_t end = message.find("] ", at);
    if (end == std::string::npos) break;
    message.erase(at, end + 2 - at);
  }
  return message;
}

}  // namespace tbdr
