/// A read-only hash table from name bytes to an index, probed without creating Strings
/// (so `create` by a C string costs one hash and one compare).
// @unchecked: raw table memory written once in init, read-only afterwards.
struct NameTable: @unchecked Sendable {
    private var slots: UnsafeMutablePointer<Int32>
    private var hashes: UnsafeMutablePointer<UInt64>
    private let mask: Int
    /// Name bytes per index (NUL-terminated, owned by the entries' arenas; length -1 for an unused
    /// index). Raw memory, not an Array, so a lookup does no reference counting or bounds check.
    private let names: UnsafeMutablePointer<(UnsafePointer<UInt8>, Int)>

    /// Builds a table over `names` (nil for unused indices).
    init(names: [(UnsafePointer<UInt8>, Int)?]) {
        var capacity = 16
        while capacity < names.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: -1, count: capacity)
        hashes = .allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        self.names = .allocate(capacity: max(1, names.count))
        for (i, n) in names.enumerated() { (self.names + i).initialize(to: n ?? (emptyKey, -1)) }
        for (i, n) in names.enumerated() {
            guard let (p, len) = n else { continue }
            let h = byteHash(UnsafeRawBufferPointer(start: p, count: len))
            var s = Int(truncatingIfNeeded: h) & mask
            while slots[s] >= 0 { s = (s + 1) & mask }
            slots[s] = Int32(i)
            hashes[s] = h
        }
    }

    /// Frees the table's storage (the owner calls this once).
    func deallocate() {
        slots.deallocate()
        hashes.deallocate()
        names.deallocate()
    }

    /// The index of `length` bytes at `key` with precomputed `hash`, or -1.
    @inline(__always)
    func find(_ key: UnsafePointer<UInt8>, _ length: Int, hash: UInt64) -> Int {
        var s = Int(truncatingIfNeeded: hash) & mask
        while true {
            let i = Int(slots[s])
            if i < 0 { return -1 }
            if hashes[s] == hash {
                let (p, len) = names[i]
                if len == length, memcmp(p, key, length) == 0 { return i }
            }
            s = (s + 1) & mask
        }
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
