/// What differs between two sets of entries: what a reload changed (`Registry.reload()`), and what
/// `controllerreg diff OLD NEW` prints.
///
/// - `added`: names only the new set defines.
/// - `removed`: names only the old set defines.
/// - `changed`: names both define whose definitions differ in anything but source locations
///   (class, description, tag, dependencies, lifestyle, eager); and every singleton whose
///   definition is the same but whose object reaches, through object references (not providers),
///   an added, removed or changed entry in the old or the new set: the object it holds was wired
///   with what is gone, so a reload destroys it and builds it again on next use.
///
/// Each list is sorted byte-wise (UTF-8).
public struct ReloadChanges: Sendable, Hashable {
    /// Names only the new set defines.
    public var added: [String]
    /// Names only the old set defines.
    public var removed: [String]
    /// Names both define whose definition (or, for a singleton, wiring) differs.
    public var changed: [String]

    /// Creates a value from three lists (sorted here).
    public init(added: [String] = [], removed: [String] = [], changed: [String] = []) {
        self.added = added.sorted(by: ReloadChanges.utf8Order)
        self.removed = removed.sorted(by: ReloadChanges.utf8Order)
        self.changed = changed.sorted(by: ReloadChanges.utf8Order)
    }

    /// Whether nothing differs.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

    /// The differences from `old` to `new` (each a set of entries with unique names, as a registry
    /// lists them).
    public init(from old: [EntryDefinition], to new: [EntryDefinition]) {
        self = ReloadChanges.compare(old: old, new: new)
    }

    private static func utf8Order(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// The comparison behind `init(from:to:)`. `notRebuilt` names singletons whose objects the
    /// compared registry does not build (a child's inherited entries): they are never listed as
    /// changed for their wiring alone.
    static func compare(old: [EntryDefinition], new: [EntryDefinition], notRebuilt: Set<String> = []) -> ReloadChanges {
        var oldByName: [String: Int] = [:]
        for (i, d) in old.enumerated() { oldByName[d.name] = i }
        var newByName: [String: Int] = [:]
        for (i, d) in new.enumerated() { newByName[d.name] = i }
        var added: [String] = []
        var removed: [String] = []
        var changed = Set<String>()
        for d in new {
            if let i = oldByName[d.name] {
                // Equal as written may still differ in the environment values they resolve to.
                if old[i] != d || EnvironmentResolution.valuesDiffer(old[i], d) { changed.insert(d.name) }
            } else {
                added.append(d.name)
            }
        }
        for d in old where newByName[d.name] == nil { removed.append(d.name) }
        let dirty = changed.union(added).union(removed)
        if !dirty.isEmpty {
            // Entries that reach a dirty one through object references, in either set.
            let reaching = reachingAny(of: dirty, in: old).union(reachingAny(of: dirty, in: new))
            for d in new where d.lifestyle == .singleton && !dirty.contains(d.name) && reaching.contains(d.name) {
                if !notRebuilt.contains(d.name) { changed.insert(d.name) }
            }
        }
        return ReloadChanges(added: added, removed: removed, changed: Array(changed))
    }

    /// Names of the entries of `definitions` from which some entry named in `targets` is reachable
    /// through one or more object edges: references, tagged lists, optional references (providers do
    /// not build, so they do not count).
    private static func reachingAny(of targets: Set<String>, in definitions: [EntryDefinition]) -> Set<String> {
        // Reverse edges: for each name, the entries that refer to it (a tagged list refers to every
        // entry of its tag in this set, an optional reference to its target).
        var tagged: [String: [String]] = [:]
        for d in definitions {
            for t in Set(d.tags.map(\.text)) { tagged[t, default: []].append(d.name) }
        }
        var referrers: [String: [String]] = [:]
        for d in definitions {
            for dep in d.dependencies {
                dep.value.forEachEdge { edge in
                    switch edge.kind {
                    case .provider: break
                    case .reference, .optional: referrers[edge.name, default: []].append(d.name)
                    case .tagged: for m in tagged[edge.name] ?? [] { referrers[m, default: []].append(d.name) }
                    }
                }
            }
        }
        var reached = Set<String>()
        var work = Array(targets)
        while let name = work.popLast() {
            for r in referrers[name] ?? [] where reached.insert(r).inserted { work.append(r) }
        }
        return reached
    }
}
