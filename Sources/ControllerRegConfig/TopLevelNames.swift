#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys of a top-level map whose pairs are handed on while it is read (`TopLevelPairSink`):
/// their bytes and places, kept after the pairs' nodes are reused, so that a key repeating an
/// earlier one is still found (the check `DocumentBuilder` makes of every other map when it closes).
///
/// Raw buffers (owned by `Storage`, freed with it; in the load's `ScratchRegion` when it has one),
/// written once per key: no reference counting or uniqueness check per key, as for the builder's
/// own buffers.
struct TopLevelNames {
    /// Where a key was written and where its bytes are (16 bytes: a load touches each key's once;
    /// its hash is not kept, the table's cells hold enough of it).
    struct Key {
        var offset: UInt32
        var length: UInt32
        var line: UInt32
        var column: UInt32
    }

    /// Owner of the buffers below.
    private final class Storage {
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var keys: UnsafeMutablePointer<Key>? = nil
        var table: UnsafeMutablePointer<UInt32>? = nil
        let region: ScratchRegion?

        init(region: ScratchRegion?) { self.region = region }

        deinit {
            ScratchRegion.deallocate(bytes, in: region)
            ScratchRegion.deallocate(keys, in: region)
            ScratchRegion.deallocate(table, in: region)
        }
    }

    private let storage: Storage
    /// Every key's bytes, one after another.
    private var bytes: UnsafeMutablePointer<UInt8>? = nil
    private var byteCount = 0, byteCapacity = 0
    /// The keys, in written order.
    private var keys: UnsafeMutablePointer<Key>? = nil
    private var keyCount = 0, keyCapacity = 0
    /// Open addressing over `keys`: a key's index + 1 in the bits of `tableSize - 1`, its hash in
    /// the bits above (a probe compares bytes only where those agree, as `NameTable`), 0 when
    /// empty; the size is a power of two at least twice the number of keys.
    private var table: UnsafeMutablePointer<UInt32>? = nil
    private var tableSize = 0
    /// Room the first growth of the keys and their bytes makes (from the input's size): a long
    /// file's keys are written once, not copied at every doubling.
    private let expectedKeys: Int, expectedBytes: Int

    /// Names expected to number about `keys` with about `bytes` bytes in all (0: unknown), kept in
    /// `region` when given. Room reserved and never written costs no memory (in a region with huge
    /// pages, none beyond the 2 MiB page it ends in).
    init(expectedKeys keys: Int = 0, expectedBytes bytes: Int = 0, in region: ScratchRegion? = nil) {
        storage = Storage(region: region)
        expectedKeys = min(max(keys, 0), 1 << 20)
        expectedBytes = min(max(bytes, 0), 1 << 26)
    }

