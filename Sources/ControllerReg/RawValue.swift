import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The in-memory form of one value as hosts read it; a C `cr_value *` points at one of these.
///
/// 24 bytes, plain data. Who owns the memory it points to depends on where it lives:
/// - values the resolver builds for `args` live in per-call scratch memory or in the registry's
///   compiled plans and are read-only (`flags` has neither `heapRoot` nor `owned`);
/// - values built with the heap API below (props) own their strings and children (`owned`),
///   and the root of such a tree has `heapRoot` so it can be freed.
// @unchecked: plain data with pointers; who may touch the memory they point at is the ownership
// rule above (args read-only during a create, props owned by one caller).
@usableFromInline package struct RawValue: @unchecked Sendable {
    /// `ValueKind` raw value.
    @usableFromInline package var kind: UInt8
    /// `RawValue.Flags` bits.
    @usableFromInline package var flags: UInt8
    /// For a map with `Flags.lookupHint`: the slot where the next key lookup looks first
    /// (`ValueRef.valueAtHint(forCKey:)`); for an owned map, `RawValue.nulKeys` when one of its
    /// keys holds a NUL byte; otherwise 0.
    @usableFromInline var reserved: UInt16 = 0
    /// String length in bytes, or element count of a list or map.
    @usableFromInline package var count: UInt32
    /// Payload: bool/int/double bits, string bytes, object pointer, or children.
    @usableFromInline package var a: UInt64
    /// List/map capacity for owned containers; 1 for a `graph` object as its first receiver gets
    /// it (`graphObject`: others of the same create may get it too); for a map with
    /// `Flags.lookupHint`, the slot a lookup skipped, plus one (`skippedSlot`); otherwise 0.
    @usableFromInline package var b: UInt64

    /// Flag bits.
    @usableFromInline package enum Flags {
        /// A heap-allocated root that `RawValue.free` may release.
        @usableFromInline package static let heapRoot: UInt8 = 1
        /// Owns its string bytes and children (built by the heap API, so it may be modified).
        @usableFromInline package static let owned: UInt8 = 2
        /// An object that belongs to the registry (a singleton), not to the receiver.
        @usableFromInline package static let registryOwned: UInt8 = 4
        /// An object the caller passed in props: it stays the caller's.
        @usableFromInline package static let callerOwned: UInt8 = 8
        /// A `graph` object already given to another object of the same create (which owns it).
        @usableFromInline package static let shared: UInt8 = 16
        /// A receiver-owned object or provider the receiver took (`ValueRef.takeObject`): its own
        /// for good, so the library does not destroy it when the callback returns.
        @usableFromInline package static let taken: UInt8 = 32
        /// The flags that make an object or provider someone else's than the receiver's.
        @usableFromInline package static let notReceivers: UInt8 = heapRoot | owned | registryOwned | callerOwned | shared
        /// A map the resolver built in one call's memory for a callback's arguments: its `reserved`
        /// field is a lookup hint (the slot after the last one found), which lookups may update.
        /// Maps without it (in compiled plans, or the caller's) are never written to.
        @usableFromInline package static let lookupHint: UInt8 = 64
        /// An object built for a Swift class's receiver that its closure took over
        /// (`ValueRef.take(as:)`): the receiver holds the one reference, so the library neither
        /// releases it nor hands it out again.
        @usableFromInline package static let moved: UInt8 = 128
        /// On a callback's arguments map (never on an object, whose bit this is as
        /// `registryOwned`): it merged props that have a key index, and a trailer before it says
        /// where they are (`IndexedLookup`), so its lookups use their index. Such a map has no
        /// `lookupHint` (the index replaces it): its look-ups take `ValueRef.search`.
        @usableFromInline package static let indexedProps: UInt8 = registryOwned
    }

    @inlinable init(
        kind: ValueKind, flags: UInt8 = 0, reserved: UInt16 = 0, count: UInt32 = 0, a: UInt64 = 0, b: UInt64 = 0
    ) {
        self.kind = kind.rawValue
        self.flags = flags
        self.reserved = reserved
        self.count = count
        self.a = a
        self.b = b
    }

    /// The null value.
    @usableFromInline package static let null = RawValue(kind: .null)
    /// An empty map (a computed constant, so using it costs no lazy initialisation check).
    @inlinable static var emptyMap: RawValue { RawValue(kind: .map) }
    /// A boolean.
    @inlinable package static func bool(_ v: Bool) -> RawValue { RawValue(kind: .bool, a: v ? 1 : 0) }
    /// An integer.
    @inlinable package static func int(_ v: Int64) -> RawValue { RawValue(kind: .int, a: UInt64(bitPattern: v)) }
    /// A floating-point number.
    @inlinable package static func double(_ v: Double) -> RawValue { RawValue(kind: .double, a: v.bitPattern) }
    /// In `reserved` of an object value: the object is a Swift object, built by a class registered
    /// with Swift closures (`HostClass.swift`, its `ClassFunctions.objectTag`) or given in Swift
    /// props as one (`ObjectReference(_: AnyObject)`). Only such an object is read as a Swift object
    /// by the Swift API's typed reads (`ValueRef.object(as:)`, `take(as:)`, `objects(as:)`,
    /// `Registry.create(_:as:)`); any other (a C-function class's object, a pointer a C host or a
    /// raw `ObjectReference` gave) has 0 there and reads as nil or a `.type` error, never as a
    /// Swift object (which would be undefined behaviour). (Maps use `reserved` for other things.)
    @usableFromInline package static let swiftObject: UInt16 = 1

    /// An object pointer built for the receiver (not owned by the value); `tag` is
    /// `RawValue.swiftObject` for a Swift object, else 0.
    @inlinable package static func object(_ p: UnsafeMutableRawPointer?, registryOwned: Bool = false, tag: UInt16 = 0) -> RawValue
    {
        RawValue(kind: .object, flags: registryOwned ? Flags.registryOwned : 0, reserved: tag, a: UInt64(UInt(bitPattern: p)))
    }
    /// The first 8 bytes (kind, flags, `reserved`, count) of a receiver's object value with `tag`
    /// (`ClassFunctions.objectHeader`, computed once per class).
    static func objectHeader(tag: UInt16) -> UInt64 {
        withUnsafeBytes(of: RawValue.object(nil, tag: tag)) { $0.load(as: UInt64.self) }
    }

    /// The tag in an object header (`objectHeader(tag:)`).
    /// (A shift where the bytes are little-endian: taking the header's address would make every
    /// create path that reads a tag check a stack protector.)
    @inlinable static func tag(ofHeader header: UInt64) -> UInt16 {
        #if _endian(little)
        return UInt16(truncatingIfNeeded: header &>> 16)
        #else
        return withUnsafeBytes(of: header) { $0.load(fromByteOffset: 2, as: UInt16.self) }
        #endif
    }

    /// Initialises `dest` as `.object(p, tag:)` from the object's header (`objectHeader(tag:)`):
    /// the header in one store, the pointer, and 0, so writing an object built for a receiver costs
    /// its class's header load and no more.
    @inlinable @inline(__always)
    static func initializeObject(_ dest: UnsafeMutablePointer<RawValue>, _ p: UnsafeMutableRawPointer, header: UInt64) {
        assert(MemoryLayout<RawValue>.offset(of: \RawValue.a) == 8, "RawValue layout changed")
        let raw = UnsafeMutableRawPointer(dest)
        raw.storeBytes(of: header, as: UInt64.self)
        raw.storeBytes(of: UInt64(UInt(bitPattern: p)), toByteOffset: 8, as: UInt64.self)
        raw.storeBytes(of: 0, toByteOffset: 16, as: UInt64.self)
    }

    /// A `graph` object as its first receiver gets it (the receiver's unless it is taken: see
    /// `Resolver`), marked so that `ValueRef.take(as:)` never hands it over; `tag` as for `object`.
    @inlinable static func graphObject(_ p: UnsafeMutableRawPointer?, tag: UInt16) -> RawValue {
        RawValue(kind: .object, reserved: tag, a: UInt64(UInt(bitPattern: p)), b: 1)
    }
    /// An object pointer the caller keeps (props); `tag` as for `object`.
    @inlinable package static func callerObject(_ p: UnsafeMutableRawPointer?, tag: UInt16 = 0) -> RawValue {
        RawValue(kind: .object, flags: Flags.callerOwned, reserved: tag, a: UInt64(UInt(bitPattern: p)))
    }
    /// A string view over NUL-terminated bytes that outlive the value (not copied).
    @inlinable package static func borrowedString(_ p: UnsafePointer<UInt8>, length: Int) -> RawValue {
        RawValue(kind: .string, count: UInt32(length), a: UInt64(UInt(bitPattern: p)))
    }
    /// A list view over elements that outlive the value.
    @inlinable static func borrowedList(_ p: UnsafePointer<RawValue>?, count: Int) -> RawValue {
        RawValue(kind: .list, count: UInt32(count), a: UInt64(UInt(bitPattern: p)))
    }
    /// A map view over slots that outlive the value.
    @inlinable static func borrowedMap(_ p: UnsafePointer<RawMapSlot>?, count: Int) -> RawValue {
        RawValue(kind: .map, count: UInt32(count), a: UInt64(UInt(bitPattern: p)))
    }
    /// The arguments map of one callback, over slots in that call's memory: a borrowed map whose
    /// lookups keep a hint in it (`Flags.lookupHint`), so keys read in slot order are found first try.
    /// With `hinted` false (props with a key holding NUL: `hintable(props:)`), a plain borrowed map.
    @inlinable static func argumentsMap(_ p: UnsafePointer<RawMapSlot>?, count: Int, hinted: Bool = true) -> RawValue {
        RawValue(kind: .map, flags: hinted ? Flags.lookupHint : 0, count: UInt32(count), a: UInt64(UInt(bitPattern: p)))
    }
    /// Whether `v` is a map built by the heap API (`HeapValue`: cr_map_new, a Swift props
    /// dictionary), whose objects are the caller's: kind `.map` and `Flags.owned`, read as the one
    /// 16-bit word `kind` and `flags` make (a create's props check: one load and one compare).
    @inlinable static func isCallersMap(_ v: UnsafePointer<RawValue>) -> Bool {
        assert(MemoryLayout<RawValue>.offset(of: \RawValue.flags) == 1, "RawValue layout changed")
        let head = UInt16(littleEndian: UnsafeRawPointer(v).load(as: UInt16.self))
        let mask = UInt16(0x00FF) | UInt16(Flags.owned) << 8
        return head & mask == UInt16(ValueKind.map.rawValue) | UInt16(Flags.owned) << 8
    }

    /// In `reserved` of an owned map (props built from Swift `String` keys): one of its keys holds a
    /// NUL byte, so an arguments map merging it gets no `Flags.lookupHint` (whose C-key reads
    /// assume keys without NUL: `RawMapSlot.nulFreeKeyEquals`). Keys set through the C ABI are
    /// C strings and never hold one.
    @usableFromInline package static let nulKeys: UInt16 = 1

    /// Whether an arguments map over these props (a map, or nil) may keep a lookup hint: none of
    /// their keys holds a NUL byte (`nulKeys`).
    @inlinable static func hintable(props: UnsafePointer<RawValue>?) -> Bool {
        props.map { $0.pointee.reserved & nulKeys == 0 } ?? true
    }

    /// The lookup hint of a map with `Flags.lookupHint` (read and written relaxed-atomically: a
    /// host may read its arguments from several threads while its callback runs).
    @inlinable static func lookupHint(_ map: UnsafePointer<RawValue>) -> UnsafeMutablePointer<Atomic<UInt16>> {
        // `reserved` follows `kind` and `flags` (a constant: a key path's offset is not folded here).
        assert(MemoryLayout<RawValue>.offset(of: \RawValue.reserved) == 2, "RawValue layout changed")
        return (UnsafeMutableRawPointer(mutating: map) + 2).assumingMemoryBound(to: Atomic<UInt16>.self)
    }

    /// The slot a lookup of a map with `Flags.lookupHint` skipped, plus one (0: none), in its `b`:
    /// a lookup that found the slot after the hinted one leaves the hinted slot there, to be tried
    /// first when it is read late (`ValueRef.searchArguments`). Read and written relaxed-atomically,
    /// as the hint.
    @inlinable static func skippedSlot(_ map: UnsafePointer<RawValue>) -> UnsafeMutablePointer<Atomic<UInt64>> {
        assert(MemoryLayout<RawValue>.offset(of: \RawValue.b) == 16, "RawValue layout changed")
        return (UnsafeMutableRawPointer(mutating: map) + 16).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The kind; an unknown byte reads as null.
    @inlinable package var valueKind: ValueKind {
        // Same as `ValueKind(rawValue: kind) ?? .null`, without the out-of-line init.
        kind <= ValueKind.provider.rawValue ? unsafeBitCast(kind, to: ValueKind.self) : .null
    }
    @inlinable var pointerA: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: UInt(a)) }
    /// The elements of a list (debug builds assert the kind: the payload of any other kind is not a list).
    @inlinable var listElements: UnsafeMutablePointer<RawValue>? {
        assert(valueKind == .list, "RawValue.listElements read on a \(valueKind)")
        return pointerA?.assumingMemoryBound(to: RawValue.self)
    }
    /// The slots of a map (kind asserted in debug builds).
    @inlinable var mapSlots: UnsafeMutablePointer<RawMapSlot>? {
        assert(valueKind == .map, "RawValue.mapSlots read on a \(valueKind)")
        return pointerA?.assumingMemoryBound(to: RawMapSlot.self)
    }
    /// The bytes of a string (kind asserted in debug builds).
    @inlinable var stringBytes: UnsafePointer<UInt8>? {
        assert(valueKind == .string, "RawValue.stringBytes read on a \(valueKind)")
        return UnsafePointer(pointerA?.assumingMemoryBound(to: UInt8.self))
    }
}

