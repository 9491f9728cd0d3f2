import ControllerRegConfig

/// What the resolver does for one dependency slot.
enum PlanOp: UInt8 {
    /// Pass `literal` as is (strings, lists and maps in it point into the entry's arena).
    case literal
    /// Create entry `target` and pass the object.
    case reference
    /// Build a list from `children` (it contains references).
    case list
    /// Build a map from `children` (it contains references).
    case map
    /// Pass a provider of entry `target`.
    case provider
    /// `{Tagged: t}`: build a list from `children` (a reference per member, ordered by name),
    /// exactly as `.list`; the `trailer` slot after them holds the tag as written.
    case tagged
    /// `{Optional: Name}`: pass what `children[0]` gives (a reference when the entry exists, a
    /// null literal when not); the `trailer` slot after it holds the name.
    case optional
}

/// What a slot's payload is, in the low 4 bits of its key word. The literal kinds come first
/// (the scalar ones numbered as their `ValueKind`), then one per other `PlanOp`, in its order.
enum SlotKind: UInt8 {
    /// Scalars: the payload is the value's bits (`RawValue.a`).
    case null = 0, bool, int, double
    /// A string of fewer than 64 bytes in the definition arena: the payload is its bytes, and
    /// the byte before them (the arena's one-byte length header, `length << 1`) gives its length.
    case shortString
    /// Any other literal (longer strings, lists, maps): the payload points at the `RawValue` in
    /// the plan arena.
    case boxed
    /// `PlanOp.reference` ... `.optional` (`rawValue - boxed.rawValue` is the op's): the payload is
    /// the target entry, or the children (their count in the 8 bytes before them).
    case reference, list, map, provider, tagged, optional
}

/// One compiled dependency: plain data, so the create path touches no reference counts. 16
/// bytes: the key's address with the slot's kind in its low bits (keys are 16-byte aligned),
/// and a payload that the create path turns back into a value. An entry's top-level slots keep
/// the first word in the plan's shared `PlanShape`, the second in its own payloads; children of
/// lists, maps, tagged lists and optional references are whole slots.
struct PlanSlot {
    /// The key (NUL-terminated bytes preceded by their 32-bit length, in the plan's arena, at a
    /// 16-byte boundary) or'd with the `SlotKind`.
    let head: UInt64
    /// See `SlotKind`.
    let payload: UInt64

    /// A slot from its two words (`head`, `payload`), as a plan's shape and payloads keep them.
    @inline(__always) init(head: UInt64, payload: UInt64) {
        self.head = head
        self.payload = payload
    }

    /// A slot of `kind` (not `.shortString` or `.boxed`: `literal(key:_:in:)` makes those).
    init(key: UnsafePointer<UInt8>, kind: SlotKind, payload: UInt64 = 0) {
        let k = UInt64(UInt(bitPattern: key))
        assert(k & 15 == 0, "a slot key not on a 16-byte boundary")
        head = k | UInt64(kind.rawValue)
        self.payload = payload
    }

    /// A `.reference` or `.provider` slot of entry `target`.
    init(key: UnsafePointer<UInt8>, kind: SlotKind, target: Int32) {
        self.init(key: key, kind: kind, payload: UInt64(UInt32(bitPattern: target)))
    }

    /// A slot with `children` (from `PlanSlot.allocateChildren`).
    init(key: UnsafePointer<UInt8>, kind: SlotKind, children: UnsafePointer<PlanSlot>) {
        self.init(key: key, kind: kind, payload: UInt64(UInt(bitPattern: children)))
    }

    /// A literal slot passing `value` (plain data whose strings, lists and maps outlive the plan);
    /// what does not fit the payload goes into `arena`.
    init(key: UnsafePointer<UInt8>, literal value: RawValue, in arena: Arena) {
        switch value.valueKind {
        case .null, .bool, .int, .double:
            self.init(key: key, kind: SlotKind(rawValue: value.kind)!, payload: value.a)
            return
        case .string where value.count < 64:
            // Only bytes that sit right after their one-byte header in the definition arena.
            if let p = value.stringBytes, p[-1] == UInt8(truncatingIfNeeded: value.count << 1) {
                self.init(key: key, kind: .shortString, payload: value.a)
                return
            }
        default: break
        }
        let boxed = arena.allocate(RawValue.self, count: 1)
        boxed.initialize(to: value)
        self.init(key: key, kind: .boxed, payload: UInt64(UInt(bitPattern: boxed)))
    }

