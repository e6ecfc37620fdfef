// Huge-page backed allocations: mmap'ed, aligned to 2 MiB and marked MADV_HUGEPAGE (Linux
// transparent huge pages, "madvise" mode: only such regions get them). Freed regions are kept for
// the next allocation of the same size, so a process that simulates again reuses its pages.
#include "sim/huge_pages.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tbdr {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;
// From 1 MiB (256 pages of 4 KiB) a request is rounded up to whole huge pages: on the project's
// 2-core VM a fault on a fresh 4 KiB page costs about 30 us, a 2 MiB one as much as 6 - 60 of them
// (bench/README.md "First run"), so even half a huge page unused is cheaper. At 4 MiB the
// million-triangle frame's per-primitive arrays (4.1 MB each), tile list and binning scratch stayed
// on the heap: 10,166 faults in its first simulate(), 60 now, for 0.5 MiB more peak RSS.
constexpr size_t kHugeThreshold = size_t(1) << 20;
// At most this much freed memory is kept mapped for reuse; beyond it, regions go back to the OS
// (it stays resident: the million-triangle frame's arrays come to about 140 MiB).
constexpr size_t kKeptLimit = size_t(256) << 20;

size_t round_up(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// Freed regions by size. A second simulate() in the process (a sweep's next configuration,
// `tbdrsim run --repeat`) asks for the same sizes again (vectors grow by doubling) and gets pages
// that are already mapped: perf showed the kernel zeroing fresh pages (clear_page_erms) at 5 - 20 %
// of the million-triangle frame. Every user writes before it reads (Surface assigns its values,
// a tile buffer is loaded whole after reshape(), UninitializedHugePageAllocator's callers fill
// what they grow; note that Eigen's Vec4 is not zeroed by value-initialization), so a reused
// region's old contents are never seen.
// `fresh`: regions mapped anew and not yet asked about (huge_pages_fresh) nor freed. An anonymous
// mapping reads as zeros (mmap(2), MAP_ANONYMOUS), so the images' zeroing was a second pass over
// every page the kernel had just cleared (callgrind: 10.4 M instructions of the default trace's run).
struct KeptRegions {
  std::mutex mutex;
  std::multimap<size_t, void*> by_size;
  std::set<const void*> fresh;
  size_t bytes = 0;
};
KeptRegions& kept() {
  static KeptRegions* regions = new KeptRegions;  // never destroyed: frees may come during exit
  return *regions;
}

}  // namespace

void* allocate_huge_pages(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugeThreshold) {
    const size_t size = round_up(bytes);
    {
      KeptRegions& k = kept();
      std::lock_guard<std::mutex> lock(k.mutex);
      // The latest region freed at this size (the most likely still in the caches).
      auto it = k.by_size.upper_bound(size);
      if (it != k.by_size.begin() && (--it)->first == size) {
        void* p = it->second;
        k.by_size.erase(it);
        k.bytes -= size;
        return p;
      }
    }
    // Map one huge page more than needed, then unmap the ends so the start is 2 MiB aligned.
    void* mapped = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = uintptr_t(mapped), aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) munmap(mapped, aligned - start);
    const uintptr_t end = start + size + kHugePage;
    if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    void* const p = reinterpret_cast<void*>(aligned);
    try {
      KeptRegions& k = kept();
      std::lock_guard<std::mutex> lock(k.mutex);
      k.fresh.insert(p);
    } catch (const std::bad_alloc&) {  // then it is merely not known to be fresh: its users zero it
    }
    return p;
  }
#endif
  return ::operator new(bytes);
}

bool huge_pages_fresh(const void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugeThreshold) {
    KeptRegions& k = kept();
    std::lock_guard<std::mutex> lock(k.mutex);
    return k.fresh.erase(p) > 0;
  }
#endif
  (void)p, (void)bytes;
  return false;
}

void populate_fresh_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  std::memset(p, 0, bytes);
}

void release_kept_huge_pages() {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  KeptRegions& k = kept();
  std::lock_guard<std::mutex> lock(k.mutex);
  for (const auto& [size, p] : k.by_size) munmap(p, size);
  k.by_size.clear();
  k.bytes = 0;
#endif
}

void free_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugeThreshold) {
    const size_t size = round_up(bytes);
    {
      KeptRegions& k = kept();
      std::lock_guard<std::mutex> lock(k.mutex);
      k.fresh.erase(p);  // its user may have written it
      if (k.bytes + size <= kKeptLimit) {
        try {
          k.by_size.emplace(size, p);
          k.bytes += size;
          return;
        } catch (const std::bad_alloc&) {  // deallocation must not throw: unmap it instead
        }
      }
    }
    munmap(p, size);
    return;
  }
#endif
  ::operator delete(p);
}

// mallopt(3): M_TRIM_THRESHOLD, free memory at the heap's top kept up to 256 MiB instead of returned
// to the OS; M_MMAP_THRESHOLD, blocks up to 32 MiB (its largest value on 64-bit glibc) from the heap
// instead of their own mappings, which free() unmaps. glibc's defaults gave back what a run freed,
// so the next run faulted it in again: the default scene's second run under mali-g710 took 408 page
// faults, 0 with these (bench/README.md "The heap kept, and the texture caches' most recent line").
void keep_freed_heap_memory() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

}  // namespace tbdr
