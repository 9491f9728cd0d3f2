#if canImport(Glibc)
import Glibc
#endif

/// Returning memory a large load has freed to the system. The allocator keeps freed pages
/// resident for reuse, so after a load the process would still hold the pages of its parse tree
/// and decoded definitions (several times what the registry keeps) although nothing uses them.
enum FreedMemory {
    /// Loads with less text than this are not worth the trim (the allocator reuses their pages).
    static let threshold = 256 << 10

    /// After a load of `textBytes` bytes of document text has released its intermediate forms:
    /// returns the allocator's free pages to the system (glibc `malloc_trim`; elsewhere nothing).
    /// Also returns the buffer a freed registry left for the next load (`KeptPages`), if this load
    /// did not take it.
    static func release(afterLoadOf textBytes: Int) {
        KeptPages.shared.drop()
        if textBytes >= threshold, let trim { _ = trim(0) }
    }

    /// glibc's `malloc_trim` (its header is not part of Swift's Glibc module), nil elsewhere.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let f = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(f, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
