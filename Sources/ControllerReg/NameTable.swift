import Synchronization

/// A hash table from name bytes to an index, probed without creating Strings (so `create` by a
/// C string costs one hash and one compare). 4 bytes a cell and 12 bytes a name (where its bytes
/// are, and their length). Keyed by its own `NameTable.hash` (a few word loads per name, where
/// `byteHash` costs a multiply per byte): every `find` takes that hash.
///
/// Tables of one registry may share one (`EntryRows`): a table built by adding entries gives
/// them indices at and above the older table's count and inserts their names, while creates
/// still probe for the older table. Such a table's value is `limited(to:)` its count: indices
/// at or above it are not its own, so `find` and `bytes(at:)` pass over them (their rows may be
/// being written). Cells are read and written as relaxed atomics (a probe may meet a cell being
/// filled for a newer table, and either sees it whole or still empty).
// @unchecked: raw table memory; below a value's limit it is written before its table is published
// and only read afterwards.
struct NameTable: @unchecked Sendable {
    /// `index + 1` in the low bits (those of `mask`: the index is below the capacity), the name's
    /// hash in the bits above (bits the probe position, the hash's `mask` bits, does not use); 0
    /// for an empty cell.
    private var cells: UnsafeMutablePointer<UInt32>
    private let mask: Int
    /// Name bytes per index (owned by the entries' arenas); nil for unused indices.
    private let starts: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    private let lengths: UnsafeMutablePointer<UInt32>
    /// Indices at or above this are not this value's (a newer table's, sharing the storage).
    private var limit = Int.max
    /// How many indices the table has room for (names at indices below it).
    let indexCapacity: Int

    /// Builds a table over `names` (nil for unused indices).
    init(names: [(UnsafePointer<UInt8>, Int)?]) {
        self.init(count: names.count)
        for (i, n) in names.enumerated() {
            if let (p, len) = n { insert(i, p, len, hash: NameTable.hash(p, len)) }
        }
    }

    /// A table of `count` indices, none with a name yet (`insert` gives them theirs).
    init(count: Int) {
        // Above the count (so `index + 1` fits the low bits) with a quarter to spare; at most 2^32
        // cells (entry indices are 32-bit).
        indexCapacity = count
        var capacity = 16
        while capacity < count + count / 4 + 1 { capacity <<= 1 }
        mask = capacity - 1
        cells = .allocate(capacity: capacity)
        cells.initialize(repeating: 0, count: capacity)
        limit = count
        starts = .allocate(capacity: max(1, count))
        starts.initialize(repeating: nil, count: max(1, count))
        lengths = .allocate(capacity: max(1, count))
        lengths.initialize(repeating: 0, count: max(1, count))
    }

    /// Gives index `i`, which has no name yet, the `n` bytes at `p` (kept where they are), whose
    /// `NameTable.hash` is `hash`. Each index gets a name once.
    func insert(_ i: Int, _ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64) {
        assert(starts[i] == nil, "an index given a name twice")
        starts[i] = p
        lengths[i] = UInt32(truncatingIfNeeded: n)
        var s = Int(truncatingIfNeeded: h) & mask
        while cell(s) != 0 { s = (s + 1) & mask }
        NameTable.atomic(cells + s).pointee.store(
            (UInt32(truncatingIfNeeded: h) & ~UInt32(truncatingIfNeeded: mask)) | UInt32(truncatingIfNeeded: i + 1),
            ordering: .relaxed)
    }

    /// Cell `s`, read as a relaxed atomic (a writer may be filling it for a newer table).
    @inline(__always) private func cell(_ s: Int) -> UInt32 { NameTable.atomic(cells + s).pointee.load(ordering: .relaxed) }

    /// A cell seen as the atomic it is accessed as.
    @inline(__always) private static func atomic(_ p: UnsafeMutablePointer<UInt32>) -> UnsafeMutablePointer<Atomic<UInt32>> {
        UnsafeMutableRawPointer(p).assumingMemoryBound(to: Atomic<UInt32>.self)
    }

    /// This table as seen by an entry table of `count` indices: higher indices are passed over.
    func limited(to count: Int) -> NameTable {
        var t = self
        t.limit = count
        return t
    }

    /// Index `i`'s name, now kept at `p` (the same `n` bytes as before).
    func replace(_ i: Int, _ p: UnsafePointer<UInt8>, _ n: Int) {
        assert(Int(length(i)) == n && starts[i].map { memcmp($0, p, n) == 0 } ?? false, "a name replaced by other bytes")
        starts[i] = p
    }

    /// Index `i` has no name any more (its cell stays and matches nothing). Only for a table no
    /// reader can see yet (`markRemoved` is the one for shared tables).
    func clear(_ i: Int) {
        starts[i] = nil
        lengths[i] = 0
    }

    /// The length a removed index is marked with: no name has it (names are far shorter), so
    /// `find` and `holds` pass over the index, and `bytes(at:)` gives nil.
    static let removedLength = UInt32.max

    /// Index `i`'s entry is removed, in every table sharing this storage (older ones included:
    /// called when the table without it is published): its name is found no more. One relaxed
    /// atomic store, which creates reading the storage see whole; its cell and bytes stay (a
    /// create already past the lookup keeps reading the entry's row, which is not changed).
    func markRemoved(_ i: Int) {
        NameTable.atomic(lengths + i).pointee.store(NameTable.removedLength, ordering: .relaxed)
    }

