import ControllerRegConfig

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What one transaction keeps of the entries it commits: one contiguous byte buffer holding the
/// compact encoding of their definitions (`DefinitionCoding.swift`) and the strings they share,
/// each stored once (keys, class names, referenced names, file names, literal strings), found by
/// byte offset; and the arena of their compiled plans.
///
/// Grows while its transaction writes its records; `freeze()` trims the buffer, after which its
/// base address no longer moves (the plans then point into it: `internedBytes`); `finish()` drops
/// the interning table, after which it is read-only.
// @unchecked: written only by the one transaction that fills it (under the writer lock); read-only
// once `finish()` has run, before its snapshot is published.
final class DefinitionArena: @unchecked Sendable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// The compiled plans of the transaction's entries.
    let plans: Arena
    /// Interned strings, found by their bytes (`InternTable` of arena offsets); freed by `finish()`. A
    /// `[String: Int]` cost a SipHash of a `String` per lookup, the largest part of encoding a load.
    /// Raw memory behind a `let`: a stored `var` of a class is a dynamic exclusivity check
    /// (`swift_beginAccess`, ~75 instructions) at every mutation.
    private let interned = UnsafeMutablePointer<InternTable>.allocate(capacity: 1)

    /// A direct-mapped cache in front of `interned`, slotted by length and the first and last 8
    /// bytes (no loop over the bytes): keys, class names and referenced names repeat from entry to
    /// entry, and a hit costs one `memcmp` instead of a hash and a probe. Raw memory, as `interned`.
    /// Made at the first interned string and freed by `finish()` (nil otherwise).
    private let recent: UnsafeMutablePointer<UnsafeMutablePointer<RecentString>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<RecentString>?>.allocate(capacity: 1)
        p.initialize(to: nil)
        return p
    }()
    private static let recentSlots = 256  // mix >> 56

    /// One slot of `recent`: a string's header offset, where its bytes start, their length (-1:
    /// empty) and first and last words (`words`), and whether it is interned (else a literal
    /// written in place).
    private struct RecentString {
        var header = 0
        var bytes = 0
        var length = -1
        var first: UInt64 = 0
        var last: UInt64 = 0
        var interned = false
    }

    /// An arena for a change of `entries` entries (sized for them: a change of one entry, as
    /// `cr_add_entry` makes, keeps a few hundred bytes, not a whole plan chunk), whose records are
    /// expected to hold about `textBytes` bytes of text (a document's strings; 0 when unknown).
    /// Room that is never written costs no memory, while growing copies every record written so
    /// far: the estimate errs on the large side. The interning table is in `scratch` when given
    /// (a large load's temporaries: `finish()` lets go of it).
    init(entries: Int, textBytes: Int = 0, scratch: ScratchRegion? = nil) {
        interned.initialize(to: InternTable(in: scratch))
        capacity = max(64, min(entries, 1 << 20) * 128, min(textBytes, 1 << 30) + min(entries, 1 << 20) * 64)
        plans = Arena(chunkSize: max(256, min(entries, 256) * 256))
        if capacity >= KeptPages.threshold {
            base = KeptPages.shared.take(capacity).assumingMemoryBound(to: UInt8.self)
        } else {
            guard let p = malloc(self.capacity) else { fatalError("controllerreg: out of memory") }
            base = p.assumingMemoryBound(to: UInt8.self)
        }
    }

    deinit {
        // A large arena's block is left to the next large load (`KeptPages`).
        if capacity >= KeptPages.threshold { KeptPages.shared.keep(base, bytes: capacity) } else { free(base) }
        recent.pointee?.deallocate()
        recent.deallocate()
        interned.pointee.free()
        interned.deinitialize(count: 1)
        interned.deallocate()
    }

    /// Makes room for `n` more bytes.
    ///
    /// The writes below add to `count` with wrapping arithmetic: `count` never passes `capacity`,
    /// a size `malloc` gave, and `n` is a string's length or a few bytes, so no sum comes near
    /// `Int.max` (the overflow checks were a branch per byte count, some 30 a record).
    @inline(__always) private func reserve(_ n: Int) {
        if count &+ n <= capacity { return }
        var c = capacity
        while c < count + n { c *= 2 }
        guard let p = realloc(base, c) else { fatalError("controllerreg: out of memory allocating \(c) bytes") }
        base = p.assumingMemoryBound(to: UInt8.self)
        capacity = c
    }

    /// Returns unused capacity; nothing more is written, so the base address stays put.
    func freeze() {
        if count < capacity, let p = realloc(base, max(1, count)) {
            base = p.assumingMemoryBound(to: UInt8.self)
            capacity = max(1, count)
        }
    }

    /// Drops the interning table (and freezes) and trims the plans' huge pages; the arena is
    /// read-only afterwards.
    func finish() {
        freeze()
        plans.trim()
        interned.pointee.free()
        recent.pointee?.deallocate()
        recent.pointee = nil
    }

    /// Frees the cache of recently written strings (256 slots, 12 KiB; made again if more is
    /// written): for an arena kept a while before its change is applied (a reload holds every
    /// step's at once, one per entry added from code).
    func forgetRecentStrings() {
        recent.pointee?.deallocate()
        recent.pointee = nil
    }

    /// Whether `p` points into the arena's bytes.
    func holds(_ p: UnsafePointer<UInt8>) -> Bool {
        UnsafePointer(base) <= p && p < UnsafePointer(base) + count
    }

    /// The NUL-terminated bytes and length of an interned string, if the arena holds it (call
    /// between `freeze()` and `finish()`).
    func internedBytes(_ text: String) -> (UnsafePointer<UInt8>, Int)? {
        var text = text
        return text.withUTF8 { u -> (UnsafePointer<UInt8>, Int)? in
            let bytes = UnsafeRawBufferPointer(u)
            guard let offset = interned.pointee.find(bytes, hash: byteHash(bytes), in: InlineStrings(base: base)) else {
                return nil
            }
            var r = DefinitionReader(self, at: offset)
            let b = r.stringBytes()
            return (b.baseAddress ?? UnsafePointer(base + offset), b.count)
        }
    }

    // MARK: Writing

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// An unsigned LEB128 varint.
    @inline(__always)
    func appendVarint(_ value: UInt64) {
        reserve(10)
        count &+= DefinitionArena.writeVarint(value, at: base + count)
    }

    /// Two varints (room made once).
    @inline(__always)
    func appendVarints(_ a: UInt64, _ b: UInt64) {
        reserve(20)
        let p = base + count
        let n = DefinitionArena.writeVarint(a, at: p)
        count &+= n &+ DefinitionArena.writeVarint(b, at: p + n)
    }

    /// Writes `value` as an unsigned LEB128 varint at `p`; returns its length. Through a local
    /// pointer: a byte stored through the arena's `base[count]` may alias the arena's own fields,
    /// so each one reloaded them.
    @inline(__always)
    static func writeVarint(_ value: UInt64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 0x80 {
            p.pointee = UInt8(truncatingIfNeeded: value)
            return 1
        }
        if value < 1 << 14 {
            p[0] = UInt8(truncatingIfNeeded: value) | 0x80
            p[1] = UInt8(truncatingIfNeeded: value >> 7)
            return 2
        }
        if value < 1 << 21 {
            p[0] = UInt8(truncatingIfNeeded: value) | 0x80
            p[1] = UInt8(truncatingIfNeeded: value >> 7) | 0x80
            p[2] = UInt8(truncatingIfNeeded: value >> 14)
            return 3
        }
        var q = p
        var v = value
        while v >= 0x80 {
            q.pointee = UInt8(truncatingIfNeeded: v) | 0x80
            q += 1
            v >>= 7
        }
        q.pointee = UInt8(truncatingIfNeeded: v)
        return q - p + 1
    }

    /// A signed integer, zigzag-encoded as a varint.
    @inline(__always)
    func appendSigned(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// 8 bytes, little-endian.
    @inline(__always)
    func appendFixed64(_ value: UInt64) {
        reserve(8)
        let v = value.littleEndian
        UnsafeMutableRawPointer(base + count).storeBytes(of: v, as: UInt64.self)
        count &+= 8
    }

    /// `bytes` preceded by a varint `header` and followed by a NUL (plans pass them to C as is).
    private func appendBytes(header: UInt64, _ text: String) {
        var text = text
        text.withUTF8 { u in
            appendVarint(header)
            reserve(u.count + 1)
            if let b = u.baseAddress { (base + count).update(from: b, count: u.count) }
            count += u.count
            base[count] = 0
            count += 1
        }
    }

    /// A string written in place (for text unique to one entry: names, descriptions, literals).
    func appendInline(_ text: String) {
        appendBytes(header: UInt64(text.utf8.count) << 1, text)
    }

    /// `appendInline` of bytes.
    func appendInline(bytes u: UnsafeBufferPointer<UInt8>) {
        reserve(u.count &+ 11)
        let p = base + count
        let h = DefinitionArena.writeVarint(UInt64(u.count) << 1, at: p)
        if let b = u.baseAddress { (p + h).update(from: b, count: u.count) }
        p[h &+ u.count] = 0
        count &+= h &+ u.count &+ 1
    }

    /// A string many entries share (keys, class names, referenced names, files): written in
    /// place the first time, and as the offset of that first copy afterwards.
    func appendInterned(_ text: String) {
        // Read in place when the storage is contiguous (native strings): a mutable copy for
        // `withUTF8` made callers copy the whole value holding the string first.
        if text.utf8.withContiguousStorageIfAvailable({ appendInterned(bytes: $0) }) != nil { return }
        var text = text
        text.withUTF8 { _ = appendInterned(bytes: $0) }
    }

    /// `appendLiteral` of a string's bytes.
    func appendLiteral(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ appendLiteral(bytes: $0) }) != nil { return }
        var text = text
        text.withUTF8 { appendLiteral(bytes: $0) }
    }

    /// `appendInterned` of a string's bytes. A method of its own, not the body of the `withUTF8`
    /// closure, and the table is raw memory: a class's array property read or written there is a
    /// dynamic exclusivity check (`swift_beginAccess`, ~75 instructions) per access.
    /// Returns the position of the string's one stored copy (its identity, as
    /// `DefinitionReader.internedString` reads it back).
    @inline(never) @discardableResult
    func appendInterned(bytes u: UnsafeBufferPointer<UInt8>) -> Int {
        append(bytes: u, interned: true)
    }

    /// A literal string (a dependency's text, which a plan points at): the copy of a recently
    /// written equal string when there is one, else written in place. Not entered in the
    /// interning table: literals are mostly unique to their entry (a title, a URL), and hashing
    /// and storing each one there cost more than the bytes a repeat far apart would save.
    @inline(never)
    func appendLiteral(bytes u: UnsafeBufferPointer<UInt8>) {
        _ = append(bytes: u, interned: false)
    }

    /// The first and last 8 bytes of `n` bytes at `p` (for fewer than 8: all of them, in `first`),
    /// read as words: for `n` <= 16, equal lengths and words are equal bytes.
    @inline(__always)
    static func words(_ p: UnsafePointer<UInt8>?, _ n: Int) -> (first: UInt64, last: UInt64) {
        guard let p, n > 0 else { return (0, 0) }
        let r = UnsafeRawPointer(p)
        if n >= 8 {
            return (r.loadUnaligned(as: UInt64.self), r.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        }
        if n >= 4 {
            let a = UInt64(r.loadUnaligned(as: UInt32.self))
            let b = UInt64(r.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            return (a | b << 32, 0)
        }
        return (UInt64(p[0]) | UInt64(p[n >> 1]) << 8 | UInt64(p[n - 1]) << 16, 0)
    }

    /// `appendInterned` (`interned`) or `appendLiteral` of `u`; the position of the copy referred
    /// to, or of the bytes written in place.
    @inline(__always)
    private func append(bytes u: UnsafeBufferPointer<UInt8>, interned isInterned: Bool) -> Int {
        let n = u.count
        let (first, last) = DefinitionArena.words(u.baseAddress, n)
        let mix = (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ (UInt64(n) &* 0x1656_67B1_9E37_79F9)
        let cache: UnsafeMutablePointer<RecentString>
        if let c = recent.pointee {
            cache = c
        } else {
            cache = .allocate(capacity: DefinitionArena.recentSlots)
            cache.initialize(repeating: RecentString(), count: DefinitionArena.recentSlots)
            recent.pointee = cache
        }
        // The top bits: the only ones every input bit reaches (a change in the last byte moves
        // only the bits above it).
        let slot = cache + Int(truncatingIfNeeded: mix >> 56)
        // A literal written in place is no interned string's identity: only literals reuse it.
        if slot.pointee.length == n && slot.pointee.first == first && slot.pointee.last == last
            && (slot.pointee.interned || !isInterned)
            && (n <= 16 || memcmp(base + slot.pointee.bytes, u.baseAddress!, n) == 0)
        {
            appendVarint(UInt64(slot.pointee.header) << 1 | 1)
            return slot.pointee.header
        }
        if isInterned {
            let bytes = UnsafeRawBufferPointer(u)
            let hash = byteHash(bytes)
            if let offset = interned.pointee.find(bytes, hash: hash, in: InlineStrings(base: base), orInsert: count) {
                var at = offset
                _ = DefinitionReader.varint(UnsafePointer(base), at: &at)
                slot.pointee = RecentString(header: offset, bytes: at, length: n, first: first, last: last, interned: true)
                appendVarint(UInt64(offset) << 1 | 1)
                return offset
            }
        }
        let header = count
        reserve(n &+ 11)
        let p = base + header
        let h = DefinitionArena.writeVarint(UInt64(n) << 1, at: p)
        if let b = u.baseAddress { (p + h).update(from: b, count: n) }
        p[h &+ n] = 0
        count = header &+ h &+ n &+ 1
        slot.pointee = RecentString(
            header: header, bytes: header + h, length: n, first: first, last: last, interned: isInterned)
        return header
    }
}

/// The interned strings of a `DefinitionArena`, by offset: a varint header (the byte length, shifted
/// left once), then the bytes (the inline copy).
private struct InlineStrings: InternedBytes {
    let base: UnsafeMutablePointer<UInt8>

    @inline(__always) func bytes(at offset: Int) -> UnsafeRawBufferPointer {
        var p = offset
        let header = DefinitionReader.varint(UnsafePointer(base), at: &p)
        return UnsafeRawBufferPointer(start: base + p, count: Int(header >> 1))
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

    @inline(__always)
    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return base[position]
    }

    @inline(__always)
    mutating func varint() -> UInt64 {
        DefinitionReader.varint(base, at: &position)
    }

    /// The LEB128 varint at `position` in `base`; `position` moves past it.
    @inline(__always)
    static func varint(_ base: UnsafePointer<UInt8>, at position: inout Int) -> UInt64 {
        // Most varints are one byte (tags of places, small counts, lengths) or two or three (the
        // offsets of interned strings).
        let b0 = base[position]
        if b0 < 0x80 {
            position += 1
            return UInt64(b0)
        }
        let b1 = base[position + 1]
        if b1 < 0x80 {
            position += 2
            return UInt64(b0 & 0x7f) | UInt64(b1) << 7
        }
        let b2 = base[position + 2]
        if b2 < 0x80 {
            position += 3
            return UInt64(b0 & 0x7f) | UInt64(b1 & 0x7f) << 7 | UInt64(b2) << 14
        }
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

    /// Moves past the varint at `position` without decoding it.
    @inline(__always)
    mutating func skipVarint() {
        while base[position] >= 0x80 { position += 1 }
        position += 1
    }

    @inline(__always)
    mutating func signed() -> Int64 {
        let v = varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    @inline(__always)
    mutating func fixed64() -> UInt64 {
        let v = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
        position += 8
        return UInt64(littleEndian: v)
    }

    /// An inline or interned string's bytes (not copied).
    @inline(__always)
    mutating func stringBytes() -> UnsafeBufferPointer<UInt8> {
        let header = varint()
        if header & 1 == 1 {
            // An interned string's one copy is always written in place (no second indirection).
            var at = Int(header >> 1)
            let n = Int(DefinitionReader.varint(base, at: &at) >> 1)
            return UnsafeBufferPointer(start: base + at, count: n)
        }
        let n = Int(header >> 1)
        defer { position += n + 1 }
        return UnsafeBufferPointer(start: base + position, count: n)
    }

    /// Moves past an inline or interned string.
    @inline(__always)
    mutating func skipString() {
        let header = varint()
        if header & 1 == 0 { position += Int(header >> 1) + 1 }
    }

    mutating func string() -> String { String(decoding: stringBytes(), as: UTF8.self) }

    /// An interned string's bytes and its identity: the position of its one stored copy (the same
    /// for every occurrence of the same text in one arena).
    @inline(__always)
    mutating func internedString() -> (bytes: UnsafeBufferPointer<UInt8>, id: Int) {
        let at = position
        let header = varint()
        if header & 1 == 1 {
            var at = Int(header >> 1)
            let n = Int(DefinitionReader.varint(base, at: &at) >> 1)
            return (UnsafeBufferPointer(start: base + at, count: n), Int(header >> 1))
        }
        let n = Int(header >> 1)
        defer { position += n + 1 }
        return (UnsafeBufferPointer(start: base + position, count: n), at)
    }

    /// An interned string's identity (`internedString().id`) without its bytes; moves past it.
    @inline(__always)
    mutating func internedID() -> Int {
        let at = position
        let header = varint()
        if header & 1 == 1 { return Int(header >> 1) }
        position += Int(header >> 1) + 1
        return at
    }

    /// A value's tag byte (an unknown byte reads as null).
    @inline(__always)
    mutating func tag() -> DefinitionCoding.ValueTag { DefinitionCoding.ValueTag.read(byte()) }
}
