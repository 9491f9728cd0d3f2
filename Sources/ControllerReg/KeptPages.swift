#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The last large arena buffer a freed registry left, its pages still resident, for the next large
/// arena.
///
/// A freed large block goes back to the system (the allocator maps such blocks on their own), and
/// the next load of the same size faults every page of its arena in again; on this kind of machine
/// a fault costs as much as writing the page several times over. So the largest buffer freed is
/// kept as it is (a `malloc` block, counted by the allocator as in use) and the next large arena
/// grows it with `realloc`, which moves a mapped block's pages without touching them: a host that
/// loads again after freeing a registry (or a reload) writes the same pages.
///
/// One buffer at most, never larger than the arena that freed it, and only until the end of the
/// next load (`drop()`, called by `FreedMemory.release`), which takes it or gives it back: after a
/// load the process holds what its registries keep and nothing more. Its whole pages read as zero
/// pages in a forked child (`MADV_WIPEONFORK`, cleared before the buffer is used or freed), which
/// then starts as a new process would.
// @unchecked: the one buffer is read and written under `held`'s lock.
final class KeptPages: @unchecked Sendable {
    /// The buffer arenas of large loads leave.
    static let shared = KeptPages()

    /// Buffers below this many bytes are not kept (the allocator reuses their pages itself).
    static let threshold = 256 << 10

    private let held = Locked<(UnsafeMutableRawPointer, Int)?>(nil)

    /// A `malloc` block of `bytes` bytes (at least `threshold`): the kept one if there is one,
    /// resized, else a new one; traps only if the system is out of memory.
    func take(_ bytes: Int) -> UnsafeMutableRawPointer {
        let block = held.withLock { k -> (UnsafeMutableRawPointer, Int)? in
            defer { k = nil }
            return k
        }
        if let (p, n) = block {
            KeptPages.wipeOnFork(p, n, false)
            guard let q = realloc(p, bytes) else { fatalError("controllerreg: out of memory allocating \(bytes) bytes") }
            return q
        }
        guard let p = malloc(bytes) else { fatalError("controllerreg: out of memory allocating \(bytes) bytes") }
        return p
    }

    /// Frees `p` (a `malloc` block of `bytes` bytes): kept when no buffer is kept or the one kept is
    /// smaller (that one is freed), else freed at once.
    func keep(_ p: UnsafeMutableRawPointer, bytes: Int) {
        KeptPages.wipeOnFork(p, bytes, true)
        let unwanted = held.withLock { k -> (UnsafeMutableRawPointer, Int)? in
            guard let old = k else {
                k = (p, bytes)
                return nil
            }
            if old.1 >= bytes { return (p, bytes) }
            k = (p, bytes)
            return old
        }
        if let (q, n) = unwanted { KeptPages.free(q, n) }
    }

    /// Frees the kept buffer, if any.
    func drop() {
        if let (p, n) = held.withLock({ k -> (UnsafeMutableRawPointer, Int)? in
            defer { k = nil }
            return k
        }) {
            KeptPages.free(p, n)
        }
    }

    /// The size of the kept buffer in bytes (0: none).
    var bytes: Int { held.withLock { $0?.1 ?? 0 } }

    /// Frees a block that was kept (its pages inherited by a forked child again first: they are
    /// the allocator's once more).
    private static func free(_ p: UnsafeMutableRawPointer, _ bytes: Int) {
        wipeOnFork(p, bytes, false)
        libcFree(p)
    }

    /// Marks the whole pages inside the `bytes` bytes at `p` to read as zero pages in a forked
    /// child (`on`), or to be inherited as usual. The pages the block shares with the allocator's
    /// records or other blocks are left alone. Linux only (elsewhere nothing).
    private static func wipeOnFork(_ p: UnsafeMutableRawPointer, _ bytes: Int, _ on: Bool) {
        #if os(Linux)
        let start = (Int(bitPattern: p) + pageSize - 1) & ~(pageSize - 1)
        let end = (Int(bitPattern: p) + bytes) & ~(pageSize - 1)
        if end > start, let first = UnsafeMutableRawPointer(bitPattern: start) {
            _ = madvise(first, end - start, on ? MADV_WIPEONFORK : MADV_KEEPONFORK)
        }
        #endif
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
}
