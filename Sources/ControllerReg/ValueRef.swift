import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A borrowed, read-only view of one value: what a class's `create` receives as its arguments.
///
/// A `ValueRef` into `args` is valid only while the `create` callback runs; copy what you keep
/// (`value` gives an owned `Value`). Accessors of the wrong kind return nil.
// @unchecked: a read-only view; the value it points at is never modified while views of it exist.
public struct ValueRef: @unchecked Sendable {
    /// The underlying value (what a C `cr_value *` points at).
    @usableFromInline package let pointer: UnsafePointer<RawValue>

    /// Wraps a pointer to a value.
    @inlinable package init(_ pointer: UnsafePointer<RawValue>) { self.pointer = pointer }

    /// The kind of the value.
    @inlinable public var kind: ValueKind { pointer.pointee.valueKind }
    /// Whether the value is null.
    @inlinable public var isNull: Bool { kind == .null }

    // The accessors a host's create closure calls (`args["k"]`, `.object(as:)`, `.int`, `.double`,
    // `.string`, `.bool`) are `@_transparent`: always inlined into the host's code. As merely
    // `@inlinable`, the optimizer stopped inlining them once a closure reading five arguments grew
    // past its inlining budget, and every later read became a call (a fifth of node5's create).
    /// The boolean, if this is a bool.
    public var bool: Bool? {
        @_transparent get { kind == .bool ? pointer.pointee.a != 0 : nil }
    }
    /// The integer, if this is an int.
    public var int: Int64? {
        @_transparent get { kind == .int ? Int64(bitPattern: pointer.pointee.a) : nil }
    }
    /// The number as a double, if this is a double or an int.
    public var double: Double? {
        @_transparent get {
            switch kind {
            case .double: return Double(bitPattern: pointer.pointee.a)
            case .int: return Double(Int64(bitPattern: pointer.pointee.a))
            default: return nil
            }
        }
    }
    /// The string, if this is a string.
    public var string: String? {
        @_transparent get {
            guard kind == .string, let b = pointer.pointee.stringBytes else { return kind == .string ? "" : nil }
            return String(utf8Bytes: b, count: Int(pointer.pointee.count))
        }
    }
    /// The NUL-terminated string bytes, if this is a string (valid as long as this view).
    @inlinable package var cString: UnsafePointer<CChar>? {
        guard kind == .string else { return nil }
        return UnsafeRawPointer(pointer.pointee.stringBytes).map { $0.assumingMemoryBound(to: CChar.self) } ?? emptyCString
    }
    /// The object pointer, if this is an object (nil once a Swift class's closure took it over
    /// with `take(as:)`).
    @inlinable public var object: UnsafeMutableRawPointer? {
        kind == .object && pointer.pointee.flags & RawValue.Flags.moved == 0 ? pointer.pointee.pointerA : nil
    }
    /// Whether this object belongs to the registry (a singleton) rather than to the receiver.
    @inlinable public var isRegistryOwned: Bool { kind == .object && pointer.pointee.flags & RawValue.Flags.registryOwned != 0 }
    /// Whether an object value's object is a Swift object (`RawValue.swiftObject`, read by the
    /// typed reads; the caller has checked the kind).
    @inlinable var holdsSwiftObject: Bool { pointer.pointee.reserved & RawValue.swiftObject != 0 }
    /// Whether this object came from the caller's props (the caller keeps it).
    @inlinable public var isCallerOwned: Bool { kind == .object && pointer.pointee.flags & RawValue.Flags.callerOwned != 0 }
    /// Whether this `graph` object was already given to another object of this create, which owns it.
    @inlinable public var isShared: Bool { kind == .object && pointer.pointee.flags & RawValue.Flags.shared != 0 }
    /// The provider, if this is one (borrowed: retain it — keep the reference — to use it later).
    public var provider: Provider? {
        guard kind == .provider, let p = pointer.pointee.pointerA else { return nil }
        return Unmanaged<Provider>.fromOpaque(p).takeUnretainedValue()
    }
    /// The object, if this is one, taken by the receiver: an object built for the receiver
    /// (`CR_OWNER_RECEIVER`) becomes its own for good, and the library no longer destroys it when
    /// the callback returns. Other objects (singletons, props, shared graph objects) are only read.
    /// (An object a Swift closure took over with `take(as:)` is marked taken too: C readers see it
    /// as the pointer of an object its taker owns, as after `cr_value_object`.)
    @inlinable @inline(__always) package func takeObject() -> UnsafeMutableRawPointer? {
        guard kind == .object else { return nil }
        take()
        return pointer.pointee.pointerA
    }

