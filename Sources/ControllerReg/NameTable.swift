/// A read-only hash table from name bytes to an index, probed without creating Strings
/// (so `create` by a C string costs one hash and one compare). 8 bytes a cell (the hash's high
/// half beside the index) and 12 bytes a name (where its bytes are, and their length).
// @unchecked: raw table memory written once in init, read-only afterwards.
struct NameTable: @unchecked Sendable {
    /// `hash >> 32` in the high half, `index + 1` in the low half; 0 for an empty cell.
    private var cells: UnsafeMutablePointer<UInt64>
    private let mask: Int
    /// Name bytes per index (owned by the entries' arenas); nil for unused indices.
    private let starts: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    private let lengths: UnsafeMutablePointer<UInt32>

    /// Builds a table over `names` (nil for unused indices).
    init(names: [(UnsafePointer<UInt8>, Int)?]) {
        var capacity = 16
        while capacity < names.count + names.count / 4 { capacity <<= 1 }
        mask = capacity - 1
        cells = .allocate(capacity: capacity)
        cells.initialize(repeating: 0, count: capacity)
        starts = .allocate(capacity: max(1, names.count))
        lengths = .allocate(capacity: max(1, names.count))
        for (i, n) in names.enumerated() {
            (starts + i).initialize(to: n?.0)
            (lengths + i).initialize(to: UInt32(truncatingIfNeeded: n?.1 ?? 0))
            guard let (p, len) = n else { continue }
            let h = byteHash(UnsafeRawBufferPointer(start: p, count: len))
            var s = Int(truncatingIfNeeded: h) & mask
            while cells[s] != 0 { s = (s + 1) & mask }
            cells[s] = (h & 0xffff_ffff_0000_0000) | UInt64(i + 1)
        }
    }

    /// Frees the table's storage (the owner calls this once).
    func deallocate() {
        cells.deallocate()
        starts.deallocate()
        lengths.deallocate()
    }

    /// The index of `length` bytes at `key` with precomputed `hash`, or -1.
    @inline(__always)
    func find(_ key: UnsafePointer<UInt8>, _ length: Int, hash: UInt64) -> Int {
        var s = Int(truncatingIfNeeded: hash) & mask
        let high = hash & 0xffff_ffff_0000_0000
        while true {
            let c = cells[s]
            if c == 0 { return -1 }
            if c & 0xffff_ffff_0000_0000 == high {
                let i = Int(truncatingIfNeeded: c & 0xffff_ffff) - 1
                if Int(lengths[i]) == length, let p = starts[i], memcmp(p, key, length) == 0 { return i }
            }
            s = (s + 1) & mask
        }
    }

    /// The name bytes of index `i` (not NUL-terminated), or nil for an unused index.
    func bytes(at i: Int) -> (UnsafePointer<UInt8>, Int)? {
        starts[i].map { ($0, Int(lengths[i])) }
    }

    /// The index of a String's bytes, or -1.
    func find(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { u in
            let base = u.baseAddress ?? emptyKey
            return find(base, u.count, hash: byteHash(UnsafeRawBufferPointer(u)))
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
