// The calling thread's pool of helper threads behind for_blocks (sim/parallel.h).
#include "sim/parallel.h"

namespace tbdr {

WorkerPool& WorkerPool::of_this_thread() {
  thread_local WorkerPool pool;
  return pool;
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_start.notify_all();
  for (std::thread& t : m_threads) t.join();
}

// Starts helpers until `helpers` exist; a failure to start one (std::system_error) propagates
// with the pool still consistent (the started ones stay).
void WorkerPool::grow(uint32_t helpers) {
  while (m_threads.size() < helpers) {
    const uint32_t index = uint32_t(m_threads.size());
    m_threads.emplace_back([this, index] { helper_loop(index); });
  }
}

void WorkerPool::helper_loop(uint32_t index) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(m_mutex);
  for (;;) {
    m_start.wait(lock, [&] { return m_stopping || (m_generation != seen && index + 1 < m_blocks); });
    if (m_stopping) return;
    seen = m_generation;
    const std::function<void(uint32_t)>& job = *m_job;
    lock.unlock();
    job(index + 1);  // for_blocks catches the job's exceptions
    lock.lock();
    if (--m_pending == 0) m_done.notify_one();
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
  {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_busy) {
      lock.unlock();
      return run_on_new_threads(blocks, job);
    }
    grow(blocks - 1);
    m_busy = true;
    m_job = &job;
    m_blocks = blocks;
    m_pending = blocks - 1;
    ++m_generation;
  }
  m_start.notify_all();
  job(0);
  std::unique_lock<std::mutex> lock(m_mutex);
  m_done.wait(lock, [&] { return m_pending == 0; });
  m_busy = false;
  m_blocks = 0;
  m_job = nullptr;
}

}  // namespace tbdr
