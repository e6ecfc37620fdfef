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

}  // namespace tbdr