    /// Room for `count` child slots (and a `trailer` when asked), their count stored before them.
    static func allocateChildren(_ count: Int, trailer: Bool = false, in arena: Arena) -> UnsafeMutablePointer<PlanSlot> {
        let n = count + (trailer ? 1 : 0)
        let raw = arena.allocate(8 + n * MemoryLayout<PlanSlot>.stride)
        raw.storeBytes(of: Int64(count), as: Int64.self)
        return (raw + 8).bindMemory(to: PlanSlot.self, capacity: n)
    }

    /// The slot's kind.
    @inline(__always) var kind: SlotKind { unsafeBitCast(UInt8(truncatingIfNeeded: head) & 15, to: SlotKind.self) }

    /// Whether the slot passes a literal (`op == .literal`).
    @inline(__always) var isLiteral: Bool { UInt8(truncatingIfNeeded: head) & 15 < SlotKind.reference.rawValue }

    /// NUL-terminated key bytes.
    @inline(__always) var key: UnsafePointer<UInt8> { UnsafePointer(bitPattern: UInt(head & ~15)).unsafelyUnwrapped }

    /// Key length in bytes (without the NUL), stored before the key.
    @inline(__always) var keyLength: Int { Int(UnsafeRawPointer(key - 4).load(as: UInt32.self)) }

    /// What the resolver does for this slot.
    @inline(__always) var op: PlanOp {
        let k = UInt8(truncatingIfNeeded: head) & 15
        return unsafeBitCast(k < SlotKind.reference.rawValue ? 0 : k - SlotKind.boxed.rawValue, to: PlanOp.self)
    }

    /// The value a literal slot passes (built as its three words: kind and count, payload, 0).
    @inline(__always) var literal: RawValue {
        let k = head & 15
        var first = k
        if k >= UInt64(SlotKind.shortString.rawValue) {
            if k != UInt64(SlotKind.shortString.rawValue) {
                return UnsafePointer<RawValue>(bitPattern: UInt(payload)).unsafelyUnwrapped.pointee
            }
            let length = UnsafePointer<UInt8>(bitPattern: UInt(payload)).unsafelyUnwrapped[-1] >> 1
            first = UInt64(ValueKind.string.rawValue) | UInt64(length) << 32
        }
        return unsafeBitCast((first, payload, UInt64(0)), to: RawValue.self)
    }

    /// Writes the value a literal slot passes at `dest` (a `RawValue`'s 24 bytes, word by word:
    /// kind and count, payload, 0; what the create path does per literal).
    @inline(__always) func storeLiteral(at dest: UnsafeMutableRawPointer) {
        let k = head & 15
        if k == UInt64(SlotKind.boxed.rawValue) {
            dest.copyMemory(from: UnsafeRawPointer(bitPattern: UInt(payload)).unsafelyUnwrapped, byteCount: 24)
            return
        }
        var first = k
        if k == UInt64(SlotKind.shortString.rawValue) {
            first |= UInt64(UnsafePointer<UInt8>(bitPattern: UInt(payload)).unsafelyUnwrapped[-1] >> 1) << 32
        }
        dest.storeBytes(of: first, as: UInt64.self)
        dest.storeBytes(of: payload, toByteOffset: 8, as: UInt64.self)
        dest.storeBytes(of: 0, toByteOffset: 16, as: UInt64.self)
    }

    /// Writes the key and key length of the map slot at `dest` (its value is left to the caller).
    @inline(__always) func storeKey(at dest: UnsafeMutablePointer<RawMapSlot>) {
        let raw = UnsafeMutableRawPointer(dest)
        let key = head & ~15
        raw.storeBytes(of: key, as: UInt64.self)
        raw.storeBytes(
            of: Int(UnsafeRawPointer(bitPattern: UInt(key)).unsafelyUnwrapped.load(fromByteOffset: -4, as: UInt32.self)),
            toByteOffset: 8, as: Int.self)
    }

