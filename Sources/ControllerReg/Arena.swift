#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A bump allocator for data that lives exactly as long as one registry transaction's entries
/// (compiled plans, literal values, key and name bytes). Freed all at once when released.
// @unchecked: mutated only by the one transaction that fills it (under the writer lock); read-only
// once its snapshot is published.
final class Arena: @unchecked Sendable {
    // (Unchecked: one transaction fills an arena, under the writer lock; a checked use of a
    // class's `var` costs ~76 instructions, paid at every allocation.)
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var cursor: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var remaining = 0
    private let chunkSize: Int

    init(chunkSize: Int = 64 << 10) { self.chunkSize = chunkSize }

    deinit { for c in chunks { free(c) } }

    /// `byteCount` bytes aligned to 8; traps only if the system is out of memory.
    func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer {
        let size = max(8, (byteCount + 7) & ~7)
        if size > remaining {
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
