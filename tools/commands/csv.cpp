// Reading CSV files by RFC 4180 (tools/commands/csv.h).
#include "tools/commands/csv.h"

#include "models/errors.h"

namespace tbdr::csv {
namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

// Reads records from a text, one character at a time; `m_line` counts line breaks, quoted ones too,
// so an error names the physical line a spreadsheet or editor shows.
class Reader {
 public:
  Reader(const std::string& text, const std::string& file) : m_text(text), m_file(file) {}

  void records(const std::function<void(Record&)>& each) {
    while (m_at < m_text.size()) {
      if (skip_comment_or_blank_line()) continue;
      Record r = record();
      each(r);
    }
  }

 private:
  std::string where(size_t line) const { return m_file + ":" + std::to_string(line); }

  // A line holding only blanks (or a lone CR), or whose first non-blank character is '#'.
  bool skip_comment_or_blank_line() {
    size_t i = m_at;
    while (i < m_text.size() && (blank(m_text[i]) || m_text[i] == '\r')) ++i;
    if (i < m_text.size() && m_text[i] != '\n' && m_text[i] != '#') return false;
    const size_t end = m_text.find('\n', i);
    m_at = end == std::string::npos ? m_text.size() : end + 1;
    ++m_line;
    return true;
  }

  Record record() {
    Record r{m_line, {}};
    for (;;) {
      r.cells.push_back(cell(r.line));
      if (m_at >= m_text.size()) break;
      const char c = m_text[m_at++];
      if (c == ',') continue;
      if (c == '\r' && m_at < m_text.size() && m_text[m_at] == '\n') ++m_at;
      ++m_line;  // '\n' (or a lone '\r'): the record ends
      break;
    }
    return r;
  }

  // One cell, leaving m_at on the ',' or line break after it (or at the end).
  std::string cell(size_t record_line) {
    while (m_at < m_text.size() && blank(m_text[m_at])) ++m_at;
    if (m_at < m_text.size() && m_text[m_at] == '"') return quoted_cell(record_line);
    const size_t start = m_at;
    while (m_at < m_text.size() && m_text[m_at] != ',' && m_text[m_at] != '\n' && m_text[m_at] != '\r') {
      if (m_text[m_at] == '"')
        throw InputError(where(m_line), "a quote inside an unquoted cell (quote the whole cell and double the quote: \"a \"\"b\"\"\")");
      ++m_at;
    }
    size_t end = m_at;
    while (end > start && blank(m_text[end - 1])) --end;
    return m_text.substr(start, end - start);
  }

  std::string quoted_cell(size_t record_line) {
    const size_t opened_on = m_line;
    ++m_at;  // the opening quote
    std::string value;
    for (;;) {
      if (m_at >= m_text.size())
        throw InputError(where(opened_on), "unterminated quoted cell (record from line " + std::to_string(record_line) + ")");
      const char c = m_text[m_at++];
      if (c == '"' && m_at < m_text.size() && m_text[m_at] == '"') {
        value += '"';
        ++m_at;
      } else if (c == '"') {
        break;
      } else {
        if (c == '\n') ++m_line;
        value += c;
      }
    }
    while (m_at < m_text.size() && blank(m_text[m_at])) ++m_at;
    if (m_at < m_text.size() && m_text[m_at] != ',' && m_text[m_at] != '\n' && m_text[m_at] != '\r')
      throw InputError(where(m_line), "text after a quoted cell's closing quote (a quote inside a quoted cell is written \"\")");
    return value;
  }

  const std::string& m_text;
  const std::string& m_file;
  size_t m_at = 0, m_line = 1;
};

}  // namespace

void read_records(const std::string& text, const std::string& file, const std::function<void(Record&)>& each) {
  Reader(text, file).records(each);
}

}  // namespace tbdr::csv
