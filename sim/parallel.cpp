// The calling thread's pool of helper threads behind for_blocks (sim/parallel.h).
#include "sim/parallel.h"

#include <chrono>

namespace tbdr {
namespace {

// How long a helper waits for its next job, or the caller for the helpers, before sleeping: longer
// than the serial steps between geometry's parallel loops, short against a pass.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

WorkerPool& WorkerPool::of_this_thread() {
  thread_local WorkerPool pool;
  return pool;
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping.store(true, std::memory_order_release);
  }
  m_start.notify_all();
  for (std::thread& t : m_threads) t.join();
}

template <class Done>
bool WorkerPool::spin_until(Done done) const {
  if (!m_spin.load(std::memory_order_relaxed)) return done();
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (uint32_t i = 1;; ++i) {
    if (done()) return true;
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) return done();
    spin_pause();
  }
}

// Starts helpers until `helpers` exist; a failure to start one (std::system_error) propagates
// with the pool still consistent (the started ones stay; a mailbox may wait for its thread).
void WorkerPool::grow(uint32_t helpers) {
  while (m_threads.size() < helpers) {
    const uint32_t index = uint32_t(m_threads.size());
    if (m_mailboxes.size() == index) m_mailboxes.push_back(std::make_unique<Mailbox>());
    Mailbox& mailbox = *m_mailboxes[index];
    m_threads.emplace_back([this, index, &mailbox] { helper_loop(index, mailbox); });
  }
  m_spin.store(m_threads.size() + 1 <= std::max(1u, std::thread::hardware_concurrency()), std::memory_order_relaxed);
}

void WorkerPool::helper_loop(uint32_t index, Mailbox& mailbox) {
  uint64_t seen = 0;
  auto woken = [&] {
    return m_stopping.load(std::memory_order_acquire) || mailbox.generation.load(std::memory_order_acquire) != seen;
  };
  for (;;) {
    if (!spin_until(woken)) {
      // Under the mutex: run() stores the generation before it takes the mutex to see m_sleepers,
      // so either this check sees the new generation or run() sees this helper asleep.
      std::unique_lock<std::mutex> lock(m_mutex);
      ++m_sleepers;
      m_start.wait(lock, woken);
      --m_sleepers;
    }
    if (m_stopping.load(std::memory_order_acquire)) return;
    seen = mailbox.generation.load(std::memory_order_acquire);
    (*mailbox.job)(index + 1);  // for_blocks catches the job's exceptions
    if (m_pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(m_mutex);  // the caller may be checking m_pending under it
      m_done.notify_one();
    }
  }
}

void WorkerPool::run_on_new_threads(uint32_t blocks, const std::function<void(uint32_t)>& job) {
  std::vector<std::thread> threads;
  for (uint32_t b = 1; b < blocks; ++b) threads.emplace_back(job, b);
  job(0);
  for (std::thread& t : threads) t.join();
}

void WorkerPool::run(uint32_t blocks, const std::function<void(uint32_t)>& job) {
  if (blocks == 0) return;
  if (m_busy) return run_on_new_threads(blocks, job);
  grow(blocks - 1);
  m_busy = true;
  ++m_generation;
  m_pending.store(blocks - 1, std::memory_order_relaxed);
  for (uint32_t h = 0; h + 1 < blocks; ++h) {
    m_mailboxes[h]->job = &job;
    m_mailboxes[h]->generation.store(m_generation, std::memory_order_release);
  }
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_sleepers > 0) m_start.notify_all();
  }
  job(0);
  auto finished = [&] { return m_pending.load(std::memory_order_acquire) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_done.wait(lock, finished);
  }
  m_busy = false;
}

}  // namespace tbdr