/// One key/value pair of a map. The key is NUL-terminated; `keyLength` excludes the NUL.
// @unchecked: plain data like RawValue, under the same ownership rule.
@usableFromInline package struct RawMapSlot: @unchecked Sendable {
    /// NUL-terminated key bytes.
    @usableFromInline package var key: UnsafePointer<UInt8>
    /// Key length in bytes.
    @usableFromInline package var keyLength: Int
    /// The value.
    @usableFromInline package var value: RawValue

    @inlinable init(key: UnsafePointer<UInt8>, keyLength: Int, value: RawValue) {
        self.key = key
        self.keyLength = keyLength
        self.value = value
    }

    /// Whether the key equals the NUL-terminated `k`, whose first byte is known to equal the
    /// key's: its `keyLength` bytes match and `k` ends there. Both are NUL-terminated (every map
    /// key is), so the bytes are compared up to the first NUL of `k`, which must come where the
    /// key ends (a key with an embedded NUL matches no C string). Reads `k` a byte at a time and
    /// never past its NUL, and the key never past its terminating NUL. (Maps whose keys hold no
    /// NUL take `nulFreeKeyEquals`.)
    @inlinable @inline(__always) func keyEquals(cString k: UnsafePointer<UInt8>, afterFirst first: UInt8) -> Bool {
        // The key's first byte (its NUL when it is empty) equals `k`'s: a NUL there ends both.
        if first == 0 { return keyLength == 0 }
        return RawMapSlot.equalsFrom(1, key, keyLength, k)
    }

    /// The comparison of `keyEquals(cString:afterFirst:)` from byte `start` on (the bytes before it
    /// equal and not NUL).
    @inlinable @inline(__always) static func equalsFrom(
        _ start: Int, _ s: UnsafePointer<UInt8>, _ n: Int, _ k: UnsafePointer<UInt8>
    ) -> Bool {
        var j = start
        while true {
            let c = k[j]
            if c != s[j] { return false }
            if c == 0 { return j == n }
            j &+= 1
        }
    }

    /// `keyEquals(cString:afterFirst:)` from byte `start` on (the bytes before it equal and not
    /// NUL), for a key with no NUL byte among its `keyLength` (every key of a map with
    /// `Flags.lookupHint`: plan keys never hold one, and an arguments map that merges props whose
    /// keys might is not given the flag). `k` is still read a byte at a time and never past its NUL: each byte only once
    /// the one before it matched a key byte, so was not NUL. Without a NUL test per byte, a byte
    /// costs a load, a compare and a branch (four at a time, then one by one); `k` must end where
    /// the key does.
    @inlinable @inline(__always) func nulFreeKeyEquals(cString k: UnsafePointer<UInt8>, from start: Int) -> Bool {
        let s = key, n = keyLength
        var j = start
        while n &- j >= 4 {
            if k[j] != s[j] || k[j &+ 1] != s[j &+ 1] || k[j &+ 2] != s[j &+ 2] || k[j &+ 3] != s[j &+ 3] {
                return false
            }
            j &+= 4
        }
        while j < n {
            if k[j] != s[j] { return false }
            j &+= 1
        }
        return k[n] == 0
    }

    /// Whether the key equals `bytes` (always inlined, as `equalBytes`: in a host's `args["k"]` the
    /// length and bytes of a literal key are constants, and the compare folds to a word or two).
    @inlinable @inline(__always) func keyEquals(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        keyLength == length && RawMapSlot.equalBytes(key, bytes, length)
    }

    /// Whether `n` bytes at `a` and `b` are equal. Keys are short: up to 16 bytes are compared with
    /// two loads per side (overlapping when `n` is not a power of two), no call; longer ones
    /// check the first byte, then memcmp.
    @inlinable @inline(__always)
    static func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        if n >= 8 {
            if n > 16 { return a.pointee == b.pointee && memcmp(a, b, n) == 0 }
            return ra.loadUnaligned(as: UInt64.self) == rb.loadUnaligned(as: UInt64.self)
                && ra.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                    == rb.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        }
        if n >= 4 {
            return ra.loadUnaligned(as: UInt32.self) == rb.loadUnaligned(as: UInt32.self)
                && ra.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
                    == rb.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        }
        // 0 to 3 bytes: the first, middle and last cover them all.
        return n == 0 || (a[0] == b[0] && a[n >> 1] == b[n >> 1] && a[n - 1] == b[n - 1])
    }
}

/// An empty, read-only map shared by every create that has nothing to pass (so `args` is never NULL).
@usableFromInline nonisolated(unsafe) let emptyArgumentsMap: UnsafeMutablePointer<RawValue> = {
    let p = UnsafeMutablePointer<RawValue>.allocate(capacity: 1)
    p.initialize(to: RawValue(kind: .map))
    return p
}()
