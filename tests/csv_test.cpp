// CSV by RFC 4180 (tools/commands/csv.h): quoted cells with commas, line breaks and doubled quotes,
// comments and blank lines, errors naming the physical line; read through measurement files and grids.
#include "tools/commands/csv.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/errors.h"
#include "test_paths.h"
#include "tools/commands/measurements.h"
#include "tools/commands/sweep.h"

namespace {

namespace fs = std::filesystem;
using tbdr::InputError;

std::vector<tbdr::csv::Record> records(const std::string& text) {
  std::vector<tbdr::csv::Record> out;
  tbdr::csv::read_records(text, "t.csv", [&](tbdr::csv::Record& r) { out.push_back(r); });
  return out;
}

std::string error_of(const std::string& text) {
  try {
    records(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tbdr_csv_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(Csv, QuotedCellsKeepCommasLineBreaksQuotesAndSpaces) {
  const auto r = records("a, b ,\"c, d\"\r\n\"two\nlines\",\"say \"\"hi\"\"\",\"  kept  \"\n# a comment\n\n x ,,\n");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].cells, (std::vector<std::string>{"a", "b", "c, d"}));
  EXPECT_EQ(r[1].cells, (std::vector<std::string>{"two\nlines", "say \"hi\"", "  kept  "}));
  EXPECT_EQ(r[1].line, 2u);
  EXPECT_EQ(r[2].cells, (std::vector<std::string>{"x", "", ""}));
  EXPECT_EQ(r[2].line, 6u) << "lines are counted inside quoted cells too";
  // A quoted cell may start a record with '#': not a comment.
  EXPECT_EQ(records("\"#1\",b\n")[0].cells.front(), "#1");
}

TEST(Csv, MalformedQuotesAreRefusedNamingTheLine) {
  EXPECT_NE(error_of("a,b\n\"open\nstill open").find("t.csv:2: unterminated quoted cell"), std::string::npos)
      << error_of("a,b\n\"open\nstill open");
  EXPECT_NE(error_of("a,b\n\"x\"y,z\n").find("t.csv:2: text after a quoted cell's closing quote"), std::string::npos);
  EXPECT_NE(error_of("a\nb\nab\"c\n").find("t.csv:3: a quote inside an unquoted cell"), std::string::npos);
}

TEST(Csv, MeasurementFileWithAQuotedLabelOverTwoLines) {
  const fs::path dir = temp_dir("measurements");
  const std::string trace = (fs::path(TBDR_SOURCE_DIR) / "traces" / "features" / "textured.json").string();
  // A counter export's quoted header (a comma in the Streamline title) and a label spanning two lines.
  std::ofstream(dir / "m.csv") << "traces,\"Output external read bytes\",label\n"
                               << "\"" << trace << "\",\"1,000\",\"first\nframe\"\n"
                               << trace << ",2000,\"second\"\n";
  std::vector<tbdr::validation::Comparison> rows;
  try {
    rows = tbdr::measurements::read_measurements(dir / "m.csv");
  } catch (const InputError& e) {
    // "1,000" is no number: the row is refused naming line 2, the first of its record.
    EXPECT_NE(std::string(e.what()).find("m.csv:2"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "m.csv") << "traces,\"Output external read bytes\",label\n"
                               << "\"" << trace << "\",1000,\"first\nframe\"\n"
                               << trace << ",2000,\"second\"\n";
  rows = tbdr::measurements::read_measurements(dir / "m.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].measured, 1000.0);
  EXPECT_EQ(rows[1].measured, 2000.0);
  fs::remove_all(dir);
}

TEST(Csv, GridCellsAreQuotedToo) {
  const fs::path dir = temp_dir("grid");
  std::ofstream(dir / "g.csv") << "tile,\"dram.bytes_per_cycle\"\n\"16x16\",8\n# a comment\n32x32,\"16\"\n";
  tbdr::sweep::SweepOptions o;
  o.grid = (dir / "g.csv").string();
  o.steps.push_back({tbdr::sweep::Step::Kind::grid, ""});
  const auto configurations = tbdr::sweep::expand_configurations(o);
  ASSERT_EQ(configurations.size(), 2u);
  EXPECT_EQ(configurations[1], (std::vector<std::string>{"tile=32x32", "dram.bytes_per_cycle=16"}));
  std::ofstream(dir / "g.csv") << "tile\n\"16x16\"x\n";
  EXPECT_THROW(tbdr::sweep::expand_configurations(o), InputError);
  fs::remove_all(dir);
}
