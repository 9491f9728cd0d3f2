/// What the resolver runs to create one entry, read back from the compiled plan of the current
/// snapshot: the slots in the order `build` evaluates them, each literal as compiled and each
/// reference or provider as the entry index the transaction resolved (named here). For the tool's
/// `explain`, so it describes what a create does instead of re-deriving it from definitions.
package struct CompiledPlanView: Sendable {
    /// The entry's name.
    package let name: String
    /// Its definition (class name, description, tag, eagerness, place).
    package let definition: EntryDefinition
    /// The lifestyle the resolver applies (from the plan).
    package let lifestyle: Lifestyle
    /// The slots in evaluation order: literals as compiled, references and providers by target name.
    package let slots: [Dependency]
}

extension Registry {
    /// The compiled plan of every live entry (for a child, its parent's too), in index order.
    package func compiledPlans() -> [CompiledPlanView] {
        cell.read { s in
            var out: [CompiledPlanView] = []
            for i in 0..<s.entries.count {
                guard let definition = s.entries.definition(at: i) else { continue }
                let plan = s.entries.plans[i]
                var slots: [Dependency] = []
                if let p = plan.slots {
                    for k in 0..<Int(plan.slotCount) { slots.append(Self.dependency(p[k], s)) }
                }
                out.append(
                    CompiledPlanView(
                        name: definition.name, definition: definition,
                        lifestyle: plan.lifestyle, slots: slots))
            }
            return out
        }
    }

    private static func dependency(_ slot: PlanSlot, _ s: Snapshot) -> Dependency {
        let key = String(decoding: UnsafeBufferPointer(start: slot.key, count: slot.keyLength), as: UTF8.self)
        return Dependency(key: key, value: value(slot, s))
    }

    private static func value(_ slot: PlanSlot, _ s: Snapshot) -> DependencyValue {
        func name(_ target: Int32) -> String {
            s.entries.isLive(Int(target)) ? s.entries.name(at: Int(target)) : ""
        }
        switch slot.op {
        case .literal:
            return withUnsafePointer(to: slot.literal) { literal(ValueRef($0)) }
        case .reference:
            return .reference(name(slot.target), at: nil)
        case .provider:
            return .provider(name(slot.target), at: nil)
        case .list:
            return .list((0..<Int(slot.childCount)).map { value(slot.children![$0], s) })
        case .map:
            return .map((0..<Int(slot.childCount)).map { dependency(slot.children![$0], s) })
        }
    }

    /// A compiled literal (reference-free, in written order) as a dependency value.
    private static func literal(_ v: ValueRef) -> DependencyValue {
        switch v.kind {
        case .null, .object, .provider: return .null
        case .bool: return .bool(v.bool!)
        case .int: return .int(v.int!)
        case .double: return .double(v.double!)
        case .string: return .string(v.string!)
        case .list: return .list((0..<v.count).map { literal(v[$0]!) })
        case .map: return .map((0..<v.count).map { Dependency(key: v.key(at: $0)!, value: literal(v.value(at: $0)!)) })
        }
    }
}
