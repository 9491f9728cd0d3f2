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

/// One compiled dependency: plain data, so the create path touches no reference counts. 24
/// bytes, one value's size: what an op needs besides the value shares the value's unused fields.
struct PlanSlot {
    /// For `.literal` the value passed. In every slot `b` holds the key (NUL-terminated bytes
    /// preceded by their 32-bit length, in the plan's arena); for the other ops `reserved` holds
    /// the op, `a` the target entry (`.reference`, `.provider`) or the children (`.list`, `.map`)
    /// and `count` how many children.
    private var value: RawValue

    init(key: UnsafePointer<UInt8>, op: PlanOp) {
        value = .null
        value.reserved = UInt16(op.rawValue)
        value.b = UInt64(UInt(bitPattern: key))
    }

    /// NUL-terminated key bytes.
    @inline(__always) var key: UnsafePointer<UInt8> { UnsafePointer(bitPattern: UInt(value.b)).unsafelyUnwrapped }

    /// Key length in bytes (without the NUL), stored before the key.
    @inline(__always) var keyLength: Int { Int(UnsafeRawPointer(key - 4).loadUnaligned(as: UInt32.self)) }

    /// What the resolver does for this slot.
    @inline(__always) var op: PlanOp { unsafeBitCast(UInt8(truncatingIfNeeded: value.reserved), to: PlanOp.self) }

    /// The value a `.literal` passes.
    @inline(__always) var literal: RawValue {
        get {
            var v = value
            v.b = 0
            return v
        }
        set {
            let key = value.b
            value = newValue
            value.b = key
        }
    }

    /// The entry index of a `.reference` or `.provider`.
    @inline(__always) var target: Int32 {
        get { Int32(truncatingIfNeeded: Int64(bitPattern: value.a)) }
        set { value.a = UInt64(bitPattern: Int64(newValue)) }
    }

    /// How many children a `.list` or `.map` has.
    @inline(__always) var childCount: Int32 { Int32(bitPattern: value.count) }

    /// The children of a `.list` or `.map`.
    @inline(__always) var children: CheckedPointer<PlanSlot>? {
        guard let p = UnsafePointer<PlanSlot>(bitPattern: UInt(value.a)) else { return nil }
        return CheckedPointer(p, count: Int(value.count))
    }

    /// Sets the children of a `.list` or `.map`.
    mutating func setChildren(_ p: UnsafePointer<PlanSlot>, count: Int) {
        value.a = UInt64(UInt(bitPattern: p))
        value.count = UInt32(truncatingIfNeeded: count)
    }

    /// For `.tagged` and `.optional`: the `.literal` slot stored right after the children (their
    /// array has one more slot than `childCount`), holding what the form was written with (the tag,
    /// or the entry name), so a plan describes itself.
    var trailer: PlanSlot {
        UnsafePointer<PlanSlot>(bitPattern: UInt(value.a)).unsafelyUnwrapped[Int(value.count)]
    }
}

/// An entry's compiled plan: its dependency slots and what a create of it needs. 24 bytes (one
/// per entry index, removed ones included): a singleton's cell is kept in the word before its
/// slots (`singleton`), the per-create scratch and ownership records share one size (`extraBytes`).
struct EntryPlan {
    /// Top-level slots, in written order (`slotCount` of them). For a singleton never nil (its cell
    /// pointer is stored just before them, even when it has no slots).
    var slotBase: UnsafePointer<PlanSlot>?
    var slotCount: Int32 = 0
    /// Index into the class table; -1 for an index whose entry was removed (`live` false).
    var classSlot: Int32 = -1
    /// Bytes a create needs beyond its arguments map: scratch for lists and maps built per call
    /// (those that contain references) plus one ownership record (`Resolver.Held`) per object it
    /// builds directly (references at any depth of its slots).
    var extraBytes: UInt32 = 0
    /// `Lifestyle` of the entry.
    var lifestyle: Lifestyle = .transient
    /// Whether a slot is `.tagged` or `.optional` (at any depth): what it builds depends on which
    /// entries exist, so a change of those compiles it again.
    var dynamic: Bool = false

    /// False for an index whose entry was removed.
    @inline(__always) var live: Bool { classSlot >= 0 }

    /// The top-level slots.
    @inline(__always) var slots: CheckedPointer<PlanSlot>? {
        guard let slotBase else { return nil }
        return CheckedPointer(slotBase, count: Int(slotCount))
    }

