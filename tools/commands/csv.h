// Reading CSV files by RFC 4180 (sweep grids, calibrate's and validate's measurement files): cells in
// double quotes may hold commas, line breaks and doubled quotes.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tbdr::csv {

// One record of a CSV text: the line it starts on (1-based) and its cells.
struct Record {
  size_t line = 0;
  std::vector<std::string> cells;
};

// The records of `text` (RFC 4180, www.rfc-editor.org/rfc/rfc4180 section 2): cells separated by ',',
// records by CRLF or LF; a cell in double quotes keeps commas, line breaks and "" (one quote) exactly.
// Unquoted cells are trimmed of spaces and tabs (hand-written files align their columns); a quoted cell
// may have spaces around its quotes, not other text. Lines that are blank or whose first non-blank
// character is '#' between records are comments, skipped. An unterminated quote, text after a closing
// quote or a quote inside an unquoted cell throws InputError naming FILE:LINE. `each` is called per
// record as it is read (a caller's row cap then holds before the rest is parsed).
void read_records(const std::string& text, const std::string& file, const std::function<void(Record&)>& each);

}  // namespace tbdr::csv
