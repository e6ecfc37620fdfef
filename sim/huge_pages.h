// An allocator for large arrays written once from start to end (the pass's screen primitives,
// the images' surfaces): they are backed by transparent huge pages, so first touch costs a page fault per 2 MiB rather
// than per 4 KiB. Small arrays, and systems without madvise, use the ordinary heap.
#pragma once

#include <cstddef>
#include <new>

namespace tbdr {

void* allocate_huge_pages(size_t bytes);
void free_huge_pages(void* p, size_t bytes);

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(allocate_huge_pages(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { free_huge_pages(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
};

}  // namespace tbdr
