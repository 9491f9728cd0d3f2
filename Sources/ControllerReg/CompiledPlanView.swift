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
    /// The slots in evaluation order: literals as compiled, references and providers by target
    /// name, tagged lists and optional references as written (`.tagged`, `.optional`).
    package let slots: [Dependency]
    /// The members each tagged list of this entry resolved to, by tag text, in list order.
    package let taggedMembers: [String: [String]]
    /// The names of this entry's optional references that resolved to nothing (null).
    package let absentOptionals: [String]
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
                var forms = Forms()
                for k in 0..<plan.slotCount { slots.append(Self.dependency(plan.slot(k), s, &forms)) }
                out.append(
                    CompiledPlanView(
                        name: definition.name, definition: definition,
                        lifestyle: plan.lifestyle, slots: slots, taggedMembers: forms.members,
                        absentOptionals: forms.absent))
            }
            return out
        }
    }

    /// What the tagged and optional slots of one plan resolved to.
    private struct Forms {
        var members: [String: [String]] = [:]
        var absent: [String] = []
    }

    private static func dependency(_ slot: PlanSlot, _ s: Snapshot, _ forms: inout Forms) -> Dependency {
        let key = String(decoding: UnsafeBufferPointer(start: slot.key, count: slot.keyLength), as: UTF8.self)
        return Dependency(key: key, value: value(slot, s, &forms))
    }

    private static func value(_ slot: PlanSlot, _ s: Snapshot, _ forms: inout Forms) -> DependencyValue {
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
        case .tagged:
            let written = withUnsafePointer(to: slot.trailer.literal) { literal(ValueRef($0)) }
            let tag: EntryTag
            switch written {
            case .int(let i): tag = .int(i)
            case .string(let t): tag = .string(t)
            default: tag = .string("")
            }
            forms.members[tag.text] = (0..<Int(slot.childCount)).map { name(slot.children![$0].target) }
            return .tagged(tag, at: nil)
        case .optional:
            let target = withUnsafePointer(to: slot.trailer.literal) { ValueRef($0).string } ?? ""
            if slot.children![0].op != .reference { forms.absent.append(target) }
            return .optional(target, at: nil)
        case .list:
            var items: [DependencyValue] = []
            for i in 0..<Int(slot.childCount) { items.append(value(slot.children![i], s, &forms)) }
            return .list(items)
        case .map:
            var deps: [Dependency] = []
            for i in 0..<Int(slot.childCount) { deps.append(dependency(slot.children![i], s, &forms)) }
            return .map(deps)
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
