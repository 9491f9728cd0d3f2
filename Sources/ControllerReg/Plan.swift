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

/// Compiles dependency values into plan slots in an arena, with entry names already resolved.
/// Keys and literal strings point at their text in the transaction's `DefinitionArena` (each stored
/// once there); text it does not hold is copied into the plan arena.
struct PlanCompiler {
    let arena: Arena
    let strings: DefinitionArena

    /// Keys already in the plan arena.
    private let keys = KeyCache()

    /// NUL-terminated bytes of `text` and their length.
    private func bytes(_ text: String) -> (UnsafePointer<UInt8>, Int) {
        if let found = strings.internedBytes(text) { return found }
        return arena.copy(text)
    }

    /// A key as slots hold it: NUL-terminated bytes after their 32-bit length, once per key and
    /// transaction.
    private func slotKey(_ text: String) -> UnsafePointer<UInt8> {
        // Read in place when the storage is contiguous (native strings), as the definition arena does.
        if let p = text.utf8.withContiguousStorageIfAvailable({ slotKey(bytes: $0) }) { return p }
        var t = text
        return t.withUTF8 { slotKey(bytes: $0) }
    }

    /// `slotKey` of a key's bytes, found by them in the cache's `InternTable` (the definition
    /// arena's byte hash and table; a `[String: …]` here cost a SipHash per dependency).
    @inline(never)
    private func slotKey(bytes u: UnsafeBufferPointer<UInt8>) -> UnsafePointer<UInt8> {
        let bytes = UnsafeRawBufferPointer(u)
        let hash = byteHash(bytes)
        let table = keys.table
        if let found = table.pointee.find(bytes, hash: hash, in: SlotKeys()) {
            return UnsafePointer(bitPattern: found)!
        }
        let n = u.count
        let raw = arena.allocate(4 + n + 1)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: n), as: UInt32.self)
        let p = (raw + 4).assumingMemoryBound(to: UInt8.self)
        if let b = u.baseAddress { p.update(from: b, count: n) }
        p[n] = 0
        _ = table.pointee.find(bytes, hash: hash, in: SlotKeys(), orInsert: Int(bitPattern: p))
        return UnsafePointer(p)
    }

    /// The keys one compiler has written (a class: the compiler is used by value). Raw memory
    /// behind a `let`: a class's stored `var` is a dynamic exclusivity check per access.
    private final class KeyCache {
        let table: UnsafeMutablePointer<InternTable> = {
            let p = UnsafeMutablePointer<InternTable>.allocate(capacity: 1)
            p.initialize(to: InternTable())
            return p
        }()

        deinit {
            table.pointee.free()
            table.deinitialize(count: 1)
            table.deallocate()
        }
    }

    /// Slot keys in the plan arena, recorded by their address: the 32-bit length precedes the bytes.
    private struct SlotKeys: InternedBytes {
        @inline(__always) func bytes(at value: Int) -> UnsafeRawBufferPointer {
            let p = UnsafeRawPointer(bitPattern: value)!
            return UnsafeRawBufferPointer(start: p, count: Int(p.load(fromByteOffset: -4, as: UInt32.self)))
        }
    }

    /// Compiles an entry's dependencies. `targets` holds the entry index of every reference and
    /// provider in them, in `DependencyValue.forEachReference` order (as the transaction resolved
    /// and validated them), which is the order this compiler meets them in. `membership` holds,
    /// in written order, for each tagged list its member count then its members, and for each
    /// optional reference its target or -1.
    func compile(
        _ dependencies: [Dependency], classSlot: Int, lifestyle: Lifestyle, targets: [Int32], membership: [Int32] = []
    ) -> EntryPlan {
        targets.withUnsafeBufferPointer { t in
            membership.withUnsafeBufferPointer { m in
                compile(dependencies, classSlot: classSlot, lifestyle: lifestyle, targets: Cursor(t), membership: Cursor(m))
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
        _ dependencies: [Dependency], classSlot: Int, lifestyle: Lifestyle, targets: Cursor, membership: Cursor
    ) -> EntryPlan {
        var plan = EntryPlan()
        plan.classSlot = Int32(classSlot)
        plan.lifestyle = lifestyle
        // A singleton's cell goes in the word before its slots (room made even without slots).
        let header = lifestyle == .singleton ? MemoryLayout<UnsafeMutableRawPointer?>.stride : 0
        if dependencies.isEmpty && header == 0 { return plan }
        let raw = arena.allocate(header + dependencies.count * MemoryLayout<PlanSlot>.stride)
        if header != 0 { raw.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self) }
        let slots = (raw + header).bindMemory(to: PlanSlot.self, capacity: dependencies.count)
        plan.slotBase = UnsafePointer(slots)
        guard !dependencies.isEmpty else { return plan }
        var scratch = 0
        var objects = 0
        var targets = targets, membership = membership
        // Each dependency read in place (binding `d` copied it: key, value and location retained
        // and released once per dependency of every entry compiled).
        dependencies.withUnsafeBufferPointer { deps in
            for i in deps.indices {
                (slots + i).initialize(
                    to: slot(
                        deps[i].value, key: slotKey(deps[i].key), scratch: &scratch, objects: &objects,
                        targets: &targets, membership: &membership))
            }
        }
        plan.dynamic = membership.next > 0
        plan.slotCount = Int32(dependencies.count)
        // Saturates: `EntryPlan.exceedsLimits` (the transaction refuses such an entry).
        plan.extraBytes = UInt32(clamping: scratch + objects * MemoryLayout<Resolver.Held>.stride)
        return plan
    }

    private func slot(
        _ value: DependencyValue, key: UnsafePointer<UInt8>,
        scratch: inout Int, objects: inout Int, targets: inout Cursor, membership: inout Cursor
    ) -> PlanSlot {
        var s = PlanSlot(key: key, op: .literal)
        switch value {
        case .reference:
            s = PlanSlot(key: key, op: .reference)
            s.target = targets.take()
            objects += 1
        case .provider:
            s = PlanSlot(key: key, op: .provider)
            s.target = targets.take()
            objects += 1
        case .tagged(let tag, _):
            // The list-of-references shape: one reference slot per member, built like any list,
            // then the tag as written.
            let count = max(0, Int(membership.take()))
            let children = arena.allocate(PlanSlot.self, count: count + 1)
            for i in 0..<count {
                var member = PlanSlot(key: slotKey(""), op: .reference)
                member.target = membership.take()
                (children + i).initialize(to: member)
            }
            var written = PlanSlot(key: slotKey(""), op: .literal)
            written.literal = literal(tag.asDependency)
            (children + count).initialize(to: written)
            s = PlanSlot(key: key, op: .tagged)
            s.setChildren(children, count: count)
            scratch += count * MemoryLayout<RawValue>.stride
            objects += count
        case .optional(let name, _):
            // What is passed (the entry, or null while it does not exist), then the name.
            let children = arena.allocate(PlanSlot.self, count: 2)
            let target = membership.take()
            var passed = PlanSlot(key: slotKey(""), op: target >= 0 ? .reference : .literal)
            if target >= 0 { passed.target = target }
            (children + 0).initialize(to: passed)
            var written = PlanSlot(key: slotKey(""), op: .literal)
            written.literal = literal(.string(name))
            (children + 1).initialize(to: written)
            s = PlanSlot(key: key, op: .optional)
            s.setChildren(children, count: 1)
            objects += 1
        case .list(let items) where items.contains(where: Self.hasReference):
            let children = arena.allocate(PlanSlot.self, count: items.count)
            for (i, item) in items.enumerated() {
                (children + i).initialize(
                    to: slot(
                        item, key: slotKey(""), scratch: &scratch, objects: &objects, targets: &targets,
                        membership: &membership))
            }
            s = PlanSlot(key: key, op: .list)
            s.setChildren(children, count: items.count)
            scratch += items.count * MemoryLayout<RawValue>.stride
        case .map(let deps) where deps.contains(where: { Self.hasReference($0.value) }):
            let children = arena.allocate(PlanSlot.self, count: deps.count)
            for (i, d) in deps.enumerated() {
                (children + i).initialize(
                    to: slot(
                        d.value, key: slotKey(d.key), scratch: &scratch, objects: &objects, targets: &targets,
                        membership: &membership))
            }
            s = PlanSlot(key: key, op: .map)
            s.setChildren(children, count: deps.count)
            scratch += deps.count * MemoryLayout<RawMapSlot>.stride
        default:
            s.literal = literal(value)
        }
        return s
    }

    /// A reference-free value as a read-only RawValue in the arena.
    private func literal(_ value: DependencyValue) -> RawValue {
        switch value {
        // Environment values are resolved by the transaction before compiling: never met here.
        case .null, .reference, .provider, .tagged, .optional, .template, .env: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s):
            let (p, n) = bytes(s)
            return .borrowedString(p, length: n)
        case .list(let items):
            let e = arena.allocate(RawValue.self, count: items.count)
            for (i, item) in items.enumerated() { (e + i).initialize(to: literal(item)) }
            return .borrowedList(UnsafePointer(e), count: items.count)
        case .map(let deps):
            let m = arena.allocate(RawMapSlot.self, count: deps.count)
            for (i, d) in deps.enumerated() {
                let (k, l) = bytes(d.key)
                (m + i).initialize(to: RawMapSlot(key: k, keyLength: l, value: literal(d.value)))
            }
            return .borrowedMap(UnsafePointer(m), count: deps.count)
        }
    }

    static func hasReference(_ value: DependencyValue) -> Bool {
        switch value {
        case .reference, .provider, .tagged, .optional: return true
        case .list(let items): return items.contains(where: hasReference)
        case .map(let deps): return deps.contains { hasReference($0.value) }
        default: return false
        }
    }
}

extension EntryTag {
    /// The tag as the literal a plan keeps (its kind as written).
    var asDependency: DependencyValue {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        }
    }
}
