import ControllerRegConfig

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the strings an `InternTable` holds live: the bytes of the string recorded as `value`.
protocol InternedBytes {
    /// The bytes of the string recorded as `value` (never -1).
    func bytes(at value: Int) -> UnsafeRawBufferPointer
}

/// Open addressing over values that locate interned strings (arena offsets, pointers), with each
/// one's `byteHash` beside it; compared by their bytes where `InternedBytes` finds them. Raw memory
/// (a large load's `ScratchRegion` when given), grown at half full. The one byte-keyed interning
/// table: a `[String: …]` costs a SipHash of a `String` per lookup.
struct InternTable {
    private struct Slot {
        var value: Int  // -1: empty
        var hash: UInt64
    }

    private var slots: UnsafeMutablePointer<Slot>?
    private var capacity = 0
    private var used = 0
    /// Where the slots are allocated (nil: `malloc`); let go by `free()`.
    private var region: ScratchRegion?

    /// An empty table whose slots come from `region` when given.
    init(in region: ScratchRegion? = nil) { self.region = region }

    /// The value recorded for the string with `bytes` (hash `hash`, `byteHash(bytes)`); nil if it
    /// is new, after recording `newValue` (where the caller stores it) for it, when given.
    @inline(__always)
    mutating func find<Store: InternedBytes>(
        _ bytes: UnsafeRawBufferPointer, hash: UInt64, in store: Store, orInsert newValue: Int? = nil
    ) -> Int? {
        if newValue != nil && used * 2 >= capacity { grow() }
        guard let slots = self.slots else { return nil }
        let mask = capacity - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i].value >= 0 {
            if slots[i].hash == hash {
                let held = store.bytes(at: slots[i].value)
                let n = held.count
                if n == bytes.count && (n == 0 || memcmp(held.baseAddress!, bytes.baseAddress!, n) == 0) {
                    return slots[i].value
                }
            }
            i = (i + 1) & mask
        }
        if let newValue {
            slots[i] = Slot(value: newValue, hash: hash)
            used += 1
        }
        return nil
    }

    private mutating func grow() {
        let newCapacity = max(64, capacity * 2)
        let fresh = ScratchRegion.allocate(Slot.self, count: newCapacity, in: region)
        fresh.initialize(repeating: Slot(value: -1, hash: 0), count: newCapacity)
        if let old = slots {
            for k in 0..<capacity where old[k].value >= 0 {
                var i = Int(truncatingIfNeeded: old[k].hash) & (newCapacity - 1)
                while fresh[i].value >= 0 { i = (i + 1) & (newCapacity - 1) }
                fresh[i] = old[k]
            }
            ScratchRegion.deallocate(old, in: region)
        }
        slots = fresh
        capacity = newCapacity
    }

    /// Frees the table (it is empty afterwards, and no longer keeps its region).
    mutating func free() {
        ScratchRegion.deallocate(slots, in: region)
        region = nil
        slots = nil
        capacity = 0
        used = 0
    }
}