    /// Whether this is an object or provider built for the receiver that has been taken already
    /// (`takeObject`, `takeProvider`): it belongs to whoever took it.
    @inlinable package var wasTaken: Bool {
        pointer.pointee.flags & (RawValue.Flags.taken | RawValue.Flags.notReceivers) == RawValue.Flags.taken
    }

    /// The provider pointer (an `Unmanaged<Provider>`), if this is one, taken by the receiver like
    /// `takeObject`: the receiver releases it (`cr_provider_free`); one not taken, the library frees.
    @inlinable package func takeProvider() -> UnsafeMutableRawPointer? {
        guard kind == .provider else { return nil }
        take()
        return pointer.pointee.pointerA
    }

    /// Marks a receiver-owned value as taken. Such values live in the resolver's per-call memory,
    /// which is writable; values of every other owner are left alone.
    @inlinable @inline(__always) func take() {
        if pointer.pointee.flags & RawValue.Flags.notReceivers == 0 {
            UnsafeMutablePointer(mutating: pointer).pointee.flags |= RawValue.Flags.taken
        }
    }

    /// The Swift object, if this is one of type `T`.
    ///
    /// Only a Swift object is read: one built by a class registered with Swift closures
    /// (`register(className:create:)`, `HostClass.swift`), or given in Swift props as one
    /// (`ObjectReference(_: AnyObject)`). The library records which kind of class built each
    /// object (`RawValue.swiftObject`), so an object of a class registered with C functions
    /// (`HostClass(create:)`, or from C, C++ or Python in a registry they share), or a raw pointer
    /// in props, reads as nil, as an object of another type does; read its raw `object`. The same
    /// holds for `take(as:)` and `objects(as:)`; `Registry.create(_:as:)` throws `.type`.
    @_transparent public func object<T: AnyObject>(as type: T.Type) -> T? {
        guard let p = object, holdsSwiftObject else { return nil }
        return ValueRef.cast(Unmanaged<AnyObject>.fromOpaque(p).takeUnretainedValue(), to: T.self)
    }

    /// The Swift object, if this is one of type `T`, handed over to the closure that reads it.
    ///
    /// An object built for this create (`CR_OWNER_RECEIVER`) becomes the reader's: it gets the
    /// registry's reference, with no retain, and the registry no longer releases it when the
    /// closure returns (or throws: then the closure's own release frees it). This argument then
    /// reads as nothing: a second `take(as:)`, `object(as:)` or `object` of it returns nil, so
    /// keep the reference you got. Any other object (a singleton, one from the caller's props, a
    /// `graph` object other objects of the create may share) is only read, as `object(as:)` does.
    /// An object of another type, or one that is not a Swift object (see `object(as:)`), is left
    /// where it is (nil).
    ///
    /// `take(as:)` is what a class keeping an object it was built with calls: it saves the
    /// retain of `object(as:)` and the release when the closure returns.
    @_transparent public func take<T: AnyObject>(as type: T.Type) -> T? {
        // Inlined: a Swift object built for this receiver, not yet taken, exactly of type T, is
        // handed over here (its kind, flags and tag tested in one compare: `isReceiversSwiftObject`);
        // anything else takes `takeOther`.
        // (The object of such a value is never nil: a Swift class's closure returns an object.)
        if isReceiversSwiftObject, pointer.pointee.b == 0,
            case let p = pointer.pointee.pointerA.unsafelyUnwrapped,
            Unmanaged<AnyObject>.fromOpaque(p)._withUnsafeGuaranteedRef({
                ObjectIdentifier(Swift.type(of: $0)) == ObjectIdentifier(T.self)
            })
        {
            UnsafeMutablePointer(mutating: pointer).pointee.flags |= RawValue.Flags.moved | RawValue.Flags.taken
            return unsafeDowncast(Unmanaged<AnyObject>.fromOpaque(p).takeRetainedValue(), to: T.self)
        }
        return takeOther(as: T.self)
    }