    /// Whether index `i`'s entry was marked removed (`markRemoved`).
    func isRemoved(_ i: Int) -> Bool { length(i) == NameTable.removedLength }

    /// Index `i`'s name length, read as a relaxed atomic (`markRemoved` may be writing it).
    @inline(__always) private func length(_ i: Int) -> UInt32 {
        NameTable.atomic(lengths + i).pointee.load(ordering: .relaxed)
    }

    /// Frees the table's storage (the owner calls this once).
    func deallocate() {
        cells.deallocate()
        starts.deallocate()
        lengths.deallocate()
    }

    /// The index of `length` bytes at `key` with precomputed `hash` (`NameTable.hash`), or -1.
    @inline(__always)
    func find(_ key: UnsafePointer<UInt8>, _ length: Int, hash: UInt64) -> Int {
        var s = Int(truncatingIfNeeded: hash) & mask
        let low = UInt32(truncatingIfNeeded: mask)
        let high = UInt32(truncatingIfNeeded: hash)
        while true {
            let c = cell(s)
            if c == 0 { return -1 }
            // The high bits agree exactly when what differs lies in the index bits.
            if c ^ high <= low {
                let i = Int(c & low) - 1
                if i < limit && Int(self.length(i)) == length, let p = starts[i], RawMapSlot.equalBytes(p, key, length) {
                    return i
                }
            }
            s = (s + 1) & mask
        }
    }

    /// The index of `length` bytes at `key` with precomputed `hash`, passing over the indices
    /// `hidden` gives true for (a removed entry's row, whose name a later row may have again), or
    /// -1.
    func find(_ key: UnsafePointer<UInt8>, _ length: Int, hash: UInt64, passingOver hidden: (Int) -> Bool) -> Int {
        var s = Int(truncatingIfNeeded: hash) & mask
        let low = UInt32(truncatingIfNeeded: mask)
        let high = UInt32(truncatingIfNeeded: hash)
        while true {
            let c = cell(s)
            if c == 0 { return -1 }
            if c ^ high <= low {
                let i = Int(c & low) - 1
                if i < limit && Int(self.length(i)) == length, let p = starts[i], RawMapSlot.equalBytes(p, key, length),
                    !hidden(i)
                {
                    return i
                }
            }
            s = (s + 1) & mask
        }
    }

    /// Whether index `i`, which must be below the count the table was made for, has the name of
    /// `length` bytes at `key` (what `find` of those bytes would return: each name is in the table
    /// once, and an index keeps its name until `clear`).
    @inline(__always)
    func holds(_ i: Int, _ key: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        Int(self.length(i)) == length && starts[i].map { RawMapSlot.equalBytes($0, key, length) } ?? false
    }

    /// The table's hash of `n` bytes at `p`: whole words (the last one overlapping the one before),
    /// two overlapping 4-byte halves, or the first, middle and last byte, with the length, then
    /// a round of MurmurHash3's 64-bit finaliser, so the probe position (low bits) and the fingerprint kept
    /// in a cell (the bits above it) both depend on every byte.
    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        let r = UnsafeRawPointer(p)
        var h = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: n)
        if n >= 8 {
            var i = 0
            while i &+ 8 < n {
                h = (h ^ r.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 29
                i &+= 8
            }
            h ^= r.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 {
            h ^=
                UInt64(r.loadUnaligned(as: UInt32.self))
                | UInt64(r.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)) << 32
        } else if n > 0 {
            h ^= UInt64(p[0]) | UInt64(p[n >> 1]) << 8 | UInt64(p[n &- 1]) << 16
        }
        // One round of the finaliser: the shift folds the high bits into the low ones before the
        // multiply spreads them up, the last shift folds them back down (what the table uses:
        // probe position low, fingerprint above it). A second round cost every create 4 instructions.
        h = (h ^ (h >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        return h ^ (h >> 33)
    }

    /// `hash` of a NUL-terminated name, and its length (`strlen`, then the words).
    @inline(__always)
    static func hash(cString: UnsafePointer<CChar>) -> (hash: UInt64, length: Int) {
        let n = strlen(cString)
        return (hash(UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), n), n)
    }

    /// Whether the table is large enough (256 KB) that reading the cells of a batch of names
    /// ahead of inserting them pays (`touch`): a smaller one stays in the processor's caches.
    var readsAhead: Bool { mask >= (1 << 16) - 1 }

    /// Reads the cell where the probe of a name with `hash` starts, and returns it (for nothing but
    /// the read: the cells of a batch read one after another are fetched from memory together,
    /// where inserting into a large table one name at a time waited for each cell in turn).
    @inline(__always) func touch(hash: UInt64) -> UInt32 { cell(Int(truncatingIfNeeded: hash) & mask) }

    /// The name bytes of index `i` (not NUL-terminated), or nil for an unused or removed index.
    func bytes(at i: Int) -> (UnsafePointer<UInt8>, Int)? {
        guard i < limit, let p = starts[i] else { return nil }
        let n = length(i)
        return n == NameTable.removedLength ? nil : (p, Int(n))
    }

    /// The index of a String's bytes, or -1.
    func find(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { u in
            let base = u.baseAddress ?? emptyKey
            return find(base, u.count, hash: NameTable.hash(base, u.count))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
