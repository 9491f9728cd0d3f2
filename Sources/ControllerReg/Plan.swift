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
    /// `{Tagged: t}`: a list built from `children` (a reference per member, ordered by name);
    /// `literal` holds the tag as written (string or integer).
    case tagged
    /// `{Optional: Name}`: as `.reference` when `target` >= 0, else null; `literal` holds the name.
    case optional
}

/// One compiled dependency: plain data, so the create path touches no reference counts.
struct PlanSlot {
    var key: UnsafePointer<UInt8>
    var keyLength: Int
    var op: PlanOp
    var target: Int32
    var childCount: Int32
    var children: CheckedPointer<PlanSlot>?
    var literal: RawValue
}

/// An entry's compiled plan: its dependency slots and what a create of it needs.
struct EntryPlan {
    /// Top-level slots, in written order.
    var slots: CheckedPointer<PlanSlot>?
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
    /// Whether a slot is `.tagged` or `.optional` (at any depth): what it builds depends on which
    /// entries exist, so a change of those compiles it again.
    var dynamic: Bool = false
    /// The entry's `SingletonCell` (unretained; its `CompiledEntry` keeps it alive), for singletons.
    var singleton: UnsafeMutableRawPointer?
    /// The registry that defines the singleton, when it is a parent of the one compiling this plan.
    var owner: UnsafeMutableRawPointer?
}

/// Compiles dependency values into plan slots in an arena, with entry names already resolved.
struct PlanCompiler {
    let arena: Arena

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
        plan.live = true
        plan.lifestyle = lifestyle
        guard !dependencies.isEmpty else { return plan }
        let slots = arena.allocate(PlanSlot.self, count: dependencies.count)
        var scratch = 0
        var objects = 0
        var targets = targets, membership = membership
        for (i, d) in dependencies.enumerated() {
            let (key, length) = arena.copy(d.key)
            (slots + i).initialize(
                to: slot(
                    d.value, key: key, keyLength: length, scratch: &scratch, objects: &objects,
                    targets: &targets, membership: &membership))
        }
        plan.dynamic = membership.next > 0
        plan.slots = CheckedPointer(slots, count: dependencies.count)
        plan.slotCount = Int32(dependencies.count)
        plan.scratchBytes = Int32(clamping: scratch)
        plan.objectCount = Int32(clamping: objects)
        return plan
    }

    private func slot(
        _ value: DependencyValue, key: UnsafePointer<UInt8>, keyLength: Int,
        scratch: inout Int, objects: inout Int, targets: inout Cursor, membership: inout Cursor
    ) -> PlanSlot {
        var s = PlanSlot(key: key, keyLength: keyLength, op: .literal, target: -1, childCount: 0, children: nil, literal: .null)
        switch value {
        case .reference:
            s.op = .reference
            s.target = targets.take()
            objects += 1
        case .provider:
            s.op = .provider
            s.target = targets.take()
            objects += 1
        case .tagged(let tag, _):
            // The list-of-references shape: one reference slot per member, built like any list.
            let count = max(0, Int(membership.take()))
            s.op = .tagged
            s.literal = literal(tag.asDependency)
            if count > 0 {
                let children = arena.allocate(PlanSlot.self, count: count)
                for i in 0..<count {
                    var child = PlanSlot(
                        key: emptyKey, keyLength: 0, op: .reference, target: membership.take(), childCount: 0, children: nil,
                        literal: .null)
                    if child.target < 0 { child.op = .literal }
                    (children + i).initialize(to: child)
                }
                s.children = CheckedPointer(children, count: count)
                s.childCount = Int32(count)
                scratch += count * MemoryLayout<RawValue>.stride
                objects += count
            }
        case .optional(let name, _):
            s.op = .optional
            s.target = membership.take()
            s.literal = literal(.string(name))
            objects += 1
        case .list(let items) where items.contains(where: Self.hasReference):
            let children = arena.allocate(PlanSlot.self, count: items.count)
            for (i, item) in items.enumerated() {
                (children + i).initialize(
                    to: slot(
                        item, key: emptyKey, keyLength: 0, scratch: &scratch, objects: &objects, targets: &targets,
                        membership: &membership))
            }
            s.op = .list
            s.children = CheckedPointer(children, count: items.count)
            s.childCount = Int32(items.count)
            scratch += items.count * MemoryLayout<RawValue>.stride
        case .map(let deps) where deps.contains(where: { Self.hasReference($0.value) }):
            let children = arena.allocate(PlanSlot.self, count: deps.count)
            for (i, d) in deps.enumerated() {
                let (k, l) = arena.copy(d.key)
                (children + i).initialize(
                    to: slot(
                        d.value, key: k, keyLength: l, scratch: &scratch, objects: &objects, targets: &targets,
                        membership: &membership))
            }
            s.op = .map
            s.children = CheckedPointer(children, count: deps.count)
            s.childCount = Int32(deps.count)
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
            let (p, n) = arena.copy(s)
            return .borrowedString(p, length: n)
        case .list(let items):
            let e = arena.allocate(RawValue.self, count: items.count)
            for (i, item) in items.enumerated() { (e + i).initialize(to: literal(item)) }
            return .borrowedList(UnsafePointer(e), count: items.count)
        case .map(let deps):
            let m = arena.allocate(RawMapSlot.self, count: deps.count)
            for (i, d) in deps.enumerated() {
                let (k, l) = arena.copy(d.key)
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
