#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The names along a problem's path (`Diagnostic.path`) as its `ProblemStore` keeps them: one
/// run of bytes, each name a 4-byte length then its UTF-8 bytes. A cycle or lifetime message
/// writes its path from the names' bytes where they lie (no `String` per name, up to
/// `Diagnostic.maxPathNames` of them per problem); the names become `String`s only when the path
/// is read.
package struct PathNames {
    /// The names written so far, packed.
    package let buffer: TextBuffer
    /// How many names were kept (at most `Diagnostic.maxPathNames`).
    package private(set) var count = 0

    /// An empty path with room for about `names` names of `bytesEach` bytes.
    package init(names: Int, bytesEach: Int = 16) {
        buffer = TextBuffer(capacity: min(names, Diagnostic.maxPathNames) * (bytesEach + 4) + 16)
    }

    /// Empties the path, its buffer kept for the next one (a check writes one path per problem).
    package mutating func removeAll() {
        buffer.clear()
        count = 0
    }

    /// Appends a name (ignored past `Diagnostic.maxPathNames`, the most a path keeps).
    @inline(__always)
    package mutating func append(_ name: UnsafeBufferPointer<UInt8>) {
        guard count < Diagnostic.maxPathNames else { return }
        // The length and the bytes in one claim (a name is a few dozen bytes: two appends cost
        // more than the copy).
        let n = name.count
        let at = buffer.claim(4 + n)
        UnsafeMutableRawPointer(at).storeBytes(of: UInt32(truncatingIfNeeded: n), as: UInt32.self)
        if n > 0, let p = name.baseAddress {
            if n <= 16 { TextBuffer.copySmall(at + 4, p, n) } else { memcpy(at + 4, p, n) }
        }
        count += 1
    }

    /// Appends a name given as a `String`.
    package mutating func append(_ name: String) {
        var name = name
        name.withUTF8 { append($0) }
    }

    /// The names of `strings` packed.
    package init(_ strings: [String]) {
        self.init(names: strings.count, bytesEach: strings.first?.utf8.count ?? 16)
        for s in strings { append(s) }
    }

    /// The names packed in `bytes` (as `buffer` holds them), as `String`s.
    package static func strings(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        guard let p = bytes.baseAddress else { return [] }
        var names: [String] = []
        var at = 0
        while at + 4 <= bytes.count {
            let n = Int(UnsafeRawPointer(p + at).loadUnaligned(as: UInt32.self))
            at += 4
            names.append(String(decoding: UnsafeBufferPointer(start: p + at, count: min(n, bytes.count - at)), as: UTF8.self))
            at += n
        }
        return names
    }
}
