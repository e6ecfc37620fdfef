// Progress lines of long work (tools/commands/progress.h): plain lines with "K of N" and an estimate of the
// time left when stderr is not a terminal, one line redrawn and erased on a terminal, silence for
// work quicker than the quiet period.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "tools/commands/progress.h"

namespace {

size_t count_lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST(Progress, PlainLinesCountTheStepsAndEstimateTheTimeLeft) {
  std::ostringstream out;
  {
    tbdr::StepProgress progress("validate", 3, out, false, 0.0);
    progress.next("simulating a.json");
    progress.next("simulating b.json");
    progress.next("simulating c.json");
  }
  const std::string text = out.str();
  EXPECT_EQ(count_lines(text), 3u) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << "no redrawing outside a terminal";
  EXPECT_EQ(text.rfind("tbdrsim validate: 1 of 3: simulating a.json (0:00 elapsed)\n", 0), 0u) << text;
  EXPECT_NE(text.find("tbdrsim validate: 2 of 3: simulating b.json (0:00 elapsed, about 0:00 left)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("3 of 3: simulating c.json"), std::string::npos) << text;
}

TEST(Progress, QuickWorkPrintsNothingOutsideATerminal) {
  std::ostringstream out;
  {
    tbdr::StepProgress progress("advise", 0, out, false, 3600.0);
    progress.next("simulating t.json");
    progress.set_total(2);
    progress.next("pricing store-dont-care:f0.scene.a1");
  }
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, ATerminalGetsOneLineRedrawnAndErased) {
  std::ostringstream out;
  {
    tbdr::StepProgress progress("advise", 2, out, true, 3600.0);
    progress.next("simulating t.json");
    progress.next("pricing x");
  }
  const std::string text = out.str();
  EXPECT_EQ(count_lines(text), 0u) << text;
  EXPECT_NE(text.find("\rtbdrsim advise: 2 of 2: pricing x (0:00 elapsed, about 0:00 left)\x1b[K"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K") << "the line is erased at the end";
}
