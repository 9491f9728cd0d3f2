#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hash index of an owned map's keys (`HeapValue` maps: props a host builds with
/// `cr_map_set_*`, the Swift API's props), so that setting a key costs the same whatever the map's
/// size: without it each set compared the key with every key before it, and a map of 40,000 keys
/// took 0.8 billion comparisons (~4 s) to build.
///
/// It lives in the map's own slot buffer, after its `capacity` slots (so it is freed, moved and
/// handed over with them), once the capacity reaches `minimumCapacity`: `2 * capacity` entries of
/// `UInt32`, each 0 (empty) or a slot's index plus one, open addressing with linear probing (load
/// at most one half: capacities are powers of two, from 4, doubled by `HeapValue.grow`). Slots are
/// only ever added or replaced in place, never removed, so entries never need deleting.
enum HeapMapIndex {
    /// The smallest capacity that has an index; smaller maps are searched slot by slot.
    static let minimumCapacity = 64

    /// The bytes of the index of a map with `capacity` slots (0 below `minimumCapacity`).
    static func bytes(capacity: Int) -> Int {
        capacity >= minimumCapacity ? 2 * capacity * MemoryLayout<UInt32>.stride : 0
    }

    /// The index of `map`, or nil when its capacity has none.
    private static func table(_ map: UnsafeMutablePointer<RawValue>) -> UnsafeMutablePointer<UInt32>? {
        let capacity = Int(map.pointee.b)
        guard capacity >= minimumCapacity, let buffer = map.pointee.pointerA else { return nil }
        return (buffer + capacity * MemoryLayout<RawMapSlot>.stride).bindMemory(to: UInt32.self, capacity: 2 * capacity)
    }

    /// The probe start of the key's bytes: the name table's hash (`NameTable.hash`: whole words,
    /// its low bits depend on every byte).
    private static func hash(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Int {
        Int(truncatingIfNeeded: NameTable.hash(bytes, length))
    }

    /// The slot among `slots` of `map` (whose capacity has an index) whose key is these bytes, or
    /// nil when none is.
    static func find(
        _ map: UnsafePointer<RawValue>, _ slots: UnsafeMutablePointer<RawMapSlot>, _ key: UnsafePointer<UInt8>,
        _ length: Int
    ) -> Int? {
        guard let table = table(UnsafeMutablePointer(mutating: map)) else { return nil }
        let mask = 2 * Int(map.pointee.b) - 1
        var at = hash(key, length) & mask
        while true {
            let entry = Int(table[at])
            if entry == 0 { return nil }
            if slots[entry - 1].keyEquals(key, length) { return entry - 1 }
            at = (at + 1) & mask
        }
    }

    /// Records slot `slot` (its key already written) in `map`'s index (nothing when it has none).
    static func insert(_ map: UnsafeMutablePointer<RawValue>, slot: Int) {
        guard let table = table(map), let slots = map.pointee.mapSlots else { return }
        put(table, mask: 2 * Int(map.pointee.b) - 1, slots[slot], slot)
    }

    /// Writes the index of `map` afresh from its slots (after its buffer grew: the index moved and
    /// the positions depend on the capacity).
    static func rebuild(_ map: UnsafeMutablePointer<RawValue>) {
        guard let table = table(map), let slots = map.pointee.mapSlots else { return }
        let size = 2 * Int(map.pointee.b)
        table.initialize(repeating: 0, count: size)
        for slot in 0..<Int(map.pointee.count) { put(table, mask: size - 1, slots[slot], slot) }
    }

    private static func put(_ table: UnsafeMutablePointer<UInt32>, mask: Int, _ s: RawMapSlot, _ slot: Int) {
        var at = hash(s.key, s.keyLength) & mask
        while table[at] != 0 { at = (at + 1) & mask }
        table[at] = UInt32(slot + 1)
    }
}

/// Key lookups that use an index: an owned map's own (`HeapMapIndex`), and a callback's arguments
/// map that merged such a map as props or has many slots. Reading every key of an N-key map is
/// then O(N), not O(N^2) (20,000 keys read in reverse took 0.37 s slot by slot; 20,000 declared
/// dependencies read in reverse, 0.87 s). Small maps never come here: `cr_map_get`, `args["k"]`
/// and props merging try their hinted slot or few slots first, inline.
///
/// An arguments map with an index (`RawValue.Flags.indexedProps`) is preceded in memory by one
/// `RawValue` (`propsTrailer`): `a` the map whose index covers it, `count` the arguments slot
/// where that map's slots begin, so its slot `i` is arguments slot `count + i`. Either the props
/// (their slots are copied there in order, after the dependencies they did not override; the
/// map then has no lookup hint), or, for an entry with many dependencies (`indexArguments`), a
/// map over the arguments' own slots, from slot 0, with its index after them (the map keeps its
/// lookup hint: reads in declared order stay one compare, and `cr_map_get` past the hint takes the
/// index, `ValueRef.searchAllArguments`).
enum IndexedLookup {
    /// Bytes before a large arguments map (`Resolver.buildLargeArguments`): the trailer, and before
    /// it the map over the arguments' own slots that `indexArguments` writes.
    static let bytesBeforeArguments = 2 * MemoryLayout<RawValue>.stride

