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
/// load the process holds what its registries keep and nothing more. A forked child does not use
/// the buffer its parent kept (it would copy every page it writes): its first large arena frees it
/// and starts afresh, as a new process would.
// @unchecked: the one buffer is read and written under `held`'s lock.
final class KeptPages: @unchecked Sendable {
    /// The buffer arenas of large loads leave.
    static let shared = KeptPages()

    /// Buffers below this many bytes are not kept (the allocator reuses their pages itself).
    static let threshold = 256 << 10

    /// The kept block, its size, and the process that kept it.
    private let held = Locked<(block: UnsafeMutableRawPointer, bytes: Int, process: pid_t)?>(nil)

    /// A `malloc` block of `bytes` bytes (at least `threshold`): the kept one if there is one,
    /// resized, else a new one; traps only if the system is out of memory.
    func take(_ bytes: Int) -> UnsafeMutableRawPointer {
        if let kept = held.withLock({ k -> (block: UnsafeMutableRawPointer, bytes: Int, process: pid_t)? in
            defer { k = nil }
            return k
        }) {
            if kept.process == getpid() {
                guard let p = realloc(kept.block, bytes) else {
                    fatalError("controllerreg: out of memory allocating \(bytes) bytes")
                }
                return p
            }
            // Kept by the parent of this forked child: its pages are the parent's, shared until
            // written; unmapped at once, not copied.
            free(kept.block)
        }
        guard let p = malloc(bytes) else { fatalError("controllerreg: out of memory allocating \(bytes) bytes") }
        return p
    }

    /// Frees `p` (a `malloc` block of `bytes` bytes): kept when no buffer is kept or the one kept is
    /// smaller (that one is freed), else freed at once.
    func keep(_ p: UnsafeMutableRawPointer, bytes: Int) {
        let process = getpid()
        let unwanted = held.withLock { k -> UnsafeMutableRawPointer? in
            guard let old = k else {
                k = (p, bytes, process)
                return nil
            }
            if old.bytes >= bytes && old.process == process { return p }
            k = (p, bytes, process)
            return old.block
        }
        free(unwanted)
    }

    /// Frees the kept buffer, if any.
    func drop() {
        free(
            held.withLock { k -> UnsafeMutableRawPointer? in
                defer { k = nil }
                return k?.block
            })
    }

    /// The size of the kept buffer in bytes (0: none).
    var bytes: Int { held.withLock { $0?.bytes ?? 0 } }
}
