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
        let o = StagedRecordSet(staged: StagedEntries(old), lookup: nil)
        let n = StagedRecordSet(staged: StagedEntries(new), lookup: nil)
        self = ReloadChanges.compare(old: o, new: n) ?? ReloadChanges.compareWithRepeats(old: old, new: new)
    }

    private static func utf8Order(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// The comparison behind `init(from:to:)`, `Registry.reload()` and a child recompiled over its
    /// changed parent, read from the entries' records (decoded only for entries with environment
    /// values, which are compared by what they resolve to). Names and strings compare by their
    /// bytes. `notRebuilt` names singletons whose objects the compared registry does not build (a
    /// child's inherited entries): they are never listed as changed for their wiring alone.
    /// nil when `new` holds a name twice (a change not applied yet whose later entry wins).
    static func compare<Old: EntryRecordSet, New: EntryRecordSet>(
        old: Old, new: New, notRebuilt: Set<String> = []
    ) -> ReloadChanges? {
        guard !new.repeatsAName else { return nil }
        var added: [NameKey] = []
        var dirty = Set<NameKey>()
        var changed: [NameKey] = []
        for k in 0..<new.positionCount {
            guard let bytes = new.entryName(at: k) else { continue }
            guard let i = old.position(ofName: bytes) else {
                added.append(NameKey(bytes))
                dirty.insert(NameKey(bytes))
                continue
            }
            if differ(old, i, new, k) {
                changed.append(NameKey(bytes))
                dirty.insert(NameKey(bytes))
            }
        }
        var removed: [NameKey] = []
        for i in 0..<old.positionCount {
            guard let bytes = old.entryName(at: i), new.position(ofName: bytes) == nil else { continue }
            // (A name an old set repeats is listed once.)
            if dirty.insert(NameKey(bytes)).inserted { removed.append(NameKey(bytes)) }
        }
        if !dirty.isEmpty {
            // Singletons that reach a dirty entry through object references, in either set.
            let reaching = reachingAny(of: dirty, in: old).union(reachingAny(of: dirty, in: new))
            for k in 0..<new.positionCount {
                guard let bytes = new.entryName(at: k) else { continue }
                let name = NameKey(bytes)
                guard !dirty.contains(name), reaching.contains(name) else { continue }
                let (arena, offset) = new.definitionRecord(at: k)
                if DefinitionCoding.lifestyle(arena, at: offset) == .singleton && !notRebuilt.contains(name.text) {
                    changed.append(name)
                }
            }
        }
        return ReloadChanges(added: added.map(\.text), removed: removed.map(\.text), changed: changed.map(\.text))
    }

    /// Whether entry `i` of `old` and entry `k` of `new` (of one name) differ in their definitions
    /// (but for places) or in the values their environment values resolve to.
    private static func differ<Old: EntryRecordSet, New: EntryRecordSet>(_ old: Old, _ i: Int, _ new: New, _ k: Int) -> Bool {
        if old.usesEnvironment(at: i) || new.usesEnvironment(at: k) {
            let a = old.decoded(at: i), b = new.decoded(at: k)
            return a != b || EnvironmentResolution.valuesDiffer(a, b)
        }
        let (oa, oo) = old.definitionRecord(at: i), (na, no) = new.definitionRecord(at: k)
        return !DefinitionCoding.sameDefinition(oa, at: oo, na, at: no)
    }

    /// Names of the entries of `set` from which some entry named in `targets` is reachable through
    /// one or more object edges: references, tagged lists, optional references (providers do not
    /// build, so they do not count). Read from the records (`DefinitionCoding.summarize`).
    static func reachingAny<S: EntryRecordSet>(of targets: Set<NameKey>, in set: S) -> Set<NameKey> {
        // Reverse edges: for each name, the entries that refer to it (a tagged list refers to every
        // entry of its tag in this set, an optional reference to its target).
        var tagged: [String: [NameKey]] = [:]
        for k in 0..<set.positionCount {
            guard let bytes = set.entryName(at: k) else { continue }
            let (arena, offset) = set.definitionRecord(at: k)
            guard DefinitionCoding.hasTags(arena, at: offset) else { continue }
            for t in Set(DefinitionCoding.tags(arena, at: offset).map(\.text)) { tagged[t, default: []].append(NameKey(bytes)) }
        }
        var referrers: [NameKey: [NameKey]] = [:]
        var edges: [StagedEdge] = []
        for k in 0..<set.positionCount {
            guard let bytes = set.entryName(at: k) else { continue }
            let me = NameKey(bytes)
            let (arena, offset) = set.definitionRecord(at: k)
            edges.removeAll(keepingCapacity: true)
            _ = DefinitionCoding.summarize(arena, at: offset, edges: &edges)
            for edge in edges {
                switch edge.kind {
                case .provider: break
                case .reference, .optional:
                    var r = DefinitionReader(arena, at: Int(edge.payload))
                    referrers[NameKey(r.stringBytes()), default: []].append(me)
                case .tagged:
                    var r = DefinitionReader(arena, at: Int(edge.payload))
                    let text = String(decoding: r.stringBytes(), as: UTF8.self)
                    for m in tagged[text] ?? [] { referrers[m, default: []].append(me) }
                case .taggedInt:
                    for m in tagged[String(edge.payload)] ?? [] { referrers[m, default: []].append(me) }
                }
            }
        }
        var reached = Set<NameKey>()
        var work = Array(targets)
        while let name = work.popLast() {
            for r in referrers[name] ?? [] where reached.insert(r).inserted { work.append(r) }
        }
        return reached
    }

    /// `init(from:to:)` for lists that repeat a name (not a set of entries as a registry lists
    /// them): each name's last definition stands for it.
    private static func compareWithRepeats(old: [EntryDefinition], new: [EntryDefinition]) -> ReloadChanges {
        func lastOfEach(_ list: [EntryDefinition]) -> [EntryDefinition] {
            var seen = Set<String>()
            return list.reversed().filter { seen.insert($0.name).inserted }.reversed()
        }
        let o = StagedRecordSet(staged: StagedEntries(lastOfEach(old)), lookup: nil)
        let n = StagedRecordSet(staged: StagedEntries(lastOfEach(new)), lookup: nil)
        return compare(old: o, new: n)!
    }
}
