// A test whose Debian package (scene files, matplotlib) is missing skips, except under tools/test,
// which installs every package and sets TBDR_REQUIRE_EXTERNAL: there a missing package is a failure,
// so CI cannot pass with those tests quietly skipped.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

// `message`: a stream expression (a << b << ...).
#define TBDR_SKIP_OR_FAIL(message)                                \
  do {                                                            \
    if (std::getenv("TBDR_REQUIRE_EXTERNAL")) {                   \
      GTEST_FAIL() << message << " (TBDR_REQUIRE_EXTERNAL is set)"; \
    } else {                                                      \
      GTEST_SKIP() << message;                                    \
    }                                                             \
  } while (0)
