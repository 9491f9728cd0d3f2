import ControllerRegConfig

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A bump allocator for data that lives exactly as long as one registry transaction's entries
/// (compiled plans, literal values, key and name bytes). Freed all at once when released.
///
/// A large change's plans go to one mapping of huge pages reserved for them (`reserveHugePages`,
/// trimmed to what was written by `trim()`); `malloc`'s chunks serve the rest. Why: the chunks
/// of a large load's plans come from the top of `malloc`'s heap, which is given back to the system
/// when the registry is freed, so every such load faulted them in again 4 KiB at a time (a
/// 100k-entry binary plist load ~1,100 of its ~2,400 faults, and the random reads of its plans
/// missed the TLB more); with its rows in huge pages too it ran ~6% faster (BENCHMARKS.md, linear18).
// @unchecked: mutated only by the one transaction that fills it (under the writer lock); read-only
// once its snapshot is published.
final class Arena: @unchecked Sendable {
    // (Unchecked: one transaction fills an arena, under the writer lock; a checked use of a
    // class's `var` costs ~76 instructions, paid at every allocation.)
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var cursor: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var remaining = 0
    private let chunkSize: Int
    /// The mapping `reserveHugePages` made, if any, and whether allocations still come from it.
    @exclusivity(unchecked) private var mapping: HugePageMapping?
    @exclusivity(unchecked) private var inMapping = false

    /// Changes whose records hold at least this many bytes reserve huge pages for their plans
    /// (about a third as many bytes; smaller plans fit a few chunks of the allocator's reused pages).
    static let hugePagesFrom = 4 << 20

    init(chunkSize: Int = 64 << 10) { self.chunkSize = chunkSize }

    deinit {
        for c in chunks { free(c) }
        mapping?.unmap()
    }

    /// Makes the next allocations, up to `bytes` bytes, come from one mapping of huge pages
    /// (`HugePageMapping`): address space only until written. Does nothing when a mapping was
    /// reserved before or the system refuses one.
    func reserveHugePages(_ bytes: Int) {
        guard mapping == nil, let m = HugePageMapping(bytes: bytes) else { return }
        mapping = m
        inMapping = true
        cursor = m.start
        remaining = m.bytes
    }

    /// The bytes of the reserved mapping still mapped (0: none reserved).
    var reservedBytes: Int { mapping?.bytes ?? 0 }

    /// Gives back the part of the reserved mapping never handed out (nothing is allocated from
    /// it afterwards; called when its room runs out, and when the change is done); does nothing
    /// without one, or once done.
    func trim() {
        guard inMapping, var m = mapping, let c = cursor else { return }
        m.trim(keeping: c - m.start)
        mapping = m
        inMapping = false
        remaining = 0
    }

    /// `byteCount` bytes aligned to 8; traps only if the system is out of memory.
    func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer {
        let size = max(8, (byteCount + 7) & ~7)
        if size > remaining {
            if inMapping { trim() }
            let chunk = max(chunkSize, size)
            guard let p = malloc(chunk) else { fatalError("controllerreg: out of memory allocating \(chunk) bytes") }
            chunks.append(p)
            cursor = p
            remaining = chunk
        }
        let p = cursor!
        cursor = p + size
        remaining -= size
        return p
    }

    /// Typed storage for `count` values.
    func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        allocate(max(1, count) * MemoryLayout<T>.stride).bindMemory(to: T.self, capacity: max(1, count))
    }

    /// A NUL-terminated copy of `text`'s UTF-8 bytes; returns the bytes and their length (without NUL).
    func copy(_ text: String) -> (UnsafePointer<UInt8>, Int) {
        // Native and small strings expose their bytes in place (no copy of the String to make it
        // mutable for `withUTF8`); other strings take the general path.
        if let result = text.utf8.withContiguousStorageIfAvailable({ utf8 -> (UnsafePointer<UInt8>, Int) in
            let p = allocate(utf8.count + 1).assumingMemoryBound(to: UInt8.self)
            if let base = utf8.baseAddress { p.update(from: base, count: utf8.count) }
            p[utf8.count] = 0
            return (UnsafePointer(p), utf8.count)
        }) {
            return result
        }
        var text = text
        return text.withUTF8 { utf8 in
            let p = allocate(utf8.count + 1).assumingMemoryBound(to: UInt8.self)
            if let base = utf8.baseAddress { p.update(from: base, count: utf8.count) }
            p[utf8.count] = 0
            return (UnsafePointer(p), utf8.count)
        }
    }
}
