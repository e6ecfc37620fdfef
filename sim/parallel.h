// Fork-join over the pass's threads for work split into independent blocks (binning's blocks of
// primitives, geometry's ranges of vertices and triangles, the tiles' workers, the savers' blocks).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tbdr {

// Helper threads owned by one calling thread (a thread_local instance) and kept between calls:
// starting and joining a thread per stage and per pass cost more than a small pass's work at 16
// threads (bench/README.md "Thread scaling"). Which block runs on which thread never changes a result:
// every caller's blocks write only their own data.
class WorkerPool {
 public:
  static WorkerPool& of_this_thread();
  ~WorkerPool();

  // Runs job(b) for b in [0, blocks): block 0 on the caller, the others on the pool's threads.
  // Returns once every block has finished. A call made from inside a job of the same pool (never
  // done today) runs on freshly started threads instead.
  void run(uint32_t blocks, const std::function<void(uint32_t)>& job);

 private:
  void grow(uint32_t helpers);
  void helper_loop(uint32_t index);
  void run_on_new_threads(uint32_t blocks, const std::function<void(uint32_t)>& job);

  std::mutex m_mutex;
  std::condition_variable m_start, m_done;
  std::vector<std::thread> m_threads;  // helper i runs block i + 1
  const std::function<void(uint32_t)>* m_job = nullptr;
  uint64_t m_generation = 0;  // bumped per run(); a helper runs each generation's block once
  uint32_t m_blocks = 0, m_pending = 0;
  bool m_busy = false, m_stopping = false;
};

// Block b of `blocks` contiguous ranges of [0, n): [n b / blocks, n (b + 1) / blocks). A block's
// loop takes its bounds from here, once: written into the loop's condition, a bound is recomputed
// (a 64-bit division) at every element whenever the loop's stores may alias what it reads, as a
// byte store or one of the same integer type may.
struct BlockRange {
  size_t begin, end;
};
inline BlockRange block_range(size_t n, uint32_t b, uint32_t blocks) {
  return {n * b / blocks, n * (b + 1) / blocks};
}

// Runs body(b) for b in [0, blocks) on as many threads (the caller's thread takes block 0). An
// exception of a block (std::bad_alloc, say) is rethrown on the caller's thread once every block
// has finished.
template <class Body>
void for_blocks(uint32_t blocks, Body body) {
  if (blocks <= 1) {
    if (blocks == 1) body(0u);
    return;
  }
  std::vector<std::exception_ptr> errors(blocks);
  WorkerPool::of_this_thread().run(blocks, [&](uint32_t b) {
    try {
      body(b);
    } catch (...) {
      errors[b] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// Runs body(c) for c in [0, chunks) on up to `threads` threads, each taking the next chunk from a
// shared counter. With a few chunks a thread, a CPU running slower than the others (a virtual
// CPU's share of its host moves: bench/README.md "Unequal CPUs, and the tiles in runs") takes fewer
// chunks instead of holding up the join, as one block a thread would. Chunks write only their own
// data, so which thread runs which never changes a result.
template <class Body>
void for_chunks(uint32_t threads, uint32_t chunks, Body body) {
  const uint32_t runners = std::min(threads, chunks);
  if (runners <= 1) {
    for (uint32_t c = 0; c < chunks; ++c) body(c);
    return;
  }
  std::atomic<uint32_t> next{0};
  for_blocks(runners, [&](uint32_t) {
    for (uint32_t c = next.fetch_add(1, std::memory_order_relaxed); c < chunks;
         c = next.fetch_add(1, std::memory_order_relaxed))
      body(c);
  });
}

// How many chunks to cut n items into for for_chunks: kChunksPerThread a thread, each of at least
// `min_items` (one chunk when n is under 2 min_items or there is one thread).
constexpr uint32_t kChunksPerThread = 4;
inline uint32_t chunk_count(size_t n, size_t min_items, uint32_t threads) {
  if (threads <= 1) return 1;
  return uint32_t(std::clamp<size_t>(n / std::max<size_t>(1, min_items), 1, size_t(kChunksPerThread) * threads));
}

}  // namespace tbdr
