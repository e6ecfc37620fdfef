// An allocator for large arrays written once from start to end (the pass's screen primitives,
// the images' surfaces): they are backed by transparent huge pages, so first touch costs a page fault per 2 MiB rather
// than per 4 KiB. Arrays under 1 MiB, and systems without madvise, use the ordinary heap (whose
// large blocks come in 4 KiB pages: glibc serves them from its heap once a freed mmap raised its
// mmap threshold, as the trace reader's file buffer does).
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace tbdr {

void* allocate_huge_pages(size_t bytes);
// Freed regions are kept (up to 256 MiB) for the next allocation of their size (huge_pages.cpp).
void free_huge_pages(void* p, size_t bytes);
// Whether `p` (of `bytes`) is a region this process mapped anew for allocate_huge_pages and nobody
// has asked about since: its pages are the kernel's zero pages, untouched. Asked once, before the
// caller writes to it (a second call answers false), so that a caller that zeroes what it allocates
// need not write zeros over zeros (ImageStore).
bool huge_pages_fresh(const void* p, size_t bytes);
// Maps the pages of [p, p + bytes), p 4 KiB aligned, as a write to each would, without writing
// (Linux 5.14 MADV_POPULATE_WRITE; elsewhere, or on an older kernel, it writes zeros): for a fresh
// region (huge_pages_fresh), whose contents are zeros either way.
void populate_fresh_pages(void* p, size_t bytes);
// Unmaps every kept region.
void release_kept_huge_pages();
// Lets the process's heap keep what it frees for the next allocation instead of returning it to
// the OS (glibc; elsewhere nothing): programs that simulate more than once call it first.
void keep_freed_heap_memory();

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

// The same, but a vector's resize() leaves new elements of trivial types uninitialized instead of
// zeroing them: for arrays whose new elements are written at once after growing (the screen
// primitives that geometry's threads copy in). Zeroing first would touch every new page from one
// thread, and write it twice.
template <class T>
struct UninitializedHugePageAllocator : HugePageAllocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitializedHugePageAllocator<U>;
  };
  UninitializedHugePageAllocator() = default;
  template <class U>
  UninitializedHugePageAllocator(const UninitializedHugePageAllocator<U>&) {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-initialization: no value for trivial types
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const UninitializedHugePageAllocator<U>&) const { return true; }
};

}  // namespace tbdr
