// Fork-join over the pass's threads for work split into independent blocks (binning's blocks of
// primitives, geometry's ranges of vertices and triangles, the tiles' workers, the savers' blocks).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tbdr {

// Helper threads owned by one calling thread (a thread_local instance) and kept between calls:
// starting and joining a thread per stage and per pass cost more than a small pass's work at 16
// threads (bench/README.md "Thread scaling"). Which block runs on which thread never changes a result:
// every caller's blocks write only their own data.
//
// A run hands each helper it needs its job through the helper's own mailbox (a generation number
// on its own cache line), and the helpers and the caller spin for a short while before they sleep
// on a condition variable: a mutex and one condition variable for every start and every finish
// cost about 24 us a fork-join on this project's 2-core VM (bench/README.md "Fork-join without the
// mutex"), which geometry pays a few times a draw. No spinning when the pool has more threads
// than the machine has CPUs: a spinning helper would take a CPU from the work.
class WorkerPool {
 public:
  static WorkerPool& of_this_thread();
  ~WorkerPool();

  // Runs job(b) for b in [0, blocks): block 0 on the caller, the others on the pool's threads.
  // Returns once every block has finished. A call made from inside a job of the same pool (never
  // done today) runs on freshly started threads instead.
  void run(uint32_t blocks, const std::function<void(uint32_t)>& job);

 private:
  struct alignas(64) Mailbox {
    std::atomic<uint64_t> generation{0};  // stored (release) after `job`: the helper then runs it
    const std::function<void(uint32_t)>* job = nullptr;
  };

  void grow(uint32_t helpers);
  void helper_loop(uint32_t index, Mailbox& mailbox);
  void run_on_new_threads(uint32_t blocks, const std::function<void(uint32_t)>& job);
  // Spins until done() or for about kSpin (sim/parallel.cpp; not at all when m_spin is off); returns done().
  template <class Done>
  bool spin_until(Done done) const;

  std::mutex m_mutex;                         // the condition variables' and m_sleepers'
  std::condition_variable m_start, m_done;
  std::vector<std::thread> m_threads;         // helper i runs block i + 1
  std::vector<std::unique_ptr<Mailbox>> m_mailboxes;  // helper i's
  uint64_t m_generation = 0;                  // run()'s count (the owning thread's)
  std::atomic<uint32_t> m_pending{0};         // helpers of the current run still running
  uint32_t m_sleepers = 0;                    // helpers waiting on m_start
  std::atomic<bool> m_stopping{false}, m_spin{false};
  bool m_busy = false;                        // inside run() (the owning thread's)
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