    /// Writes the map slot of a literal slot at `dest`: key, key length, value (`storeLiteral`).
    @inline(__always) func storeLiteralMapSlot(at dest: UnsafeMutablePointer<RawMapSlot>) {
        storeKey(at: dest)
        storeLiteral(at: UnsafeMutableRawPointer(dest) + 16)
    }

    /// The entry index of a `.reference` or `.provider`.
    @inline(__always) var target: Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: payload)) }

    /// How many children a `.list`, `.map`, `.tagged` or `.optional` has (stored before them).
    @inline(__always) var childCount: Int32 {
        Int32(
            truncatingIfNeeded: UnsafeRawPointer(bitPattern: UInt(payload)).unsafelyUnwrapped.load(
                fromByteOffset: -8, as: Int64.self))
    }

    /// The children of a `.list`, `.map`, `.tagged` or `.optional`.
    @inline(__always) var children: CheckedPointer<PlanSlot>? {
        guard let p = UnsafePointer<PlanSlot>(bitPattern: UInt(payload)) else { return nil }
        return CheckedPointer(p, count: Int(childCount))
    }

    /// For `.tagged` and `.optional`: the literal slot stored right after the children (their
    /// array has one more slot than `childCount`), holding what the form was written with (the tag,
    /// or the entry name), so a plan describes itself.
    var trailer: PlanSlot {
        UnsafePointer<PlanSlot>(bitPattern: UInt(payload)).unsafelyUnwrapped[Int(childCount)]
    }
}

/// The keys and kinds of an entry's top-level slots (the `head` word of each) and the memory a
/// create of it needs besides its arguments map: the same for every entry of one change written
/// alike, so stored once per change (the compiler shares equal shapes). In the plan arena:
/// `count` and `extraBytes` (two `UInt32`), then `count` heads.
struct PlanShape {
    let base: UnsafePointer<UInt64>

    /// How many top-level slots.
    @inline(__always) var count: Int { Int(UnsafeRawPointer(base).load(as: UInt32.self)) }

    /// Bytes a create needs beyond its arguments map: scratch for lists and maps built per call
    /// (those that contain references) plus one ownership record (`Resolver.Held`) per object it
    /// builds directly (references at any depth of its slots).
    @inline(__always) var extraBytes: UInt32 { UnsafeRawPointer(base).load(fromByteOffset: 4, as: UInt32.self) }

    /// The head word of each slot.
    @inline(__always) var heads: UnsafePointer<UInt64> { base + 1 }
}

/// An entry's compiled plan: its dependency slots and what a create of it needs. 24 bytes (one
/// per entry index, removed ones included): its slots' keys and kinds are a shared `PlanShape`,
/// their payloads its own; a singleton's cell is kept in the word before its payloads.
struct EntryPlan {
    /// The payload word of each top-level slot, in written order. For a singleton never nil (its
    /// cell pointer is stored just before them, even when it has no slots).
    var payloads: UnsafePointer<UInt64>?
    /// The slots' keys and kinds, and the create's memory; nil for an entry without dependencies.
    var shape: PlanShape?
    /// Index into the class table; -1 for an index whose entry was removed (`live` false).
    var classSlot: Int32 = -1
    /// `Lifestyle` of the entry.
    var lifestyle: Lifestyle = .transient
    /// Whether a slot is `.tagged` or `.optional` (at any depth): what it builds depends on which
    /// entries exist, so a change of those compiles it again.
    var dynamic: Bool = false

    /// False for an index whose entry was removed.
    @inline(__always) var live: Bool { classSlot >= 0 }

    /// How many top-level slots.
    @inline(__always) var slotCount: Int { shape?.count ?? 0 }

    /// See `PlanShape.extraBytes` (0 without slots).
    @inline(__always) var extraBytes: UInt32 { shape?.extraBytes ?? 0 }

    /// Top-level slot `i` (below `slotCount`).
    @inline(__always) func slot(_ i: Int) -> PlanSlot {
        PlanSlot(head: shape.unsafelyUnwrapped.heads[i], payload: payloads.unsafelyUnwrapped[i])
    }

