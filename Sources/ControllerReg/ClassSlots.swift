/// Class names to slot numbers: one slot per distinct class name a registry has seen (named by an
/// entry or registered). Slots never move, so compiled plans keep them across changes.
struct ClassSlots {
    /// Class name of each slot.
    private(set) var names: [String] = []
    private var byName: [String: Int] = [:]
    /// The slot `slot(for:)` returned last (consecutive entries often share a class).
    private var last: Int?

    /// Number of slots.
    var count: Int { names.count }

    /// The slot for a class name, allocating one for a name not seen before.
    mutating func slot(for name: String) -> Int {
        if let l = last, names[l] == name { return l }
        if let s = byName[name] {
            last = s
            return s
        }
        let s = names.count
        names.append(name)
        byName[name] = s
        last = s
        return s
    }
}