    /// The entry's `SingletonCell` (unretained; its `EntryTable` keeps it alive), for singletons;
    /// stored in the word before the slots, which the compiler reserves for singletons only.
    /// (The registry that builds it, when that is a parent's, is `EntryTable.owner(of:)`.)
    var singleton: UnsafeMutableRawPointer? {
        @inline(__always) get {
            guard lifestyle == .singleton, let slotBase else { return nil }
            return UnsafeRawPointer(slotBase).load(fromByteOffset: -8, as: UnsafeMutableRawPointer?.self)
        }
        nonmutating set {
            guard lifestyle == .singleton, let slotBase else {
                assert(newValue == nil, "a singleton cell set on a plan compiled without room for it")
                return
            }
            UnsafeMutableRawPointer(mutating: slotBase).storeBytes(
                of: newValue, toByteOffset: -8, as: UnsafeMutableRawPointer?.self)
        }
    }

    /// Whether one create of the entry would need more scratch memory than a plan records (4 GiB:
    /// billions of references at once); the transaction refuses the entry (`CR_ERR_LIMIT`).
    var exceedsLimits: Bool { extraBytes == .max }

    /// The cell of a plan known to be a singleton's (the create path's read: no checks).
    @inline(__always) var singletonCell: UnsafeMutableRawPointer {
        UnsafeRawPointer(slotBase.unsafelyUnwrapped).load(fromByteOffset: -8, as: UnsafeMutableRawPointer.self)
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
        if let slots { for k in 0..<Int(slotCount) { walk(slots[k]) } }
        return out
    }
}

/// Compiles an entry's dependencies into plan slots in an arena, with entry names already
/// resolved, reading them in place from the entry's record in the transaction's `DefinitionArena`
/// (no `DependencyValue`s). Keys and literal strings point at their text in that arena (each stored
/// once there); slot keys are copied once per key into the plan arena.
struct PlanCompiler {
    let arena: Arena
    let strings: DefinitionArena

    /// Keys already in the plan arena.
    private let keys = KeyCache()

    /// The slot key of the empty key (list elements, tagged members), made once.
    private let emptyKey: UnsafePointer<UInt8>

    init(arena: Arena, strings: DefinitionArena) {
        self.arena = arena
        self.strings = strings
        let raw = arena.allocate(4 + 1)
        raw.storeBytes(of: UInt32(0), as: UInt32.self)
        let p = (raw + 4).assumingMemoryBound(to: UInt8.self)
        p[0] = 0
        emptyKey = UnsafePointer(p)
    }

