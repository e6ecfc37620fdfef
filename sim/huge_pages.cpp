// Huge-page backed allocations: mmap'ed, aligned to 2 MiB and marked MADV_HUGEPAGE (Linux
// transparent huge pages, "madvise" mode: only such regions get them).
#include "sim/huge_pages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tbdr {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;
// Below this, a huge page would mostly go unused: the heap serves the request.
constexpr size_t kHugeThreshold = size_t(4) << 20;

size_t round_up(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace

void* allocate_huge_pages(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugeThreshold) {
    const size_t size = round_up(bytes);
    // Map one huge page more than needed, then unmap the ends so the start is 2 MiB aligned.
    void* mapped = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = uintptr_t(mapped), aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) munmap(mapped, aligned - start);
    const uintptr_t end = start + size + kHugePage;
    if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<void*>(aligned);
  }
#endif
  return ::operator new(bytes);
}

void free_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugeThreshold) {
    munmap(p, round_up(bytes));
    return;
  }
#endif
  ::operator delete(p);
}

}  // namespace tbdr
