#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A diagnostic's message: a `String`, or its bytes kept in a `MessageStore` (a load reporting
/// thousands of problems writes each message once into a shared store, and a `String` is made
/// only when `Diagnostic.message` is read; the joined text and the C ABI's records copy the bytes).
/// The bytes are well-formed UTF-8 of at most `Diagnostic.maxMessageBytes` bytes, never changed
/// once kept, so the text may cross threads.
enum MessageText: @unchecked Sendable {
    case string(String)
    case kept(MessageStore, UnsafePointer<UInt8>, Int)

    /// The message as a `String`.
    var string: String {
        switch self {
        case .string(let s): return s
        case .kept(_, let p, let n): return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        }
    }

    /// The bytes of a kept message; nil for a `String` one.
    var keptBytes: UnsafeBufferPointer<UInt8>? {
        if case .kept(_, let p, let n) = self { return UnsafeBufferPointer(start: p, count: n) }
        return nil
    }

    /// The message's UTF-8 byte count.
    var byteCount: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .kept(_, _, let n): return n
        }
    }

    /// Calls `body` with the message's UTF-8 bytes (in place when they are contiguous).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch self {
        case .kept(_, let p, let n): return body(UnsafeBufferPointer(start: p, count: n))
        case .string(let s):
            if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
            return Array(s.utf8).withUnsafeBufferPointer(body)
        }
    }
}

/// Bytes of many messages, in chunks that never move (a message's bytes stay where they were
/// kept; diagnostics point at them and keep the store alive). Written by one thread while a load
/// reports its problems; read-only once the diagnostics are handed out.
final class MessageStore: @unchecked Sendable {
    private static let chunkBytes = 64 * 1024
    private var chunks: [UnsafeMutablePointer<UInt8>] = []
    private var cursor: UnsafeMutablePointer<UInt8>?
    private var left = 0

    deinit {
        for c in chunks { c.deallocate() }
    }

    /// Copies `bytes` in (at most `chunkBytes` of them); where the copy is.
    func keep(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<UInt8> {
        let n = bytes.count
        if n > left || cursor == nil {
            let c = UnsafeMutablePointer<UInt8>.allocate(capacity: max(MessageStore.chunkBytes, n))
            chunks.append(c)
            cursor = c
            left = max(MessageStore.chunkBytes, n)
        }
        let at = cursor!
        if n > 0, let b = bytes.baseAddress { memcpy(at, b, n) }
        cursor = at + n
        left -= n
        return UnsafePointer(at)
    }
}

extension TextBuffer {
    /// The text written, kept as a message: its bytes copied into this buffer's store (no
    /// `String`), or, when they are longer than `Diagnostic.maxMessageBytes`, not well-formed
    /// UTF-8 or hold a NUL byte, the `String` a `Diagnostic` would make of them (capped,
    /// repaired, NUL written `\0`).
    func keptMessage() -> MessageText {
        let b = bytes
        guard b.count <= Diagnostic.maxMessageBytes, let p = b.baseAddress,
            TextBuffer.isASCIIWithoutNul(p, b.count) || (memchr(p, 0, b.count) == nil && TextBuffer.isWellFormed(p, b.count))
        else { return .string(Diagnostic.capped(Diagnostic.withoutNul(string))) }
        let store = messageStore
        return .kept(store, store.keep(b), b.count)
    }

    /// Whether the `n` bytes at `p` are all ASCII and none is NUL (most messages), a word at a
    /// time: a byte with its high bit set, or one a subtraction borrows through (a zero), sets a
    /// high bit of `flags`.
    private static func isASCIIWithoutNul(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var flags: UInt64 = 0
        if n < 8 {
            for i in 0..<n { flags |= UInt64(p[i]) | (p[i] == 0 ? 0x80 : 0) }
            return flags & 0x80 == 0
        }
        var i = 0
        while i < n - 8 {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            flags |= w | ((w &- ones) & ~w)
            i += 8
        }
        // The last 8 bytes (overlapping the word before: read again, no byte loop).
        let w = UnsafeRawPointer(p + n - 8).loadUnaligned(as: UInt64.self)
        flags |= w | ((w &- ones) & ~w)
        return flags & 0x8080_8080_8080_8080 == 0
    }

    /// Whether the `n` bytes at `p` are well-formed UTF-8 (ASCII checked a word at a time).
    private static func isWellFormed(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        var high: UInt64 = 0
        while i + 8 <= n {
            high |= UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            i += 8
        }
        while i < n {
            high |= UInt64(p[i])
            i += 1
        }
        if high & 0x8080_8080_8080_8080 == 0 { return true }
        return firstInvalidUTF8(p, from: 0, to: n) == nil
    }
}
