#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Owned value trees on the C heap: what hosts build as props (`cr_map_new` …) and what the Swift
/// API converts `Value` into. Every function returns nil/false when memory runs out; nothing traps.
package enum HeapValue {
    /// A new empty owned map root, or nil when out of memory.
    package static func newMap() -> UnsafeMutablePointer<RawValue>? {
        newRoot(RawValue(kind: .map, flags: RawValue.Flags.owned | RawValue.Flags.heapRoot))
    }

    /// A new empty owned list root, or nil when out of memory.
    package static func newList() -> UnsafeMutablePointer<RawValue>? {
        newRoot(RawValue(kind: .list, flags: RawValue.Flags.owned | RawValue.Flags.heapRoot))
    }

    /// A new owned root holding a scalar (null, bool, int, double, object) or a copied string.
    package static func newRoot(_ value: RawValue) -> UnsafeMutablePointer<RawValue>? {
        guard let raw = malloc(MemoryLayout<RawValue>.stride) else { return nil }
        let p = raw.bindMemory(to: RawValue.self, capacity: 1)
        var v = value
        v.flags |= RawValue.Flags.heapRoot
        p.initialize(to: v)
        return p
    }

    /// The object value a host puts in props (the caller keeps the object: `CR_OWNER_CALLER` in
    /// args), or nil when `pointer` is NULL: an object value always holds an object, so a reader's
    /// NULL (`cr_value_object`) only ever means "not an object"; no object is a null value. The one
    /// rule of every door that sets an object: `cr_map_set_object`, `cr_list_push_object`, the
    /// Swift API's `Value.object` in props, and the bindings (through the C ABI). `swiftObject`:
    /// the pointer is a Swift object (`ObjectReference.isSwiftObject`; `RawValue.swiftObject`).
    package static func object(
        _ pointer: UnsafeMutableRawPointer?, registryOwned: Bool = false, swiftObject: Bool = false
    ) -> RawValue? {
        guard let pointer else { return nil }
        let tag = swiftObject ? RawValue.swiftObject : 0
        return registryOwned ? .object(pointer, registryOwned: true, tag: tag) : .callerObject(pointer, tag: tag)
    }

    /// Why a NULL object was refused (`object` gave nil), for the message of `setter`, a door that
    /// sets values (a C function or a Swift props path): what to use instead for "no object".
    package static func nullObjectReason(useInstead: String) -> String {
        "the object is NULL: an object value must hold an object (use \(useInstead) for no object)"
    }

    /// An owned copy of `length` bytes as a string value (NUL-terminated), or nil when out of memory.
    package static func string(_ bytes: UnsafeRawPointer?, length: Int) -> RawValue? {
        guard length >= 0, length < Int(UInt32.max), let copy = malloc(length + 1) else { return nil }
        if length > 0, let bytes { memcpy(copy, bytes, length) }
        copy.storeBytes(of: 0, toByteOffset: length, as: UInt8.self)
        return RawValue(kind: .string, flags: RawValue.Flags.owned, count: UInt32(length), a: UInt64(UInt(bitPattern: copy)))
    }

    /// Sets `key` in an owned map to `value`, taking ownership of `value`'s owned memory; an existing
    /// value under the same key is freed and replaced. Returns false (and frees `value`) when out of memory.
    package static func mapSet(
        _ map: UnsafeMutablePointer<RawValue>, key: UnsafeRawPointer, keyLength: Int, value: RawValue
    ) -> Bool {
        assert(
            map.pointee.valueKind == .map && map.pointee.flags & RawValue.Flags.owned != 0,
            "HeapValue.mapSet on a \(map.pointee.valueKind) that is not an owned map")
        var value = value
        value.flags &= ~RawValue.Flags.heapRoot
        let keyBytes = key.assumingMemoryBound(to: UInt8.self)
        let count = Int(map.pointee.count)
        if let slots = map.pointee.mapSlots, let i = slot(of: map, slots, count, keyBytes, keyLength) {
            freeContents(&slots[i].value)
            slots[i].value = value
            return true
        }
        guard let keyCopy = malloc(keyLength + 1) else {
            freeContents(&value)
            return false
        }
        memcpy(keyCopy, key, keyLength)
        keyCopy.storeBytes(of: 0, toByteOffset: keyLength, as: UInt8.self)
        guard let slots = grow(map, elementSize: MemoryLayout<RawMapSlot>.stride, isMap: true) else {
            libcFree(keyCopy)
            freeContents(&value)
            return false
        }
        (slots.assumingMemoryBound(to: RawMapSlot.self) + count).initialize(
            to: RawMapSlot(
                key: UnsafePointer(keyCopy.assumingMemoryBound(to: UInt8.self)), keyLength: keyLength, value: value))
        map.pointee.count += 1
        if map.pointee.b >= HeapMapIndex.minimumCapacity { HeapMapIndex.insert(map, slot: count) }
        return true
    }

    /// The slot of an owned map holding this key, or nil: through the map's index when it has one
    /// (`HeapMapIndex`), else by comparing each of its few slots.
    private static func slot(
        of map: UnsafeMutablePointer<RawValue>, _ slots: UnsafeMutablePointer<RawMapSlot>, _ count: Int,
        _ key: UnsafePointer<UInt8>, _ length: Int
    ) -> Int? {
        if map.pointee.b >= HeapMapIndex.minimumCapacity { return HeapMapIndex.find(map, slots, key, length) }
        for i in 0..<count where slots[i].keyEquals(key, length) { return i }
        return nil
    }

    /// Appends `value` to an owned list, taking ownership of its owned memory. False when out of memory.
    package static func listAppend(_ list: UnsafeMutablePointer<RawValue>, value: RawValue) -> Bool {
        assert(
            list.pointee.valueKind == .list && list.pointee.flags & RawValue.Flags.owned != 0,
            "HeapValue.listAppend on a \(list.pointee.valueKind) that is not an owned list")
        var value = value
        value.flags &= ~RawValue.Flags.heapRoot
        guard let elements = grow(list, elementSize: MemoryLayout<RawValue>.stride) else {
            freeContents(&value)
            return false
        }
        (elements.assumingMemoryBound(to: RawValue.self) + Int(list.pointee.count)).initialize(to: value)
        list.pointee.count += 1
        return true
    }

    /// Frees an owned root and everything it owns. Objects are never freed (they are not owned by values).
    package static func free(_ root: UnsafeMutablePointer<RawValue>) {
        freeContents(&root.pointee)
        libcFree(root)
    }

    /// Frees what an owned value owns (strings, keys, children) and leaves it null. Iterative: a
    /// host may build values nested to any depth (cr_list_push_value in a loop), and freeing one
    /// must not overflow the stack. It allocates nothing (freeing must work when memory has run
    /// out): the way back up is kept by pointer reversal, in the slots of the containers being freed.
    package static func freeContents(_ v: inout RawValue) {
        let root = v
        v = .null
        guard root.flags & RawValue.Flags.owned != 0 else { return }
        if root.valueKind == .string {
            libcFree(root.pointerA)
            return
        }
        guard root.valueKind == .list || root.valueKind == .map, var buffer = root.pointerA else { return }
        // The container being freed, the next child to look at, and `link`: the slot (in the parent's
        // buffer) that held this container, overwritten with the parent's kind, count, buffer and link.
        var isList = root.valueKind == .list
        var count = Int(root.count)
        var next = 0
        var link: UnsafeMutablePointer<RawValue>?
        let valueOffset = MemoryLayout<RawMapSlot>.offset(of: \RawMapSlot.value)!
        while true {
            if next < count {
                let slot: UnsafeMutablePointer<RawValue>
                if isList {
                    slot = buffer.assumingMemoryBound(to: RawValue.self) + next
                } else {
                    let entry = buffer.assumingMemoryBound(to: RawMapSlot.self) + next
                    libcFree(UnsafeMutableRawPointer(mutating: entry.pointee.key))
                    slot = (UnsafeMutableRawPointer(entry) + valueOffset).assumingMemoryBound(to: RawValue.self)
                }
                next += 1
                let child = slot.pointee
                guard child.flags & RawValue.Flags.owned != 0 else { continue }
                if child.valueKind == .string {
                    libcFree(child.pointerA)
                } else if child.valueKind == .list || child.valueKind == .map, let childBuffer = child.pointerA {
                    slot.pointee = RawValue(
                        kind: isList ? .list : .map, count: UInt32(count),
                        a: UInt64(UInt(bitPattern: buffer)), b: UInt64(UInt(bitPattern: link)))
                    link = slot
                    isList = child.valueKind == .list
                    count = Int(child.count)
                    buffer = childBuffer
                    next = 0
                }
            } else {
                libcFree(buffer)
                guard let up = link else { return }
                let parent = up.pointee
                assert(
                    parent.valueKind == .list || parent.valueKind == .map, "freeContents: a parked parent link is not a container"
                )
                isList = parent.valueKind == .list
                count = Int(parent.count)
                buffer = parent.pointerA!
                let offset = UnsafeRawPointer(up) - UnsafeRawPointer(buffer) - (isList ? 0 : valueOffset)
                next = offset / (isList ? MemoryLayout<RawValue>.stride : MemoryLayout<RawMapSlot>.stride) + 1
                link = UnsafeMutablePointer(bitPattern: UInt(parent.b))
            }
        }
    }

    /// Ensures room for one more element; returns the (possibly moved) element buffer. A map's
    /// buffer (`isMap`) also holds its index after the slots (`HeapMapIndex`), written afresh when
    /// the buffer grows.
    private static func grow(
        _ container: UnsafeMutablePointer<RawValue>, elementSize: Int, isMap: Bool = false
    ) -> UnsafeMutableRawPointer? {
        let count = Int(container.pointee.count)
        let capacity = Int(container.pointee.b)
        if count < capacity, let p = container.pointee.pointerA { return p }
        if count >= Int(UInt32.max) - 1 { return nil }
        let newCapacity = max(4, capacity * 2)
        let indexBytes = isMap ? HeapMapIndex.bytes(capacity: newCapacity) : 0
        guard let p = realloc(container.pointee.pointerA, newCapacity * elementSize + indexBytes) else { return nil }
        container.pointee.a = UInt64(UInt(bitPattern: p))
        container.pointee.b = UInt64(newCapacity)
        if indexBytes > 0 { HeapMapIndex.rebuild(container) }
        return p
    }
}
