// Errors shared by every room (models/ is the bottom of the import chain, so it lives here):
// InputError is bad user input (a trace, a parameter, a file),
// reported by the CLI in one line with exit code 2 (architecture.md "Style").
#pragma once

#include <stdexcept>
#include <string>

namespace tbdr {

// `where` names the file and the JSON path / draw index / parameter; `what` says what was expected.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& where, const std::string& what)
      : std::runtime_error(where.empty() ? what : where + ": " + what), m_where(where), m_what(what) {}
  const std::string& where() const { return m_where; }
  const std::string& expected() const { return m_what; }

 private:
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
