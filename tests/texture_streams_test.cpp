// TextureLineStreams (sim/pass/texture_streams.h): streams written by several writers, render
// after render, read back whole and in order.
#include "sim/pass/texture_streams.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

std::vector<uint64_t> stream_of(size_t lines, uint64_t seed) {
  std::vector<uint64_t> s(lines);
  for (size_t i = 0; i < lines; ++i) s[i] = seed * 1000003 + i;
  return s;
}

// Two renders, three writers taking streams in an interleaved order, empty streams, and streams
// larger than a writer's first chunk: every stream reads back as written.
TEST(TextureLineStreams, WritersStreamsReadBackAsWrittenRenderAfterRender) {
  tbdr::TextureLineStreams streams;
  std::vector<std::vector<uint64_t>> expected;
  for (int render = 0; render < 2; ++render) {
    const size_t tiles = 40;
    const size_t first = streams.add_streams(tiles);
    ASSERT_EQ(first, expected.size());
    std::vector<tbdr::TextureLineStreams::Writer> writers(3);
    for (size_t t = 0; t < tiles; ++t) {
      const size_t lines = t % 7 == 0 ? 0 : (t % 5 == 0 ? 70000 : 1000 + 37 * t);
      expected.push_back(stream_of(lines, 100 * render + t));
      const uint32_t writer = uint32_t((t * 5 + render) % 3);
      streams.set_local(first + t, writers[writer].append(expected.back()), writer);
    }
    streams.adopt({&writers[0], &writers[1], &writers[2]});
  }
  ASSERT_EQ(streams.size(), expected.size());
  uint64_t lines = 0;
  for (size_t s = 0; s < expected.size(); ++s) {
    const std::span<const uint64_t> got = streams[s];
    EXPECT_EQ(std::vector<uint64_t>(got.begin(), got.end()), expected[s]) << "stream " << s;
    lines += expected[s].size();
  }
  EXPECT_EQ(streams.line_count(), lines);
  EXPECT_GE(streams.memory_bytes(), lines * sizeof(uint64_t));
}

}  // namespace
