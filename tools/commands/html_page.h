// What the HTML pages (a run's report, a comparison of two reports, a sweep's summary) share: the
// style sheet, the script helpers, and how JSON data goes into a page for its script to draw.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tbdr::html {

// The pages' style sheet.
extern const char* const kPageStyle;

// Script helpers every page's script starts with: number formatting (group, bytes), element
// builders (el, svg), sortable tables, the palettes, and the error marker the browser test reads
// (<body data-rendered="error"> on any exception; each page sets "ok" when it finished).
extern const char* const kPageHelpers;

// The run report's script in two halves (html_report_script.cpp, html_report_passes.cpp); the page
// runs kReportScript + kReportPassesScript + "render();".
extern const char* const kReportScript;
extern const char* const kReportPassesScript;

// Text inside an HTML element: <, > and & escaped.
std::string escape(const std::string& text);

// JSON inside <script>: every '<' escaped so no "</script>" or "<!--" can end the block early.
std::string script_json(const nlohmann::json& value);

// A self-contained page: each (id, value) of `data` as a <script type="application/json" id=...>
// block, then kPageHelpers and `script`; no network at view time.
std::string page(const std::string& title, const std::vector<std::pair<std::string, nlohmann::json>>& data,
                 const std::string& script);

}  // namespace tbdr::html
