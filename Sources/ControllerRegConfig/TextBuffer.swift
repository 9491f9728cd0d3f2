#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes of text written in place: how messages are built on the error path. One buffer, grown by
/// doubling and reused from message to message (`clear`), pieces copied in with `memcpy`, numbers
/// written digit by digit, and one `String` made at the end: a load with thousands of problems
/// pays for each message's bytes, not for a string interpolation's growth and copies per piece.
package final class TextBuffer {
    /// Where the bytes are: kept out of the object (a class's `var`s are checked for exclusive
    /// access at every use, which cost more than the copies themselves).
    /// (Inlinable, with `claim` and the appends: the callers in other modules write messages a
    /// piece at a time, and a call per piece cost more than its copy.)
    @usableFromInline
    struct Storage {
        @usableFromInline var base: UnsafeMutablePointer<UInt8>
        @usableFromInline var capacity: Int
        @usableFromInline var count: Int
        @usableFromInline init(base: UnsafeMutablePointer<UInt8>, capacity: Int, count: Int) {
            self.base = base
            self.capacity = capacity
            self.count = count
        }
    }
    @usableFromInline let storage: UnsafeMutablePointer<Storage>
    /// Where the problems whose messages are written here are recorded
    /// (`Diagnostic(_:written:at:suggestion:)`; made at the first).
    private var store: ProblemStore?

    /// The store of the problems written with this buffer.
    package var problemStore: ProblemStore {
        if let s = store { return s }
        let s = ProblemStore()
        store = s
        return s
    }

    /// An empty buffer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        let c = max(capacity, 16)
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage(base: TextBuffer.allocate(c), capacity: c, count: 0))
    }

    deinit {
        free(storage.pointee.base)
        storage.deallocate()
    }

    /// `n` bytes from `malloc` (the memory `takeCString` hands on); out of memory stops the
    /// process, as Swift's own allocations do.
    private static func allocate(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        guard let p = malloc(n) else { fatalError("controllerreg: out of memory (\(n) bytes of message text)") }
        return p.assumingMemoryBound(to: UInt8.self)
    }

    /// The bytes written and a NUL after them, in memory from `malloc` that is the caller's to
    /// `free` (no copy: a load's many-problem message is handed on as written). The buffer is
    /// empty afterwards, with new memory.
    package func takeCString() -> UnsafeMutablePointer<CChar> {
        append(byte: 0)
        let s = storage.pointee
        // Room not written is given back (a large block shrinks in place).
        let taken = realloc(s.base, s.count).map { $0.assumingMemoryBound(to: UInt8.self) } ?? s.base
        storage.pointee = Storage(base: TextBuffer.allocate(16), capacity: 16, count: 0)
        return UnsafeMutableRawPointer(taken).assumingMemoryBound(to: CChar.self)
    }

    /// The number of bytes written.
    package var count: Int { storage.pointee.count }

    /// The bytes written (valid until the next write).
    package var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage.pointee.base, count: storage.pointee.count)
    }

    /// The text written, as a `String` (invalid UTF-8 repaired, as `String(decoding:as:)` does).
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Forgets what was written (the memory stays for the next text).
    package func clear() { storage.pointee.count = 0 }

    /// Forgets what was written after the first `count` bytes.
    package func truncate(to count: Int) { storage.pointee.count = min(max(count, 0), storage.pointee.count) }

    /// Room for `n` more bytes, counted as written; the address to write them at.
    @inlinable @inline(__always)
    func claim(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if storage.pointee.count + n > storage.pointee.capacity { grow(storage.pointee.count + n) }
        let at = storage.pointee.base + storage.pointee.count
        storage.pointee.count += n
        return at
    }

    @usableFromInline @inline(never)
    func grow(_ needed: Int) {
        var c = storage.pointee.capacity
        while c < needed { c *= 2 }
        guard let bigger = realloc(storage.pointee.base, c) else {
            fatalError("controllerreg: out of memory (\(c) bytes of message text)")
        }
        storage.pointee.base = bigger.assumingMemoryBound(to: UInt8.self)
        storage.pointee.capacity = c
    }

    /// Appends bytes.
    @inlinable @inline(__always)
    package func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return }
        let n = bytes.count
        if n <= 16 {
            TextBuffer.copySmall(claim(n), p, n)
        } else {
            memcpy(claim(n), p, n)
        }
    }

    /// Copies `n` (1...16) bytes with at most two overlapping loads and stores: the pieces of a
    /// message (a quote, a name, a line number's colon) are mostly this short, and a `memcpy`
    /// call cost more than the copy.
    @inlinable @inline(__always)
    static func copySmall(_ d: UnsafeMutablePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ n: Int) {
        let from = UnsafeRawPointer(s), to = UnsafeMutableRawPointer(d)
        if n >= 8 {
            let a = from.loadUnaligned(as: UInt64.self), b = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            to.storeBytes(of: a, as: UInt64.self)
            to.storeBytes(of: b, toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 {
            let a = from.loadUnaligned(as: UInt32.self), b = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            to.storeBytes(of: a, as: UInt32.self)
            to.storeBytes(of: b, toByteOffset: n - 4, as: UInt32.self)
        } else {
            d[0] = s[0]
            d[n - 1] = s[n - 1]
            if n == 3 { d[1] = s[1] }
        }
    }

    /// Appends bytes.
    @inlinable @inline(__always)
    package func append(_ bytes: UnsafeRawBufferPointer) {
        append(bytes.bindMemory(to: UInt8.self))
    }

    /// Appends a literal's bytes.
    @inlinable @inline(__always)
    package func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a string's UTF-8 bytes (a literal goes to the `StaticString` overload: no
    /// `String` made for it).
    @_disfavoredOverload
    package func append(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            for b in text.utf8 { append(byte: b) }
        }
    }

    /// Appends `a`, `x` and `b`: a message's pieces in one call (a caller in another module
    /// calls each append; this one's are inlined).
    package func append(_ a: StaticString, _ x: UnsafeBufferPointer<UInt8>, _ b: StaticString) {
        append(a)
        append(x)
        append(b)
    }

    /// Appends `a`, `x`, `b`, `y` and `c` (see `append(_:_:_:)`).
    package func append(
        _ a: StaticString, _ x: UnsafeBufferPointer<UInt8>, _ b: StaticString, _ y: UnsafeBufferPointer<UInt8>, _ c: StaticString
    ) {
        append(a)
        append(x)
        append(b)
        append(y)
        append(c)
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    package func append(byte: UInt8) {
        claim(1).pointee = byte
    }

    /// Appends an integer in decimal, as `String(n)` writes it: its digits counted first, then
    /// written in place from the last one (a line or column number costs a few instructions a
    /// digit).
    package func append(_ n: Int) {
        if n >= 0 && n < 1_000_000 {
            // Lines and columns (most numbers written): the digits counted by comparisons, written
            // two at a time from a table, 32-bit divisions.
            var x = UInt32(truncatingIfNeeded: n)
            let digits = x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 10_000 ? 4 : x < 100_000 ? 5 : 6
            let at = claim(digits)
            var i = digits
            let pairs = TextBuffer.digitPairs.utf8Start
            while i >= 2 {
                let (q, r) = x.quotientAndRemainder(dividingBy: 100)
                i -= 2
                at[i] = pairs[Int(r) &* 2]
                at[i + 1] = pairs[Int(r) &* 2 + 1]
                x = q
            }
            if i == 1 { at[0] = UInt8(truncatingIfNeeded: x) &+ 48 }
            return
        }
        var v = n.magnitude
        var digits = 1
        var bound: UInt = 10
        while v >= bound && digits < 19 {
            digits += 1
            bound &*= 10
        }
        if digits == 19 && v >= bound { digits = 20 }
        let sign = n < 0 ? 1 : 0
        let at = claim(digits + sign)
        if sign == 1 { at.pointee = UInt8(ascii: "-") }
        var i = digits + sign
        repeat {
            i -= 1
            let (q, r) = v.quotientAndRemainder(dividingBy: 10)
            at[i] = UInt8(truncatingIfNeeded: r) &+ 48
            v = q
        } while v != 0
    }

    /// "00" to "99", two bytes each.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Appends `file:line:column` (`file:byte N` for a binary format), as `SourceLocation`'s
    /// `description` writes it.
    package func append(_ location: SourceLocation) {
        append(location.file)
        if location.line == 0 {
            append(":byte ")
        } else {
            append(byte: UInt8(ascii: ":"))
            append(location.line)
            append(byte: UInt8(ascii: ":"))
        }
        append(location.column)
    }
}