    /// Whether this is an object value of a Swift object (`RawValue.swiftObject`) built for the
    /// receiver that nobody took yet: kind `.object`, none of the flags `notReceivers`, `taken`
    /// and `moved`. The value's first four bytes (kind, flags, `reserved`) are tested together.
    @inlinable @inline(__always) var isReceiversSwiftObject: Bool {
        #if _endian(little)
        let flags = UInt32(RawValue.Flags.notReceivers | RawValue.Flags.taken | RawValue.Flags.moved)
        let mask = 0xFF | flags << 8 | UInt32(RawValue.swiftObject) << 16
        let expected = UInt32(ValueKind.object.rawValue) | UInt32(RawValue.swiftObject) << 16
        return UnsafeRawPointer(pointer).load(as: UInt32.self) & mask == expected
        #else
        return kind == .object
            && pointer.pointee.flags & (RawValue.Flags.notReceivers | RawValue.Flags.taken | RawValue.Flags.moved) == 0
            && holdsSwiftObject
        #endif
    }

    /// `take(as:)` past its inlined case: a Swift object of type `T` (a subclass of it too) built
    /// for this receiver is handed over; any other Swift object of type `T` is read as
    /// `object(as:)` does; anything else is nil.
    @inlinable @inline(never) func takeOther<T: AnyObject>(as type: T.Type) -> T? {
        guard kind == .object, let p = pointer.pointee.pointerA,
            pointer.pointee.flags & RawValue.Flags.moved == 0, holdsSwiftObject
        else { return nil }
        return takeSlow(Unmanaged<AnyObject>.fromOpaque(p), as: T.self)
    }

    /// `take(as:)` of a Swift object not yet moved: one of type `T` (or a subclass) built for this
    /// receiver is handed over; any other is read as `object(as:)` does.
    @inlinable func takeSlow<T: AnyObject>(_ unmanaged: Unmanaged<AnyObject>, as type: T.Type) -> T? {
        guard let typed = ValueRef.cast(unmanaged.takeUnretainedValue(), to: T.self) else { return nil }
        if pointer.pointee.flags & (RawValue.Flags.notReceivers | RawValue.Flags.taken) == 0, pointer.pointee.b == 0 {
            UnsafeMutablePointer(mutating: pointer).pointee.flags |= RawValue.Flags.moved | RawValue.Flags.taken
            unmanaged.release()
        }
        return typed
    }

