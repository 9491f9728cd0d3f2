#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Owned value trees on the C heap: what hosts build as props (`cr_map_new` …) and what the Swift
/// API converts `Value` into. Every function returns nil/false when memory runs out; nothing traps.
public enum HeapValue {
    /// A new empty owned map root, or nil when out of memory.
    public static func newMap() -> UnsafeMutablePointer<RawValue>? {
        newRoot(RawValue(kind: .map, flags: RawValue.Flags.owned | RawValue.Flags.heapRoot))
    }

    /// A new empty owned list root, or nil when out of memory.
    public static func newList() -> UnsafeMutablePointer<RawValue>? {
        newRoot(RawValue(kind: .list, flags: RawValue.Flags.owned | RawValue.Flags.heapRoot))
    }

    /// A new owned root holding a scalar (null, bool, int, double, object) or a copied string.
    public static func newRoot(_ value: RawValue) -> UnsafeMutablePointer<RawValue>? {
        guard let raw = malloc(MemoryLayout<RawValue>.stride) else { return nil }
        let p = raw.bindMemory(to: RawValue.self, capacity: 1)
        var v = value
        v.flags |= RawValue.Flags.heapRoot
        p.initialize(to: v)
        return p
    }

    /// An owned copy of `length` bytes as a string value (NUL-terminated), or nil when out of memory.
    public static func string(_ bytes: UnsafeRawPointer?, length: Int) -> RawValue? {
        guard length >= 0, length < Int(UInt32.max), let copy = malloc(length + 1) else { return nil }
        if length > 0, let bytes { memcpy(copy, bytes, length) }
        copy.storeBytes(of: 0, toByteOffset: length, as: UInt8.self)
        return RawValue(kind: .string, flags: RawValue.Flags.owned, count: UInt32(length), a: UInt64(UInt(bitPattern: copy)))
    }

    /// Sets `key` in an owned map to `value`, taking ownership of `value`'s owned memory; an existing
    /// value under the same key is freed and replaced. Returns false (and frees `value`) when out of memory.
    public static func mapSet(_ map: UnsafeMutablePointer<RawValue>, key: UnsafeRawPointer, keyLength: Int, value: RawValue) -> Bool {
        var value = value
        value.flags &= ~RawValue.Flags.heapRoot
        let keyBytes = key.assumingMemoryBound(to: UInt8.self)
        let count = Int(map.pointee.count)
        if let slots = map.pointee.mapSlots {
            for i in 0 ..< count where slots[i].keyEquals(keyBytes, keyLength) {
                freeContents(&slots[i].value)
                slots[i].value = value
                return true
            }
        }
        guard let keyCopy = malloc(keyLength + 1) else { freeContents(&value); return false }
        memcpy(keyCopy, key, keyLength)
        keyCopy.storeBytes(of: 0, toByteOffset: keyLength, as: UInt8.self)
        guard let slots = grow(map, elementSize: MemoryLayout<RawMapSlot>.stride) else {
            libcFree(keyCopy)
            freeContents(&value)
            return false
        }
        (slots.assumingMemoryBound(to: RawMapSlot.self) + count).initialize(to: RawMapSlot(
            key: UnsafePointer(keyCopy.assumingMemoryBound(to: UInt8.self)), keyLength: keyLength, value: value))
        map.pointee.count += 1
        return true
    }

    /// Appends `value` to an owned list, taking ownership of its owned memory. False when out of memory.
    public static func listAppend(_ list: UnsafeMutablePointer<RawValue>, value: RawValue) -> Bool {
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
    public static func free(_ root: UnsafeMutablePointer<RawValue>) {
        freeContents(&root.pointee)
        libcFree(root)
    }

    /// Frees what an owned value owns (strings, keys, children) and leaves it null. Iterative: a
    /// host may build values nested to any depth (cr_list_push_value in a loop), and freeing one
    /// must not overflow the stack.
    public static func freeContents(_ v: inout RawValue) {
        // Containers whose children are being freed, with the next child to look at.
        var pending: [(container: RawValue, next: Int)] = []
        var current = v
        v = .null
        while true {
            if current.flags & RawValue.Flags.owned != 0 {
                switch current.valueKind {
                case .string:
                    libcFree(current.pointerA)
                case .list, .map:
                    if current.pointerA != nil { pending.append((current, 0)) }
                default:
                    break
                }
            }
            // The next owned child of the innermost open container, closing finished ones.
            var found = false
            while let top = pending.last {
                let c = top.container
                let i = top.next
                if i < Int(c.count) {
                    pending[pending.count - 1].next = i + 1
                    if c.valueKind == .list {
                        current = c.listElements![i]
                    } else {
                        let slot = c.mapSlots![i]
                        libcFree(UnsafeMutableRawPointer(mutating: slot.key))
                        current = slot.value
                    }
                    found = true
                    break
                }
                libcFree(c.pointerA)
                pending.removeLast()
            }
            if !found { return }
        }
    }

    /// Ensures room for one more element; returns the (possibly moved) element buffer.
    private static func grow(_ container: UnsafeMutablePointer<RawValue>, elementSize: Int) -> UnsafeMutableRawPointer? {
        let count = Int(container.pointee.count)
        let capacity = Int(container.pointee.b)
        if count < capacity, let p = container.pointee.pointerA { return p }
        if count >= Int(UInt32.max) - 1 { return nil }
        let newCapacity = max(4, capacity * 2)
        guard let p = realloc(container.pointee.pointerA, newCapacity * elementSize) else { return nil }
        container.pointee.a = UInt64(UInt(bitPattern: p))
        container.pointee.b = UInt64(newCapacity)
        return p
    }
}