    /// Adds a key; if it repeats an earlier key, returns that one instead (and adds nothing).
    /// Past 4 GiB of key bytes (only with raised input limits) keys are no longer kept: a
    /// repeated entry name is then still refused, by the registry's own check of a change.
    @inline(__always) mutating func insert(_ name: UnsafeBufferPointer<UInt8>, line: UInt32, column: UInt32) -> Key? {
        if keyCount &* 2 &+ 2 > tableSize { grow() }
        if keyCount == keyCapacity { growKeys() }
        let n = name.count
        let hash = TopLevelNames.hash(name)
        let mask = tableSize &- 1
        let low = UInt32(truncatingIfNeeded: mask)
        let high = UInt32(truncatingIfNeeded: hash) & ~low
        let table = self.table.unsafelyUnwrapped, keys = self.keys.unsafelyUnwrapped
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let cell = table[slot]
            if cell == 0 { break }
            if cell & ~low == high, let first = repeated(keys[Int(cell & low) &- 1], name) { return first }
            slot = (slot &+ 1) & mask
        }
        if byteCount &+ n > byteCapacity { growBytes(n) }
        if byteCount &+ n > Int(UInt32.max) { return nil }
        if n > 0 { (bytes.unsafelyUnwrapped + byteCount).update(from: name.baseAddress!, count: n) }
        keys[keyCount] = Key(
            offset: UInt32(truncatingIfNeeded: byteCount), length: UInt32(truncatingIfNeeded: n), line: line, column: column)
        byteCount &+= n
        keyCount &+= 1
        table[slot] = high | UInt32(truncatingIfNeeded: keyCount)
        return nil
    }

    /// Whether the table is large enough (256 KB) that reading cells ahead pays for hashing the
    /// names twice: a smaller one stays in the processor's caches.
    var readsAhead: Bool { tableSize >= 1 << 16 }

    /// Reads the cell where `name`'s probe starts, and returns it (for nothing but the read: a
    /// batch's cells read one after another are fetched from memory together, where a large
    /// table's insertions one by one each waited for theirs).
    @inline(__always) func touch(_ name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let table, keyCount &* 2 &+ 2 <= tableSize else { return 0 }
        return table[Int(truncatingIfNeeded: TopLevelNames.hash(name)) & (tableSize &- 1)]
    }

    /// `key` if its bytes are `name`'s, else nil.
    @inline(never) private func repeated(_ key: Key, _ name: UnsafeBufferPointer<UInt8>) -> Key? {
        let n = name.count
        return Int(key.length) == n && (n == 0 || memcmp(bytes! + Int(key.offset), name.baseAddress!, n) == 0) ? key : nil
    }

    /// Makes room for `n` more bytes (at least doubling).
    @inline(never) private mutating func growBytes(_ n: Int) {
        byteCapacity = max(byteCount + n, byteCapacity * 2, 4096, expectedBytes)
        // Eight bytes more: `hash` reads a key's first word whole (regrowing the table).
        bytes = ScratchRegion.resize(bytes, count: byteCount, to: byteCapacity + 8, in: storage.region)
        storage.bytes = bytes
    }

    /// A hash of a key's bytes, read eight at a time (the last word overlapping the one before;
    /// a key under eight bytes as one word, masked): the key's bytes must be readable for eight
    /// bytes from their start, as the builder's string buffer is (each string is followed by its
    /// NUL and the buffer by `DocumentStorage.stringSlack` bytes). Mixed with murmur's finalizer so
    /// that the low bits the table uses depend on every byte.
    @inline(__always) static func hash(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let n = name.count
        var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
        guard n > 0, let p = name.baseAddress else { return h }
        let raw = UnsafeRawPointer(p)
        if n >= 8 {
            var i = 0
            while n &- i > 8 {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xC2B2_AE3D_27D4_EB4F
                h = h &<< 31 | h &>> 33
                i &+= 8
            }
            h = (h ^ raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)) &* 0xC2B2_AE3D_27D4_EB4F
        } else {
            let word = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & (UInt64.max &>> UInt64(64 &- 8 &* n))
            h = (h ^ word) &* 0xC2B2_AE3D_27D4_EB4F
        }
        h ^= h &>> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        return h ^ (h &>> 33)
    }

    /// Makes room for more keys (at least doubling; the first time, the expected number).
    @inline(never) private mutating func growKeys() {
        keyCapacity = max(64, keyCapacity * 2, expectedKeys)
        keys = ScratchRegion.resize(keys, count: keyCount, to: keyCapacity, in: storage.region)
        storage.keys = keys
    }

    /// Doubles the table and places every key again (their hashes computed again from their
    /// bytes). The first table has room for half the expected keys (the estimate errs on the
    /// large side), so a file of about the expected size regrows it at most once (each table
    /// left behind was memory touched for nothing).
    @inline(never) private mutating func grow() {
        if tableSize == 0 {
            tableSize = 128
            while tableSize < expectedKeys { tableSize <<= 1 }
        } else {
            tableSize *= 2
        }
        ScratchRegion.deallocate(self.table, in: storage.region)
        // Zeroed by the allocator (fresh pages of a large table are not even touched).
        let table = ScratchRegion.allocate(UInt32.self, count: tableSize, in: storage.region, zeroed: true)
        self.table = table
        storage.table = table
        let mask = tableSize - 1
        let low = UInt32(truncatingIfNeeded: mask)
        for i in 0..<keyCount {
            let key = keys![i]
            let hash = TopLevelNames.hash(UnsafeBufferPointer(start: bytes.map { $0 + Int(key.offset) }, count: Int(key.length)))
            var slot = Int(truncatingIfNeeded: hash) & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
            table[slot] = UInt32(truncatingIfNeeded: hash) & ~low | UInt32(truncatingIfNeeded: i + 1)
        }
    }
}