    /// A key as slots hold it: NUL-terminated bytes after their 32-bit length, once per key and
    /// transaction, found by the position of the key's one copy in the definition arena (an
    /// integer, not its bytes, is hashed).
    private func slotKey(_ key: (bytes: UnsafeBufferPointer<UInt8>, id: Int)) -> UnsafePointer<UInt8> {
        if let found = keys.find(key.id) { return found }
        let n = key.bytes.count
        let raw = arena.allocate(4 + n + 1)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: n), as: UInt32.self)
        let p = (raw + 4).assumingMemoryBound(to: UInt8.self)
        if let b = key.bytes.baseAddress { p.update(from: b, count: n) }
        p[n] = 0
        keys.insert(key.id, UnsafePointer(p))
        return UnsafePointer(p)
    }

    /// The keys one compiler has written, by key identity (open addressing over raw memory; a
    /// class: the compiler is used by value).
    private final class KeyCache {
        private var ids: UnsafeMutablePointer<Int>
        private var pointers: UnsafeMutablePointer<UnsafePointer<UInt8>?>
        private var capacity = 64
        private var used = 0

        init() {
            ids = .allocate(capacity: 64)
            ids.initialize(repeating: -1, count: 64)
            pointers = .allocate(capacity: 64)
            pointers.initialize(repeating: nil, count: 64)
        }

        deinit {
            ids.deallocate()
            pointers.deallocate()
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
        dependenciesAt position: Int, classSlot: Int, lifestyle: Lifestyle, targets: [Int32], membership: [Int32] = []
    ) -> EntryPlan {
        targets.withUnsafeBufferPointer { t in
            membership.withUnsafeBufferPointer { m in
                compile(
                    DefinitionReader(strings, at: position), classSlot: classSlot, lifestyle: lifestyle, targets: Cursor(t),
                    membership: Cursor(m))
            }
        }
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
        // A singleton's cell goes in the word before its slots (room made even without slots).
        let header = lifestyle == .singleton ? MemoryLayout<UnsafeMutableRawPointer?>.stride : 0
        if count == 0 && header == 0 { return plan }
        let raw = arena.allocate(header + count * MemoryLayout<PlanSlot>.stride)
        if header != 0 { raw.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self) }
        let slots = (raw + header).bindMemory(to: PlanSlot.self, capacity: count)
        plan.slotBase = UnsafePointer(slots)
        guard count > 0 else { return plan }
        var scratch = 0
        var objects = 0
        var targets = targets, membership = membership
        for i in 0..<count {
            let key = slotKey(r.internedString())
            DefinitionCoding.skipPlace(&r)
            (slots + i).initialize(
                to: slot(&r, key: key, scratch: &scratch, objects: &objects, targets: &targets, membership: &membership))
        }
        plan.dynamic = membership.next > 0
        plan.slotCount = Int32(count)
        // Saturates: `EntryPlan.exceedsLimits` (the transaction refuses such an entry).
        plan.extraBytes = UInt32(clamping: scratch + objects * MemoryLayout<Resolver.Held>.stride)
        return plan
    }

    /// The slot of the value at `r` (which moves past it).
    private func slot(
        _ r: inout DefinitionReader, key: UnsafePointer<UInt8>,
        scratch: inout Int, objects: inout Int, targets: inout Cursor, membership: inout Cursor
    ) -> PlanSlot {
        var s = PlanSlot(key: key, op: .literal)
        let tag = r.tag()
        switch tag {
        case .reference, .provider:
            _ = r.stringBytes()
            DefinitionCoding.skipPlace(&r)
            s = PlanSlot(key: key, op: tag == .reference ? .reference : .provider)
            s.target = targets.take()
            objects += 1
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
            let children = arena.allocate(PlanSlot.self, count: count + 1)
            for i in 0..<count {
                var member = PlanSlot(key: emptyKey, op: .reference)
                member.target = membership.take()
                (children + i).initialize(to: member)
            }
            var trailer = PlanSlot(key: emptyKey, op: .literal)
            trailer.literal = written
            (children + count).initialize(to: trailer)
            s = PlanSlot(key: key, op: .tagged)
            s.setChildren(children, count: count)
            scratch += count * MemoryLayout<RawValue>.stride
            objects += count
        case .optional:
            // What is passed (the entry, or null while it does not exist), then the name.
            let name = r.stringBytes()
            DefinitionCoding.skipPlace(&r)
            let children = arena.allocate(PlanSlot.self, count: 2)
            let target = membership.take()
            var passed = PlanSlot(key: emptyKey, op: target >= 0 ? .reference : .literal)
            if target >= 0 { passed.target = target }
            (children + 0).initialize(to: passed)
            var written = PlanSlot(key: emptyKey, op: .literal)
            written.literal = .borrowedString(name.baseAddress!, length: name.count)
            (children + 1).initialize(to: written)
            s = PlanSlot(key: key, op: .optional)
            s.setChildren(children, count: 1)
            objects += 1
        case .list where DefinitionCoding.containerHasReference(.list, r):
            let n = Int(r.varint())
            let children = arena.allocate(PlanSlot.self, count: n)
            for i in 0..<n {
                (children + i).initialize(
                    to: slot(
                        &r, key: emptyKey, scratch: &scratch, objects: &objects, targets: &targets, membership: &membership
                    ))
            }
            s = PlanSlot(key: key, op: .list)
            s.setChildren(children, count: n)
            scratch += n * MemoryLayout<RawValue>.stride
        case .map where DefinitionCoding.containerHasReference(.map, r):
            let n = Int(r.varint())
            let children = arena.allocate(PlanSlot.self, count: n)
            for i in 0..<n {
                let childKey = slotKey(r.internedString())
                DefinitionCoding.skipPlace(&r)
                (children + i).initialize(
                    to: slot(
                        &r, key: childKey, scratch: &scratch, objects: &objects, targets: &targets, membership: &membership
                    ))
            }
            s = PlanSlot(key: key, op: .map)
            s.setChildren(children, count: n)
            scratch += n * MemoryLayout<RawMapSlot>.stride
        default:
            s.literal = literal(tag, &r)
        }
        return s
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