    /// The entry's `SingletonCell` (unretained; its `EntryTable` keeps it alive), for singletons;
    /// stored in the word before the payloads, which the compiler reserves for singletons only.
    /// (The registry that builds it, when that is a parent's, is `EntryTable.owner(of:)`.)
    var singleton: UnsafeMutableRawPointer? {
        @inline(__always) get {
            guard lifestyle == .singleton, let payloads else { return nil }
            return UnsafeRawPointer(payloads).load(fromByteOffset: -8, as: UnsafeMutableRawPointer?.self)
        }
        nonmutating set {
            guard lifestyle == .singleton, let payloads else {
                assert(newValue == nil, "a singleton cell set on a plan compiled without room for it")
                return
            }
            UnsafeMutableRawPointer(mutating: payloads).storeBytes(
                of: newValue, toByteOffset: -8, as: UnsafeMutableRawPointer?.self)
        }
    }

    /// Whether one create of the entry would need more scratch memory than a plan records (4 GiB:
    /// billions of references at once); the transaction refuses the entry (`CR_ERR_LIMIT`).
    var exceedsLimits: Bool { extraBytes == .max }

    /// The cell of a plan known to be a singleton's (the create path's read: no checks).
    @inline(__always) var singletonCell: UnsafeMutableRawPointer {
        UnsafeRawPointer(payloads.unsafelyUnwrapped).load(fromByteOffset: -8, as: UnsafeMutableRawPointer.self)
    }
}

extension EntryPlan {
    /// With `providers` false, the entry indices its slots create (references, tagged list
    /// members, optional targets that exist: its object edges); with `providers` true, those it
    /// names by reference or provider (what must not be removed under it). Depth first in written
    /// order (the order the transaction resolved them in).
    func references(providers: Bool) -> [Int32] {
        var out: [Int32] = []
        func walk(_ s: PlanSlot) {
            switch s.op {
            case .literal: break
            case .reference: if s.target >= 0 { out.append(s.target) }
            case .provider: if providers && s.target >= 0 { out.append(s.target) }
            case .list, .map: for k in 0..<Int(s.childCount) { walk(s.children![k]) }
            case .tagged, .optional: if !providers { for k in 0..<Int(s.childCount) { walk(s.children![k]) } }
            }
        }
        for k in 0..<slotCount { walk(slot(k)) }
        return out
    }
}

/// Compiles an entry's dependencies into plan slots in an arena, with entry names already
/// resolved, reading them in place from the entry's record in the transaction's `DefinitionArena`
/// (no `DependencyValue`s). Keys and literal strings point at their text in that arena (keys stored
/// once there); slot keys are copied once per key into the plan arena.
struct PlanCompiler {
    let arena: Arena
    let strings: DefinitionArena

    /// Keys already in the plan arena.
    private let keys = KeyCache()

    /// Shapes already in the plan arena.
    private let shapes = ShapeCache()

    /// The slot key of the empty key (list elements, tagged members), made once.
    private let emptyKey: UnsafePointer<UInt8>

    init(arena: Arena, strings: DefinitionArena) {
        self.arena = arena
        self.strings = strings
        emptyKey = PlanCompiler.storeKey(UnsafeBufferPointer(start: nil, count: 0), in: arena)
    }

    /// A key as slots hold it: NUL-terminated bytes after their 32-bit length, at a 16-byte
    /// boundary (a slot keeps its kind in the address's low bits).
    private static func storeKey(_ bytes: UnsafeBufferPointer<UInt8>, in arena: Arena) -> UnsafePointer<UInt8> {
        let n = bytes.count
        let raw = arena.allocate(4 + 15 + n + 1)
        let p = UnsafeMutableRawPointer(bitPattern: (UInt(bitPattern: raw) + 4 + 15) & ~15)!
        (p - 4).storeBytes(of: UInt32(truncatingIfNeeded: n), as: UInt32.self)
        let key = p.assumingMemoryBound(to: UInt8.self)
        if let b = bytes.baseAddress { key.update(from: b, count: n) }
        key[n] = 0
        return UnsafePointer(key)
    }

    /// A key as slots hold it (`storeKey`), once per key and transaction, found by the position of
    /// the key's one copy in the definition arena (an integer, not its bytes, is hashed).
    private func slotKey(_ key: (bytes: UnsafeBufferPointer<UInt8>, id: Int)) -> UnsafePointer<UInt8> {
        if let found = keys.find(key.id) { return found }
        let p = PlanCompiler.storeKey(key.bytes, in: arena)
        keys.insert(key.id, p)
        return p
    }