    /// `object as? T`, with the common case first: the object's class is exactly `T` (one
    /// metadata compare, no runtime cast); a subclass or another class takes the full cast.
    @inlinable static func cast<T: AnyObject>(_ object: AnyObject, to type: T.Type) -> T? {
        if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) { return unsafeDowncast(object, to: T.self) }
        return object as? T
    }

    /// Element count of a list or map, string length in bytes, otherwise 0.
    @inlinable public var count: Int {
        switch kind {
        case .list, .map, .string: return Int(pointer.pointee.count)
        default: return 0
        }
    }

    /// The element at `index` of a list, or nil when out of range or not a list.
    @inlinable public subscript(index: Int) -> ValueRef? {
        guard kind == .list, index >= 0, index < Int(pointer.pointee.count), let e = pointer.pointee.listElements else {
            return nil
        }
        return ValueRef(e + index)
    }

    /// The Swift objects of a list of objects (what `{Tagged: t}` gives), in order, if this is a
    /// list whose every element is an object of type `T`; nil otherwise.
    public func objects<T: AnyObject>(as type: T.Type) -> [T]? {
        guard kind == .list else { return nil }
        var out: [T] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            guard let o = self[i]?.object(as: type) else { return nil }
            out.append(o)
        }
        return out
    }

    /// The value under `key` in a map, or nil when absent or not a map.
    ///
    /// Always inlined, reading the key's UTF-8 in place where the string allows it (native and small
    /// strings: no copy, no call), so a host's `args["title"]` costs less than a C lookup.
    public subscript(key: String) -> ValueRef? {
        @_transparent get {
            // Inlined: only the hinted slot (in the host's closure a literal key's bytes and length
            // are then constants, compared as immediates, and never stored). Anything else (another
            // slot, a map without a hint, a string without contiguous UTF-8) takes `lookupOutOfLine`,
            // given the string itself: passing its bytes' address would make every read store the
            // literal's bytes on the stack first, hit or miss.
            if let found = key.utf8.withContiguousStorageIfAvailable({ k in valueAtHint(k.baseAddress ?? emptyKey, k.count) })
                ?? nil
            {
                return found
            }
            return lookupOutOfLine(key)
        }
    }

    /// The hinted slot of a callback's arguments map (`RawValue.Flags.lookupHint`), if its key is
    /// the `length` bytes at `key` (the hint then moves past it); nil for anything else (the
    /// subscript then takes `lookupOutOfLine`).
    @inlinable @inline(__always) func valueAtHint(_ key: UnsafePointer<UInt8>, _ length: Int) -> ValueRef? {
        guard isArgumentsMap else { return nil }
        let hint = RawValue.lookupHint(pointer)
        let h = Int(hint.pointee.load(ordering: .relaxed))
        guard h < Int(pointer.pointee.count) else { return nil }
        let slot = pointer.pointee.mapSlots.unsafelyUnwrapped + h
        guard slot.pointee.keyEquals(key, length) else { return nil }
        hint.pointee.store(UInt16(truncatingIfNeeded: h &+ 1), ordering: .relaxed)
        return ValueRef.valueOf(slot)
    }

    /// `subscript(key:)` past its inlined try of the hinted slot: a search of every slot
    /// (`searchBytes`, which moves the hint past the slot found), the key's UTF-8 made contiguous
    /// first when it is not.
    @usableFromInline @inline(never) func lookupOutOfLine(_ key: String) -> ValueRef? {
        var key = key
        return key.withUTF8 { k in searchBytes(k.baseAddress ?? emptyKey, k.count) }
    }

    /// The value under `length` key bytes, through the map's index when it has one
    /// (`IndexedLookup`), else searched slot by slot (`lookup`), updating the hint (if the map has
    /// one) to the slot after the one found.
    @usableFromInline @inline(never) func searchBytes(_ key: UnsafePointer<UInt8>, _ length: Int) -> ValueRef? {
        guard kind == .map, let slots = pointer.pointee.mapSlots else { return nil }
        if IndexedLookup.covers(pointer) {
            guard let i = IndexedLookup.slot(pointer, key, length) else { return nil }
            if isArgumentsMap {
                RawValue.lookupHint(pointer).pointee.store(UInt16(truncatingIfNeeded: i &+ 1), ordering: .relaxed)
            }
            return ValueRef.valueOf(slots + i)
        }
        for i in 0..<Int(pointer.pointee.count) where slots[i].keyEquals(key, length) {
            if isArgumentsMap {
                RawValue.lookupHint(pointer).pointee.store(UInt16(truncatingIfNeeded: i &+ 1), ordering: .relaxed)
            }
            return ValueRef.valueOf(slots + i)
        }
        return nil
    }

    /// The value under the NUL-terminated `key`, or nil (what `cr_map_get` returns): the hinted
    /// slot of a callback's arguments map (`valueAtHint`), else a search of its slots
    /// (`searchArguments`); any other map takes `valuePastHint`.
    @inlinable @inline(__always) package func value(forCKey key: UnsafePointer<CChar>) -> ValueRef? {
        if isArgumentsMap {
            if let found = valueAtHint(forCKey: key) { return found }
            return searchArguments(cKey: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self))
        }
        return valuePastHint(forCKey: key)
    }

    /// Whether this is a callback's arguments map (`RawValue.Flags.lookupHint`: a map, with slots
    /// whenever it has any, built in one call's memory), whose lookups keep a hint.
    @inlinable @inline(__always) package var isArgumentsMap: Bool {
        pointer.pointee.flags & RawValue.Flags.lookupHint != 0
    }

    /// The first try of `cr_map_get` on a callback's arguments map (`isArgumentsMap`, checked by
    /// the caller): the hinted slot, if its key is the NUL-terminated `key` (the hint then moves
    /// past it); nil for any other slot or key. The map remembers the slot after the last one
    /// found: a host reading its arguments in the order they were declared compares one key per
    /// lookup; any other read takes `searchArguments`. Bytes are compared in place (no `strlen` of
    /// the key, no `memcmp`, never a byte past the key's NUL): a slot matches when its `keyLength`
    /// bytes equal the key's and the key ends there. An arguments map's keys hold no NUL byte
    /// (`RawValue.hintable(props:)`), so no byte needs a NUL test (`RawMapSlot.nulFreeKeyEquals`).
    @inlinable @inline(__always) package func valueAtHint(forCKey key: UnsafePointer<CChar>) -> ValueRef? {
        let hint = RawValue.lookupHint(pointer)
        let h = Int(hint.pointee.load(ordering: .relaxed))
        guard h < Int(pointer.pointee.count) else { return nil }
        let slot = pointer.pointee.mapSlots.unsafelyUnwrapped + h
        let k = UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)
        guard slot.pointee.key.pointee == k.pointee, slot.pointee.nulFreeKeyEquals(cString: k, from: 1) else { return nil }
        hint.pointee.store(UInt16(truncatingIfNeeded: h &+ 1), ordering: .relaxed)
        return ValueRef.valueOf(slot)
    }

    /// `cr_map_get` on an arguments map past its hinted slot. A host reading its arguments in an
    /// order of its own often reads one key late: first the slot after the hinted one is tried
    /// (the host read past a key: the slot it skipped is remembered, `RawValue.skippedSlot`), then
    /// the slot skipped earlier (the host reads it now); each costs one compare, no search. Any
    /// other read takes `searchAllArguments`. Reached in tail position from `cr_map_get`, so a read
    /// out of declared order costs a few compares, not a second search through the general path.
    @usableFromInline @inline(never) package func searchArguments(cKey k: UnsafePointer<UInt8>) -> ValueRef? {
        let n = Int(pointer.pointee.count)
        let hint = RawValue.lookupHint(pointer)
        let h = Int(hint.pointee.load(ordering: .relaxed))
        let skipped = RawValue.skippedSlot(pointer)
        let next = h &+ 1
        if next < n {
            let slot = pointer.pointee.mapSlots.unsafelyUnwrapped + next
            if slot.pointee.key.pointee == k.pointee, slot.pointee.nulFreeKeyEquals(cString: k, from: 1) {
                hint.pointee.store(UInt16(truncatingIfNeeded: next &+ 1), ordering: .relaxed)
                skipped.pointee.store(UInt64(truncatingIfNeeded: next), ordering: .relaxed)  // slot h, plus one
                return ValueRef.valueOf(slot)
            }
        }
        let late = Int(truncatingIfNeeded: skipped.pointee.load(ordering: .relaxed)) &- 1
        if UInt(bitPattern: late) < UInt(bitPattern: n) {
            let slot = pointer.pointee.mapSlots.unsafelyUnwrapped + late
            if slot.pointee.key.pointee == k.pointee, slot.pointee.nulFreeKeyEquals(cString: k, from: 1) {
                skipped.pointee.store(0, ordering: .relaxed)
                return ValueRef.valueOf(slot)
            }
        }
        return searchAllArguments(cKey: k)
    }

    /// `searchArguments` past its two tries: through the map's index when it has one (many
    /// slots: `IndexedLookup`), else every slot once, starting after the hinted one (a host
    /// that skips keys usually reads on from there) and wrapping around; the hint moves past the
    /// slot found. One loop with no calls (most keys that differ differ in their first byte).
    @usableFromInline @inline(never) func searchAllArguments(cKey k: UnsafePointer<UInt8>) -> ValueRef? {
        let n = Int(pointer.pointee.count)
        let hint = RawValue.lookupHint(pointer)
        if pointer.pointee.flags & RawValue.Flags.indexedProps != 0 {  // many slots: their index (`IndexedLookup`)
            guard let i = IndexedLookup.slot(pointer, k, strlen(UnsafeRawPointer(k).assumingMemoryBound(to: CChar.self)))
            else { return nil }
            hint.pointee.store(UInt16(truncatingIfNeeded: i &+ 1), ordering: .relaxed)
            return ValueRef.valueOf(pointer.pointee.mapSlots.unsafelyUnwrapped + i)
        }
        let h = Int(hint.pointee.load(ordering: .relaxed))
        let first = k.pointee
        // Past the hinted slot to the end, then from the start through the hinted one (all of
        // them when the hint is past the end): two plain ranges, no wrap test per slot.
        var i = h &+ 1
        var end = n
        var wrapped = false
        while true {
            while i < end {
                let slot = pointer.pointee.mapSlots.unsafelyUnwrapped + i
                if slot.pointee.key.pointee == first, slot.pointee.nulFreeKeyEquals(cString: k, from: 1) {
                    hint.pointee.store(UInt16(truncatingIfNeeded: i &+ 1), ordering: .relaxed)
                    return ValueRef.valueOf(slot)
                }
                i &+= 1
            }
            if wrapped { return nil }
            wrapped = true
            i = 0
            end = h &+ 1 < n ? h &+ 1 : n
        }
    }

    /// `cr_map_get` on a map that is not an arguments map (nil when this is not a map): `search`
    /// of the slots.
    @inlinable @inline(__always) package func valuePastHint(forCKey key: UnsafePointer<CChar>) -> ValueRef? {
        guard kind == .map, let slots = pointer.pointee.mapSlots else { return nil }
        return search(cKey: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self), slots)
    }

    /// The value under the NUL-terminated `k` among `slots` of a map without a hint (props, maps
    /// inside arguments), or nil: through its index when it has one (`IndexedLookup`), else slot
    /// by slot.
    @usableFromInline @inline(never) func search(
        cKey k: UnsafePointer<UInt8>, _ slots: UnsafeMutablePointer<RawMapSlot>
    ) -> ValueRef? {
        if IndexedLookup.covers(pointer) {
            return IndexedLookup.slot(pointer, k, strlen(UnsafeRawPointer(k).assumingMemoryBound(to: CChar.self))).map {
                ValueRef.valueOf(slots + $0)
            }
        }
        let n = Int(pointer.pointee.count)
        let first = k.pointee
        var i = 0
        while i < n {
            // Most keys that differ differ in the first byte; past it, the rest is compared.
            if slots[i].key.pointee == first, slots[i].keyEquals(cString: k, afterFirst: first) {
                return ValueRef.valueOf(slots + i)
            }
            i &+= 1
        }
        return nil
    }

    /// The value of the map slot at `slot`.
    @inlinable @inline(__always) static func valueOf(_ slot: UnsafeMutablePointer<RawMapSlot>) -> ValueRef {
        ValueRef(
            UnsafeMutableRawPointer(slot).advanced(by: MemoryLayout<RawMapSlot>.offset(of: \.value)!)
                .assumingMemoryBound(to: RawValue.self))
    }

    /// The value under `length` key bytes, or nil.
    @inlinable @inline(__always) package func lookup(_ key: UnsafePointer<UInt8>, _ length: Int) -> ValueRef? {
        guard kind == .map, let slots = pointer.pointee.mapSlots else { return nil }
        for i in 0..<Int(pointer.pointee.count) where slots[i].keyEquals(key, length) {
            return ValueRef(
                UnsafeMutableRawPointer(slots + i).advanced(by: MemoryLayout<RawMapSlot>.offset(of: \.value)!)
                    .assumingMemoryBound(to: RawValue.self))
        }
        return nil
    }

    /// The key at `index` of a map (in order), or nil.
    public func key(at index: Int) -> String? {
        guard kind == .map, index >= 0, index < Int(pointer.pointee.count), let slots = pointer.pointee.mapSlots else {
            return nil
        }
        return String(decoding: UnsafeBufferPointer(start: slots[index].key, count: slots[index].keyLength), as: UTF8.self)
    }

    /// The NUL-terminated key at `index` of a map (valid as long as the map), or nil.
    package func cKey(at index: Int) -> UnsafePointer<CChar>? {
        guard kind == .map, index >= 0, index < Int(pointer.pointee.count), let slots = pointer.pointee.mapSlots else {
            return nil
        }
        return UnsafeRawPointer(slots[index].key).assumingMemoryBound(to: CChar.self)
    }

    /// The value at `index` of a map (in order), or nil.
    public func value(at index: Int) -> ValueRef? {
        guard kind == .map, index >= 0, index < Int(pointer.pointee.count), let slots = pointer.pointee.mapSlots else {
            return nil
        }
        return ValueRef(
            UnsafeMutableRawPointer(slots + index).advanced(by: MemoryLayout<RawMapSlot>.offset(of: \.value)!)
                .assumingMemoryBound(to: RawValue.self))
    }

    /// The keys of a map, in order.
    public var keys: [String] { (0..<(kind == .map ? count : 0)).compactMap { key(at: $0) } }

    /// An owned copy as a Swift `Value` (objects are copied as references).
    public var value: Value {
        switch kind {
        case .null: return .null
        case .bool: return .bool(bool!)
        case .int: return .int(int!)
        case .double: return .double(Double(bitPattern: pointer.pointee.a))
        case .string: return .string(string!)
        case .object:
            return object.map {
                .object(
                    ObjectReference(
                        $0, registryOwned: isRegistryOwned, swiftObject: holdsSwiftObject))
            } ?? .null
        case .provider: return provider.map { .provider($0) } ?? .null
        case .list: return .list((0..<count).map { self[$0]!.value })
        case .map:
            var result: [String: Value] = [:]
            for i in 0..<count { result[key(at: i)!] = value(at: i)!.value }
            return .map(result)
        }
    }
}

