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
}

/// An entry's compiled plan: its dependency slots and what a create of it needs.
struct EntryPlan {
    /// Top-level slots, in written order (`slotCount` of them).
    var slotBase: UnsafePointer<PlanSlot>?
    var slotCount: Int32 = 0
    /// Index into the class table.
    var classSlot: Int32 = -1
    /// Scratch bytes for lists and maps built per call (those that contain references).
    var scratchBytes: Int32 = 0
    /// Most objects one create of this entry builds directly (references at any depth of its slots).
    var objectCount: Int32 = 0
    /// False for an index whose entry was removed.
    var live: Bool = false
    /// `Lifestyle` of the entry.
    var lifestyle: Lifestyle = .transient
    /// The entry's `SingletonCell` (unretained; its `EntryTable` keeps it alive), for singletons.
    /// (The registry that builds it, when that is a parent's, is `EntryTable.owner(of:)`.)
    var singleton: UnsafeMutableRawPointer?

    /// The top-level slots.
    @inline(__always) var slots: CheckedPointer<PlanSlot>? {
        guard let slotBase else { return nil }
        return CheckedPointer(slotBase, count: Int(slotCount))
    }
}

extension EntryPlan {
    /// The entry indices its slots create, and with `providers` also those they provide, depth
    /// first in written order (the order the transaction resolved them in).
    func references(providers: Bool) -> [Int32] {
        var out: [Int32] = []
        func walk(_ s: PlanSlot) {
            switch s.op {
            case .literal: break
            case .reference: if s.target >= 0 { out.append(s.target) }
            case .provider: if providers && s.target >= 0 { out.append(s.target) }
            case .list, .map: for k in 0..<Int(s.childCount) { walk(s.children![k]) }
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
        if let last = keys.last, last.text == text { return last.bytes }
        if let p = keys.byText[text] {
            keys.last = (text, p)
            return p
        }
        let n = text.utf8.count
        let raw = arena.allocate(4 + n + 1)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: n), as: UInt32.self)
        let p = (raw + 4).assumingMemoryBound(to: UInt8.self)
        var t = text
        t.withUTF8 { u in if let b = u.baseAddress { p.update(from: b, count: n) } }
        p[n] = 0
        keys.byText[text] = UnsafePointer(p)
        keys.last = (text, UnsafePointer(p))
        return UnsafePointer(p)
    }

    /// The keys one compiler has written (a class: the compiler is used by value).
    private final class KeyCache {
        var byText: [String: UnsafePointer<UInt8>] = [:]
        var last: (text: String, bytes: UnsafePointer<UInt8>)?
    }

    /// Compiles an entry's dependencies. `targets` holds the entry index of every reference and
    /// provider in them, in `DependencyValue.forEachReference` order (as the transaction resolved
    /// and validated them), which is the order this compiler meets them in.
    func compile(_ dependencies: [Dependency], classSlot: Int, lifestyle: Lifestyle, targets: [Int32]) -> EntryPlan {
        targets.withUnsafeBufferPointer { compile(dependencies, classSlot: classSlot, lifestyle: lifestyle, targets: $0) }
    }

    private func compile(
        _ dependencies: [Dependency], classSlot: Int, lifestyle: Lifestyle, targets: UnsafeBufferPointer<Int32>
    ) -> EntryPlan {
        var plan = EntryPlan()
        plan.classSlot = Int32(classSlot)
        plan.live = true
        plan.lifestyle = lifestyle
        guard !dependencies.isEmpty else { return plan }
        let slots = arena.allocate(PlanSlot.self, count: dependencies.count)
        var scratch = 0
        var objects = 0
        var next = 0
        // Each dependency read in place (binding `d` copied it: key, value and location retained
        // and released once per dependency of every entry compiled).
        dependencies.withUnsafeBufferPointer { deps in
            for i in deps.indices {
                (slots + i).initialize(
                    to: slot(
                        deps[i].value, key: slotKey(deps[i].key), scratch: &scratch, objects: &objects,
                        targets: targets, next: &next))
            }
        }
        plan.slotBase = UnsafePointer(slots)
        plan.slotCount = Int32(dependencies.count)
        plan.scratchBytes = Int32(clamping: scratch)
        plan.objectCount = Int32(clamping: objects)
        return plan
    }

    private func slot(
        _ value: DependencyValue, key: UnsafePointer<UInt8>,
        scratch: inout Int, objects: inout Int, targets: UnsafeBufferPointer<Int32>, next: inout Int
    ) -> PlanSlot {
        var s = PlanSlot(key: key, op: .literal)
        switch value {
        case .reference:
            s = PlanSlot(key: key, op: .reference)
            s.target = next < targets.count ? targets[next] : -1
            next += 1
            objects += 1
        case .provider:
            s = PlanSlot(key: key, op: .provider)
            s.target = next < targets.count ? targets[next] : -1
            next += 1
            objects += 1
        case .list(let items) where items.contains(where: Self.hasReference):
            let children = arena.allocate(PlanSlot.self, count: items.count)
            for (i, item) in items.enumerated() {
                (children + i).initialize(
                    to: slot(
                        item, key: slotKey(""), scratch: &scratch, objects: &objects, targets: targets, next: &next))
            }
            s = PlanSlot(key: key, op: .list)
            s.setChildren(children, count: items.count)
            scratch += items.count * MemoryLayout<RawValue>.stride
        case .map(let deps) where deps.contains(where: { Self.hasReference($0.value) }):
            let children = arena.allocate(PlanSlot.self, count: deps.count)
            for (i, d) in deps.enumerated() {
                (children + i).initialize(
                    to: slot(d.value, key: slotKey(d.key), scratch: &scratch, objects: &objects, targets: targets, next: &next))
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
        case .null, .reference, .provider, .template, .env: return .null
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
        case .reference, .provider: return true
        case .list(let items): return items.contains(where: hasReference)
        case .map(let deps): return deps.contains { hasReference($0.value) }
        default: return false
        }
    }
}