    /// The shapes one compiler has written, by content (open addressing over raw memory; a class:
    /// the compiler is used by value), and room for the heads of the entry being compiled.
    private final class ShapeCache {
        private var table: UnsafeMutablePointer<UnsafePointer<UInt64>?>
        private var capacity = 64
        private var used = 0
        private var scratch: UnsafeMutablePointer<UInt64>
        private var scratchCapacity = 16
        /// The two shapes returned last: entries written alike share them (configs mostly
        /// alternate between a few kinds of entry), found without a hash.
        private var last: UnsafePointer<UInt64>?
        private var other: UnsafePointer<UInt64>?

        /// Whether `held` has the header `first` and the `count` heads last given.
        @inline(__always) private func holdsScratch(_ held: UnsafePointer<UInt64>, _ first: UInt64, _ count: Int) -> Bool {
            if held[0] != first { return false }
            for i in 0..<count where held[i + 1] != scratch[i] { return false }
            return true
        }

        /// Makes `held` the shape returned last.
        @inline(__always) private func remember(_ held: UnsafePointer<UInt64>) {
            if held != last {
                other = last
                last = held
            }
        }

        init() {
            table = .allocate(capacity: 64)
            table.initialize(repeating: nil, count: 64)
            scratch = .allocate(capacity: 16)
        }

        deinit {
            table.deallocate()
            scratch.deallocate()
        }

        /// Room for `count` heads (valid until the next call).
        func heads(_ count: Int) -> UnsafeMutablePointer<UInt64> {
            if count > scratchCapacity {
                scratch.deallocate()
                scratchCapacity = max(count, scratchCapacity * 2)
                scratch = .allocate(capacity: scratchCapacity)
            }
            return scratch
        }

        private static func hash(_ first: UInt64, _ heads: UnsafePointer<UInt64>, _ count: Int) -> UInt64 {
            var h = first &* 0x9E37_79B9_7F4A_7C15
            for i in 0..<count { h = (h ^ heads[i]) &* 0x9E37_79B9_7F4A_7C15 ^ (h >> 29) }
            return h
        }

        /// The shape of the `count` heads last given by `heads(_:)` with `extraBytes`: an equal one
        /// already written, else a new one in `arena`.
        func shape(count: Int, extraBytes: UInt32, in arena: Arena) -> PlanShape {
            let first = UInt64(UInt32(truncatingIfNeeded: count)) | UInt64(extraBytes) << 32
            if let l = last, holdsScratch(l, first, count) { return PlanShape(base: l) }
            if let o = other, holdsScratch(o, first, count) {
                remember(o)
                return PlanShape(base: o)
            }
            let bytes = count * MemoryLayout<UInt64>.stride
            let mask = capacity - 1
            var i = Int(truncatingIfNeeded: ShapeCache.hash(first, scratch, count) >> 7) & mask
            while let held = table[i] {
                if held[0] == first && memcmp(held + 1, scratch, bytes) == 0 {
                    remember(held)
                    return PlanShape(base: held)
                }
                i = (i + 1) & mask
            }
            let p = arena.allocate(UInt64.self, count: count + 1)
            p[0] = first
            (p + 1).update(from: scratch, count: count)
            table[i] = UnsafePointer(p)
            used += 1
            if used * 2 >= capacity { grow() }
            remember(UnsafePointer(p))
            return PlanShape(base: UnsafePointer(p))
        }

        private func grow() {
            let old = table, oldCapacity = capacity
            capacity *= 2
            table = .allocate(capacity: capacity)
            table.initialize(repeating: nil, count: capacity)
            let mask = capacity - 1
            for k in 0..<oldCapacity {
                guard let held = old[k] else { continue }
                let n = Int(UnsafeRawPointer(held).load(as: UInt32.self))
                var i = Int(truncatingIfNeeded: ShapeCache.hash(held[0], held + 1, n) >> 7) & mask
                while table[i] != nil { i = (i + 1) & mask }
                table[i] = held
            }
            old.deallocate()
        }
    }

