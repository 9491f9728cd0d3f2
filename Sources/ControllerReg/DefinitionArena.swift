#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One contiguous byte buffer per transaction holding the compact encoding of the definitions it
/// commits (`DefinitionCoding.swift`) and the strings they share, each stored once (keys, class
/// names, referenced names, file names). Records and interned strings are found by byte offset.
///
/// Grows while its transaction writes it; `finish()` drops the interning table and trims the
/// buffer, after which it is read-only (and its base address no longer moves).
// @unchecked: written only by the one transaction that fills it (under the writer lock); read-only
// once `finish()` has run, before its snapshot is published.
final class DefinitionArena: @unchecked Sendable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// Interned string to its offset; emptied by `finish()`.
    private var interned: [String: Int] = [:]

    init(capacity: Int = 4096) {
        self.capacity = max(16, capacity)
        guard let p = malloc(self.capacity) else { fatalError("controllerreg: out of memory") }
        base = p.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(base) }

    /// Makes room for `n` more bytes.
    @inline(__always) private func reserve(_ n: Int) {
        if count + n <= capacity { return }
        var c = capacity
        while c < count + n { c *= 2 }
        guard let p = realloc(base, c) else { fatalError("controllerreg: out of memory allocating \(c) bytes") }
        base = p.assumingMemoryBound(to: UInt8.self)
        capacity = c
    }

    /// Drops the interning table and returns unused capacity; the arena is read-only afterwards.
    func finish() {
        interned = [:]
        if count < capacity, let p = realloc(base, max(1, count)) {
            base = p.assumingMemoryBound(to: UInt8.self)
            capacity = max(1, count)
        }
    }

    // MARK: Writing

    func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// An unsigned LEB128 varint.
    func appendVarint(_ value: UInt64) {
        reserve(10)
        var v = value
        while v >= 0x80 {
            base[count] = UInt8(truncatingIfNeeded: v) | 0x80
            count += 1
            v >>= 7
        }
        base[count] = UInt8(v)
        count += 1
    }

    /// A signed integer, zigzag-encoded as a varint.
    func appendSigned(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// 8 bytes, little-endian.
    func appendFixed64(_ value: UInt64) {
        reserve(8)
        var v = value.littleEndian
        withUnsafeBytes(of: &v) { UnsafeMutableRawPointer(base + count).copyMemory(from: $0.baseAddress!, byteCount: 8) }
        count += 8
    }

    /// `bytes` preceded by a varint `header`.
    private func appendBytes(header: UInt64, _ text: String) {
        var text = text
        text.withUTF8 { u in
            appendVarint(header)
            reserve(u.count)
            if let b = u.baseAddress { (base + count).update(from: b, count: u.count) }
            count += u.count
        }
    }

    /// A string written in place (for text unique to one entry: names, descriptions, literals).
    func appendInline(_ text: String) {
        appendBytes(header: UInt64(text.utf8.count) << 1, text)
    }

    /// A string many entries share (keys, class names, referenced names, files): written in place
    /// the first time, and as the offset of that first copy afterwards.
    func appendInterned(_ text: String) {
        if let offset = interned[text] {
            appendVarint(UInt64(offset) << 1 | 1)
        } else {
            interned[text] = count
            appendInline(text)
        }
    }
}

/// Reads what a `DefinitionArena` holds, from one offset on.
struct DefinitionReader {
    let base: UnsafePointer<UInt8>
    var position: Int

    init(_ arena: DefinitionArena, at offset: Int) {
        base = UnsafePointer(arena.base)
        position = offset
    }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return base[position]
    }

    mutating func varint() -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = base[position]
            position += 1
            result |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    mutating func signed() -> Int64 {
        let v = varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    mutating func fixed64() -> UInt64 {
        var v: UInt64 = 0
        withUnsafeMutableBytes(of: &v) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base + position, count: 8)) }
        position += 8
        return UInt64(littleEndian: v)
    }

    /// An inline or interned string's bytes (not copied).
    mutating func stringBytes() -> UnsafeBufferPointer<UInt8> {
        let header = varint()
        if header & 1 == 1 {
            var at = DefinitionReader(base: base, position: Int(header >> 1))
            return at.stringBytes()
        }
        let n = Int(header >> 1)
        defer { position += n }
        return UnsafeBufferPointer(start: base + position, count: n)
    }

    mutating func string() -> String { String(decoding: stringBytes(), as: UTF8.self) }

    private init(base: UnsafePointer<UInt8>, position: Int) {
        self.base = base
        self.position = position
    }
}