extension String {
    /// The string of `count` UTF-8 bytes (ill-formed sequences repaired, as `String(decoding:as:)`
    /// does). Up to 15 bytes of ASCII (most keys and short literals) become a small string
    /// straight from their bytes (`smallASCII`); anything else takes the decoding path.
    @inlinable @inline(__always) init(utf8Bytes bytes: UnsafePointer<UInt8>, count: Int) {
        if count <= 15, let small = String.smallASCII(bytes, count) {
            self = small
            return
        }
        self.init(decodingBytes: bytes, count: count)
    }

    /// `init(utf8Bytes:count:)` past its small-ASCII path (out of line).
    @usableFromInline init(decodingBytes bytes: UnsafePointer<UInt8>, count: Int) {
        if #available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, *) {
            self.init(unsafeUninitializedCapacity: count) { buffer in
                buffer.baseAddress.unsafelyUnwrapped.initialize(from: bytes, count: count)
                return count
            }
        } else {
            self.init(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }

    /// The small string of `count` (at most 15) bytes if they are all ASCII, else nil, built from
    /// the bytes without validating them a second time: a small ASCII string is its bytes in two
    /// little-endian words with `0xE0 | count` in the top byte (the layout the compiler itself
    /// emits for string literals, fixed by the Swift ABI on 64-bit platforms). Reads only the
    /// `count` bytes (two overlapping loads, or bytes one by one below 4). `SwiftAPICreateTests`
    /// checks every length against `String(decoding:as:)`. Elsewhere: nil (the decoding path).
    @inlinable @inline(__always)
    static func smallASCII(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> String? {
        #if _pointerBitWidth(_64) && _endian(little)
        let r = UnsafeRawPointer(bytes)
        var low: UInt64 = 0, high: UInt64 = 0
        if count >= 8 {
            low = r.loadUnaligned(as: UInt64.self)
            if count > 8 {
                high = r.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self) &>> UInt64(8 &* (16 &- count))
            }
        } else if count >= 4 {
            low =
                UInt64(r.loadUnaligned(as: UInt32.self))
                | UInt64(r.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)) &<< UInt64(8 &* (count &- 4))
        } else {
            var i = 0
            while i < count {
                low |= UInt64(bytes[i]) &<< UInt64(8 &* i)
                i &+= 1
            }
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        // Moved out of memory holding the two words, the string comes back owned: a bit cast
        // would give a borrowed value, which the caller retains (`swift_bridgeObjectRetain`) to keep.
        // (Unprotected: the memory never holds more than the two words stored right here, and a
        // protected allocation made every closure reading a string check a stack protector.)
        return _withUnprotectedUnsafeTemporaryAllocation(of: String.self, capacity: 1) { s in
            let raw = UnsafeMutableRawPointer(s.baseAddress.unsafelyUnwrapped)
            raw.storeBytes(of: low, as: UInt64.self)
            raw.storeBytes(of: high | UInt64(0xE0 | count) &<< 56, toByteOffset: 8, as: UInt64.self)
            return s.baseAddress.unsafelyUnwrapped.move()
        }
        #else
        return nil
        #endif
    }
}

@usableFromInline package nonisolated(unsafe) let emptyCString: UnsafePointer<CChar> = {
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    p.initialize(to: 0)
    return UnsafePointer(p)
}()

@usableFromInline nonisolated(unsafe) let emptyKey: UnsafePointer<UInt8> = UnsafeRawPointer(emptyCString).assumingMemoryBound(
    to: UInt8.self)