    /// The keys one compiler has written, by key identity (open addressing over raw memory; a
    /// class: the compiler is used by value).
    private final class KeyCache {
        private var ids: UnsafeMutablePointer<Int>
        private var pointers: UnsafeMutablePointer<UnsafePointer<UInt8>?>
        private var capacity = 64
        private var used = 0
        /// The key identity and slot key last met at each of the first `memoSlots` top-level
        /// positions: entries written alike have the same keys in the same order, so most keys
        /// are found there without a probe.
        private let memoIDs: UnsafeMutablePointer<Int>
        private let memoKeys: UnsafeMutablePointer<UnsafePointer<UInt8>?>
        static let memoSlots = 16

        init() {
            ids = .allocate(capacity: 64)
            ids.initialize(repeating: -1, count: 64)
            pointers = .allocate(capacity: 64)
            pointers.initialize(repeating: nil, count: 64)
            memoIDs = .allocate(capacity: KeyCache.memoSlots)
            memoIDs.initialize(repeating: -1, count: KeyCache.memoSlots)
            memoKeys = .allocate(capacity: KeyCache.memoSlots)
            memoKeys.initialize(repeating: nil, count: KeyCache.memoSlots)
        }

        deinit {
            ids.deallocate()
            pointers.deallocate()
            memoIDs.deallocate()
            memoKeys.deallocate()
        }

        /// The slot key of identity `id` if it was the last met at top-level position `i`.
        @inline(__always) func memo(_ id: Int, at i: Int) -> UnsafePointer<UInt8>? {
            i < KeyCache.memoSlots && memoIDs[i] == id ? memoKeys[i] : nil
        }

        /// Records `key` (identity `id`) as the last met at top-level position `i`.
        @inline(__always) func remember(_ id: Int, _ key: UnsafePointer<UInt8>, at i: Int) {
            if i < KeyCache.memoSlots {
                memoIDs[i] = id
                memoKeys[i] = key
            }
        }

        @inline(__always) private static func slot(_ id: Int, _ mask: Int) -> Int {
            Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(id)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        }

        func find(_ id: Int) -> UnsafePointer<UInt8>? {
            let mask = capacity - 1
            var i = KeyCache.slot(id, mask)
            while ids[i] >= 0 {
                if ids[i] == id { return pointers[i] }
                i = (i + 1) & mask
            }
            return nil
        }

        func insert(_ id: Int, _ p: UnsafePointer<UInt8>) {
            if used * 2 >= capacity { grow() }
            let mask = capacity - 1
            var i = KeyCache.slot(id, mask)
            while ids[i] >= 0 { i = (i + 1) & mask }
            ids[i] = id
            pointers[i] = p
            used += 1
        }

        private func grow() {
            let oldIDs = ids, oldPointers = pointers, oldCapacity = capacity
            capacity *= 2
            ids = .allocate(capacity: capacity)
            ids.initialize(repeating: -1, count: capacity)
            pointers = .allocate(capacity: capacity)
            pointers.initialize(repeating: nil, count: capacity)
            used = 0
            for i in 0..<oldCapacity where oldIDs[i] >= 0 { insert(oldIDs[i], oldPointers[i]!) }
            oldIDs.deallocate()
            oldPointers.deallocate()
        }
    }

    /// Compiles the dependencies written at `position` of the definition arena (a record's, from
    /// `DefinitionCoding.dependenciesPosition`, or an environment-resolved copy). `targets` holds
    /// the entry index of every reference and provider in them, in written order (depth first, as
    /// the transaction resolved and validated them), which is the order this compiler meets them
    /// in. `membership` holds, in written order, for each tagged list its member count then its
    /// members, and for each optional reference its target or -1.
    func compile(
        dependenciesAt position: Int, classSlot: Int, lifestyle: Lifestyle, targets: UnsafeBufferPointer<Int32>,
        membership: UnsafeBufferPointer<Int32>
    ) -> EntryPlan {
        compile(
            DefinitionReader(strings, at: position), classSlot: classSlot, lifestyle: lifestyle, targets: Cursor(targets),
            membership: Cursor(membership))
    }

