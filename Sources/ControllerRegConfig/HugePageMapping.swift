#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An anonymous mapping that starts at a huge-page (2 MiB) boundary and asks for transparent huge
/// pages (`MADV_HUGEPAGE`, Linux) from a given offset on: a large bump-allocated region that
/// faults in 2 MiB at a time (one fault and one page-table entry where small pages take 512 of
/// each). Where the system gives no huge pages it works with small pages. Pages never written
/// are never touched; `unmap` or `trim` give its memory back (nothing else does).
package struct HugePageMapping: @unchecked Sendable {
    /// The size and alignment of a huge page.
    package static let hugePage = 2 << 20

    /// The mapping's first byte (huge-page aligned).
    package let start: UnsafeMutableRawPointer
    /// How many bytes are mapped from `start`.
    package private(set) var bytes: Int

    /// A mapping of `bytes` bytes (rounded up to whole huge pages), its first `smallPages` bytes
    /// (rounded up to whole huge pages) left in small pages, or nil when the system refuses it.
    package init?(bytes: Int, smallPages: Int = 0) {
        let huge = HugePageMapping.hugePage
        let usable = (max(bytes, 1) + huge - 1) & ~(huge - 1)
        // One huge page more, to align the start to one; the unaligned ends are unmapped.
        let size = usable + huge
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
        #else
        let flags = MAP_PRIVATE | MAP_ANON
        #endif
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, flags, -1, 0), p != MAP_FAILED else { return nil }
        let aligned = (UInt(bitPattern: p) + UInt(huge - 1)) & ~UInt(huge - 1)
        start = UnsafeMutableRawPointer(bitPattern: aligned)!
        self.bytes = usable
        let head = start - p
        if head > 0 { munmap(p, head) }
        if size - head > usable { munmap(start + usable, size - head - usable) }
        #if os(Linux)
        // Advice only: where it is refused the mapping works with small pages.
        let small = min((max(smallPages, 0) + huge - 1) & ~(huge - 1), usable)
        if usable > small { _ = madvise(start + small, usable - small, MADV_HUGEPAGE) }
        #endif
    }

    /// Unmaps every page from `keeping` bytes (rounded up to a whole small page) on: the part of
    /// a huge page past that point goes back to the system too (the kernel splits the page).
    package mutating func trim(keeping: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let kept = min((max(keeping, 0) + page - 1) & ~(page - 1), bytes)
        if kept < bytes { munmap(start + kept, bytes - kept) }
        bytes = kept
    }

    /// Unmaps all of it; the mapping must not be used afterwards.
    package func unmap() {
        if bytes > 0 { munmap(start, bytes) }
    }
}
