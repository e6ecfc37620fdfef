// Where the tests find the source tree and the build tree. The paths live in one generated source
// file (test_paths.cpp in the build folder), not in macros given to every test file, so the test
// objects do not depend on where the tree was cloned and ccache reuses them across clones.
#pragma once
#include <string>

namespace tbdr_test_paths {
const std::string& source_dir();
const std::string& binary_dir();
}  // namespace tbdr_test_paths

#define TBDR_SOURCE_DIR (::tbdr_test_paths::source_dir())
#define TBDR_BINARY_DIR (::tbdr_test_paths::binary_dir())