    /// Reads a resolved index stream in order (-1 past its end).
    private struct Cursor {
        let values: UnsafeBufferPointer<Int32>
        var next = 0
        init(_ values: UnsafeBufferPointer<Int32>) { self.values = values }
        mutating func take() -> Int32 {
            defer { next += 1 }
            return next < values.count ? values[next] : -1
        }
    }

    private func compile(
        _ reader: DefinitionReader, classSlot: Int, lifestyle: Lifestyle, targets: Cursor, membership: Cursor
    ) -> EntryPlan {
        var plan = EntryPlan()
        plan.classSlot = Int32(classSlot)
        plan.lifestyle = lifestyle
        var r = reader
        let count = Int(r.varint())
        // A singleton's cell goes in the word before its payloads (room made even without slots).
        let header = lifestyle == .singleton ? MemoryLayout<UnsafeMutableRawPointer?>.stride : 0
        if count == 0 && header == 0 { return plan }
        let raw = arena.allocate(header + count * MemoryLayout<UInt64>.stride)
        if header != 0 { raw.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self) }
        let payloads = (raw + header).bindMemory(to: UInt64.self, capacity: count)
        plan.payloads = UnsafePointer(payloads)
        guard count > 0 else { return plan }
        var scratch = 0
        var objects = 0
        var targets = targets, membership = membership
        let heads = shapes.heads(count)
        for i in 0..<count {
            // The key's identity first: its bytes are only read for a key not met at this
            // position before.
            let id = r.internedID()
            let key: UnsafePointer<UInt8>
            if let memo = keys.memo(id, at: i) {
                key = memo
            } else {
                var at = DefinitionReader(strings, at: id)
                key = slotKey(at.internedString())
                keys.remember(id, key, at: i)
            }
            DefinitionCoding.skipPlace(&r)
            // Scalars and references (most values) here; the rest by `slot`.
            let s: PlanSlot
            switch DefinitionCoding.ValueTag(rawValue: r.base[r.position]) ?? .null {
            case .null:
                r.position += 1
                s = PlanSlot(key: key, kind: .null)
            case .false, .true:
                let b = r.byte()
                s = PlanSlot(key: key, kind: .bool, payload: b == DefinitionCoding.ValueTag.true.rawValue ? 1 : 0)
            case .int:
                r.position += 1
                s = PlanSlot(key: key, kind: .int, payload: UInt64(bitPattern: r.signed()))
            case .double:
                r.position += 1
                s = PlanSlot(key: key, kind: .double, payload: r.fixed64())
            case .string:
                r.position += 1
                let b = r.stringBytes()
                let p = b.baseAddress!
                if b.count < 64 && p[-1] == UInt8(truncatingIfNeeded: b.count << 1) {
                    // A short string right after its one-byte header (as `init(key:literal:in:)`).
                    s = PlanSlot(
                        head: UInt64(UInt(bitPattern: key)) | UInt64(SlotKind.shortString.rawValue),
                        payload: UInt64(UInt(bitPattern: p)))
                } else {
                    s = PlanSlot(key: key, literal: .borrowedString(p, length: b.count), in: arena)
                }
            case .reference:
                r.position += 1
                r.skipString()
                DefinitionCoding.skipPlace(&r)
                objects += 1
                s = PlanSlot(key: key, kind: .reference, target: targets.take())
            default:
                s = slot(&r, key: key, scratch: &scratch, objects: &objects, targets: &targets, membership: &membership)
            }
            heads[i] = s.head
            payloads[i] = s.payload
        }
        plan.dynamic = membership.next > 0
        // Saturates: `EntryPlan.exceedsLimits` (the transaction refuses such an entry).
        let extra = UInt32(clamping: scratch + objects * MemoryLayout<Resolver.Held>.stride)
        plan.shape = shapes.shape(count: count, extraBytes: extra, in: arena)
        return plan
    }

    /// The slot of the value at `r` (which moves past it).
    private func slot(
        _ r: inout DefinitionReader, key: UnsafePointer<UInt8>,
        scratch: inout Int, objects: inout Int, targets: inout Cursor, membership: inout Cursor
    ) -> PlanSlot {
        let tag = r.tag()
        switch tag {
        case .reference, .provider:
            _ = r.stringBytes()
            DefinitionCoding.skipPlace(&r)
            objects += 1
            return PlanSlot(key: key, kind: tag == .reference ? .reference : .provider, target: targets.take())
        case .taggedString, .taggedInt:
            // The list-of-references shape: one reference slot per member, built like any list,
            // then the tag as written.
            let written: RawValue
            if tag == .taggedString {
                let b = r.stringBytes()
                written = .borrowedString(b.baseAddress!, length: b.count)
            } else {
                written = .int(r.signed())
            }
            DefinitionCoding.skipPlace(&r)
            let count = max(0, Int(membership.take()))
            let children = PlanSlot.allocateChildren(count, trailer: true, in: arena)
            for i in 0..<count {
                (children + i).initialize(to: PlanSlot(key: emptyKey, kind: .reference, target: membership.take()))
            }
            (children + count).initialize(to: PlanSlot(key: emptyKey, literal: written, in: arena))
            scratch += count * MemoryLayout<RawValue>.stride
            objects += count
            return PlanSlot(key: key, kind: .tagged, children: children)
        case .optional:
            // What is passed (the entry, or null while it does not exist), then the name.
            let name = r.stringBytes()
            DefinitionCoding.skipPlace(&r)
            let children = PlanSlot.allocateChildren(1, trailer: true, in: arena)
            let target = membership.take()
            (children + 0).initialize(
                to: target >= 0 ? PlanSlot(key: emptyKey, kind: .reference, target: target) : PlanSlot(key: emptyKey, kind: .null)
            )
            (children + 1).initialize(
                to: PlanSlot(key: emptyKey, literal: .borrowedString(name.baseAddress!, length: name.count), in: arena))
            objects += 1
            return PlanSlot(key: key, kind: .optional, children: children)
        case .list where DefinitionCoding.containerHasReference(.list, r):
            let n = Int(r.varint())
            let children = PlanSlot.allocateChildren(n, in: arena)
            for i in 0..<n {
                (children + i).initialize(
                    to: slot(
                        &r, key: emptyKey, scratch: &scratch, objects: &objects, targets: &targets, membership: &membership
                    ))
            }
            scratch += n * MemoryLayout<RawValue>.stride
            return PlanSlot(key: key, kind: .list, children: children)
        case .map where DefinitionCoding.containerHasReference(.map, r):
            let n = Int(r.varint())
            let children = PlanSlot.allocateChildren(n, in: arena)
            for i in 0..<n {
                let childKey = slotKey(r.internedString())
                DefinitionCoding.skipPlace(&r)
                (children + i).initialize(
                    to: slot(
                        &r, key: childKey, scratch: &scratch, objects: &objects, targets: &targets, membership: &membership
                    ))
            }
            scratch += n * MemoryLayout<RawMapSlot>.stride
            return PlanSlot(key: key, kind: .map, children: children)
        default:
            return PlanSlot(key: key, literal: literal(tag, &r), in: arena)
        }
    }

    /// A reference-free value (its tag byte `tag` just read) as a read-only RawValue in the
    /// arena; `r` moves past it.
    private func literal(_ tag: DefinitionCoding.ValueTag, _ r: inout DefinitionReader) -> RawValue {
        switch tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int: return .int(r.signed())
        case .double: return .double(Double(bitPattern: r.fixed64()))
        case .string:
            let b = r.stringBytes()
            return .borrowedString(b.baseAddress!, length: b.count)
        case .list:
            let n = Int(r.varint())
            let e = arena.allocate(RawValue.self, count: n)
            for i in 0..<n { (e + i).initialize(to: literal(r.tag(), &r)) }
            return .borrowedList(UnsafePointer(e), count: n)
        case .map:
            let n = Int(r.varint())
            let m = arena.allocate(RawMapSlot.self, count: n)
            for i in 0..<n {
                let k = r.stringBytes()
                DefinitionCoding.skipPlace(&r)
                (m + i).initialize(to: RawMapSlot(key: k.baseAddress!, keyLength: k.count, value: literal(r.tag(), &r)))
            }
            return .borrowedMap(UnsafePointer(m), count: n)
        // Environment values are resolved by the transaction before compiling (never met here);
        // references are not literals.
        case .reference, .provider, .taggedString, .taggedInt, .optional, .template, .env:
            DefinitionCoding.skipValue(tag, &r)
            return .null
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
