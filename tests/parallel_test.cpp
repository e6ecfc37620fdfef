// sim/parallel.h: for_chunks runs every chunk exactly once on at most the threads asked for, and
// chunk_count's bounds (a few chunks a thread, none under the minimum size).
#include "sim/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tbdr {
namespace {

TEST(ForChunks, EveryChunkRunsOnceOnAtMostTheThreadsAsked) {
  for (uint32_t threads : {1u, 2u, 3u, 8u})
    for (uint32_t chunks : {0u, 1u, 5u, 64u, 257u}) {
      std::vector<std::atomic<int>> runs(chunks);
      std::mutex mutex;
      std::set<std::thread::id> ids;
      for_chunks(threads, chunks, [&](uint32_t c) {
        runs[c].fetch_add(1);
        const std::lock_guard<std::mutex> lock(mutex);
        ids.insert(std::this_thread::get_id());
      });
      for (uint32_t c = 0; c < chunks; ++c)
        EXPECT_EQ(runs[c].load(), 1) << threads << " threads, chunk " << c << " of " << chunks;
      EXPECT_LE(ids.size(), std::min(threads, std::max(chunks, 1u))) << threads << " threads, " << chunks << " chunks";
    }
}

TEST(ForChunks, AChunksExceptionReachesTheCallerAfterTheOthersFinish) {
  std::atomic<int> finished{0};
  EXPECT_THROW(for_chunks(4, 40,
                          [&](uint32_t c) {
                            if (c == 7) throw std::runtime_error("chunk 7");
                            finished.fetch_add(1);
                          }),
               std::runtime_error);
  // The thread whose chunk threw takes no more chunks; the other three drain the counter.
  EXPECT_EQ(finished.load(), 39);
}

TEST(ChunkCount, AFewAThreadNoneUnderTheMinimum) {
  EXPECT_EQ(chunk_count(1000000, 4096, 1), 1u);                      // one thread: one chunk
  EXPECT_EQ(chunk_count(1000000, 4096, 16), kChunksPerThread * 16);  // capped at a few a thread
  EXPECT_EQ(chunk_count(31 * 4096 + 100, 4096, 16), 31u);            // each at least the minimum
  EXPECT_EQ(chunk_count(8191, 4096, 16), 1u);                        // under two minimums: one
  EXPECT_EQ(chunk_count(10, 0, 2), kChunksPerThread * 2);            // no minimum: the cap
}

}  // namespace
}  // namespace tbdr