    /// The capacity of the index an arguments map of `dependencies` slots and `props` props slots
    /// gets of its own: 0 when it has fewer than `HeapMapIndex.minimumCapacity` slots, or when its
    /// props have an index and its dependencies are few (the props' index covers it then); else
    /// the power of two from `HeapMapIndex.minimumCapacity` up that holds them all.
    static func argumentsIndexCapacity(dependencies: Int, props: Int, indexedProps: Bool) -> Int {
        let slots = dependencies &+ props
        guard slots >= HeapMapIndex.minimumCapacity, !(indexedProps && dependencies < HeapMapIndex.minimumCapacity) else {
            return 0
        }
        var capacity = HeapMapIndex.minimumCapacity
        while capacity < slots { capacity &*= 2 }
        return capacity
    }

    /// Gives `args` (an arguments map whose slots have room for `capacity`, from
    /// `argumentsIndexCapacity`, with `HeapMapIndex.bytes(capacity:)` after them) an index of its
    /// keys: the map over its slots two values before it, its index written, and the trailer.
    /// Costs a hash per slot, once per create of such an entry (which fills as many slots).
    static func indexArguments(_ args: UnsafeMutablePointer<RawValue>, capacity: Int) {
        let own = args - 2
        own.initialize(to: RawValue(kind: .map, count: args.pointee.count, a: args.pointee.a, b: UInt64(capacity)))
        HeapMapIndex.rebuild(own)
        (args - 1).initialize(to: propsTrailer(own, start: 0))
        args.pointee.flags |= RawValue.Flags.indexedProps
    }

    /// Whether `map` (any value) has an index a lookup may use.
    @inline(__always) static func covers(_ map: UnsafePointer<RawValue>) -> Bool {
        map.pointee.valueKind == .map && (map.pointee.flags & RawValue.Flags.indexedProps != 0 || indexes(props: map))
    }

    /// The slot of `map` (which `covers`) whose key is the `length` bytes at `key`, or nil.
    static func slot(_ map: UnsafePointer<RawValue>, _ key: UnsafePointer<UInt8>, _ length: Int) -> Int? {
        guard let slots = map.pointee.mapSlots else { return nil }
        guard map.pointee.flags & RawValue.Flags.indexedProps != 0 else {
            return HeapMapIndex.find(map, slots, key, length)
        }
        let trailer = (map - 1).pointee
        let start = Int(trailer.count), n = Int(map.pointee.count)
        if let props = UnsafePointer<RawValue>(bitPattern: UInt(trailer.a)), let propsSlots = props.pointee.mapSlots,
            let i = HeapMapIndex.find(props, propsSlots, key, length), i < n - start, slots[start + i].keyEquals(key, length)
        {
            return start + i
        }
        // Not among the props: among the dependencies they did not override (an entry's few).
        for j in 0..<min(start, n) where slots[j].keyEquals(key, length) { return j }
        return nil
    }

    /// The trailer that goes before an arguments map merging `props` from slot `start` on.
    static func propsTrailer(_ props: UnsafePointer<RawValue>, start: Int) -> RawValue {
        RawValue(kind: .null, count: UInt32(truncatingIfNeeded: start), a: UInt64(UInt(bitPattern: props)))
    }

    /// Whether `props` (a map, or nil) has an index an arguments map merging it can use.
    @inline(__always) static func indexes(props: UnsafePointer<RawValue>?) -> Bool {
        guard let props else { return false }
        return props.pointee.flags & RawValue.Flags.owned != 0 && props.pointee.b >= HeapMapIndex.minimumCapacity
    }
}
