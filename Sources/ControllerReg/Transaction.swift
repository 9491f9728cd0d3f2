/// A registry change in the making: validates the change against the whole graph and compiles
/// what it adds, touching nothing until the caller publishes the result. A failed transaction
/// leaves the registry exactly as it was.
struct Transaction {
    /// How a definition whose name already exists is treated.
    enum Mode {
        /// It is an error naming both places.
        case add
        /// It replaces the existing entry (references to the name now reach the new one).
        case override
    }

    /// What a change to a child registry must know beyond its table: the names it defines
    /// itself (the rest are its parent's: they may be overridden, not removed), and whether its
    /// parent defines a name (removing an override of it brings the parent's entry back).
    struct ChildScope {
        let own: OwnNames
        let parentDefines: (String) -> Bool
    }

    /// The names a child defines itself, hashed into a set at the first question: a change that
    /// only adds names new to the child asks none (its cost stays the change's).
    final class OwnNames {
        private let definitions: SharedTailList<EntryDefinition>
        private lazy var names = Set(definitions.map(\.name))

        init(_ definitions: SharedTailList<EntryDefinition>) { self.definitions = definitions }

        /// Whether the child defines `name`.
        func contains(_ name: String) -> Bool { names.contains(name) }
    }

    let base: EntryTable
    /// After a successful `apply`: the indices it defined, and those it emptied.
    private(set) var changedIndices = ScratchArray<Int>()
    private(set) var removedIndices: [Int] = []
    /// After a successful `apply`: whether the change only added entries (none replaced, removed
    /// or compiled again for a changed tagged list or optional target).
    private(set) var onlyAdded = false
    /// After a successful `apply`: whether the change only removed entries (none defined, none
    /// compiled again).
    private(set) var onlyRemoved = false
    /// What the reads ahead of large name tables' insertions read (kept so the reads are made).
    private(set) var touchedCells: UInt32 = 0
    /// How many names' cells are read ahead at a time.
    static let readAheadBatch = 256
    /// The registry's class slots, extended with the classes the change names.
    var classSlots: ClassSlots
    /// The environment the change's definitions are resolved against (`${NAME}`, `{Env: NAME}`).
    /// nil: each definition's own (`EntryDefinition.environment`, kept from the commit that first
    /// resolved it: a child recompiling its parent's entries), else the process environment.
    let environment: EnvironmentLookup?
    /// The longest string a substitution may produce.
    let maxStringBytes: Int

    init(
        base: EntryTable, classSlots: ClassSlots, environment: EnvironmentLookup? = nil,
        maxStringBytes: Int = ConfigLimits().maxStringBytes
    ) {
        self.base = base
        self.classSlots = classSlots
        self.environment = environment
        self.maxStringBytes = maxStringBytes
    }

    /// Applies `definitions` (and removes `removals`): `apply(staged:)` of them encoded, for the
    /// doors that build definitions in code.
    mutating func apply(
        _ definitions: [EntryDefinition], mode: Mode = .add, removals: [String] = [],
        invalidNames: Set<String> = [], decodeProblems: [Diagnostic] = [], namesIncomplete: Bool = false,
        inherited: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:], owner: Unmanaged<Registry>? = nil,
        child: ChildScope? = nil, kept: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
    ) -> Result<EntryTable, ConfigError> {
        apply(
            staged: StagedEntries(definitions), mode: mode, removals: removals, invalidNames: invalidNames,
            decodeProblems: decodeProblems, namesIncomplete: namesIncomplete, inherited: inherited, owner: owner,
            child: child, kept: kept)
    }

    /// Applies the staged entries (and removes `removals`). Returns the new entry list, or every
    /// problem found, including `decodeProblems`. References to `invalidNames` or `invalidNameList`
    /// (entries that failed to decode; the list is hashed only when needed) are not reported again
    /// as missing, nor is any reference when `namesIncomplete` (a
    /// file of the load could not be read, so it may define the name).
    /// For a child registry, `inherited` maps names of singletons it takes unchanged from its parent
    /// to the parent's cells and their owners (so they stay the parent's), and `owner` is the parent;
    /// a change to a child's own entries gives `child` (the same checks and messages as a root's).
    /// `kept` maps names of singleton entries a reload leaves unchanged to their current cells and
    /// owners, which the new entries keep (so the same objects).
    /// Afterwards `changedIndices` holds the indices the change defined and `removedIndices` those
    /// it emptied. The staged records become the new entries' records (the arena is the table's).
    mutating func apply(
        staged input: StagedEntries, mode: Mode = .add, removals: [String] = [],
        invalidNames: Set<String> = [], invalidNameList: InvalidEntryNames = InvalidEntryNames(),
        decodeProblems: [Diagnostic] = [],
        namesIncomplete: Bool = false,
        inherited: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:], owner: Unmanaged<Registry>? = nil,
        child: ChildScope? = nil, kept: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
    ) -> Result<EntryTable, ConfigError> {
        // Grown only by entries staged again in 2b; a `let` copy after that (closures below capture
        // it: a captured `var` is boxed and checked for exclusivity at every access).
        var growing = input
        var diagnostics = decodeProblems
        // Suggestions cost a scan of every name: only the first few problems get one, fewer the
        // more names there are (a bounded total, whatever the number of problems).
        var suggestionsLeft = Suggestions.suggestedProblems(candidates: base.count + input.count)

        // 1. Removals.
        var removed = Set<Int>()
        for name in removals {
            let i = base.index(of: name)
            if i < 0 {
                let suggestion = suggestionsLeft > 0 ? Suggestions.closest(to: name, in: base.liveNames) : nil
                suggestionsLeft -= 1
                diagnostics.append(
                    Diagnostic(
                        .notFound, "cannot remove '\(name)': no entry by that name\(Suggestions.hint(suggestion))",
                        suggestion: suggestion))
            } else if let child, !child.own.contains(name) {
                diagnostics.append(
                    Diagnostic(
                        .invalidArgument,
                        "cannot remove '\(name)': it is defined by the parent registry (a child can override it, not remove it)"))
            } else if let child, child.parentDefines(name) {
                // Removing a child's override brings the parent's entry back: the name stays.
            } else {
                removed.insert(i)
            }
        }

        // 2. Names: unique within the input; new to the registry unless overriding. Names are
        // compared by their bytes in the arena (one hash each, computed when staged).
        let stagedCount = growing.count
        if growing.arena.count > Int(UInt32.max) {
            return .failure(
                ConfigError(
                    .limit, "one change may hold at most 4 GiB of entry names, keys and literals; split it into several loads"))
        }
        // The change's working lists are temporaries of the load (its region, when it has one).
        let scratch = input.scratch
        // Where each name is first staged: the load's index, made as its documents were read
        // (where their repeated entry names were found), or one made now. Entries staged again
        // in 2b are not indexed (they are not the change's).
        let names = input.nameIndex()
        growing.stopIndexingNames()
        // The positions that repeat a name staged before them (`names.repeated`, ascending): the
        // next one not passed yet.
        let repeated = names.repeated
        var nextRepeated = 0
        // A name whose first staged entry was rejected: the next of its entries that was not, by
        // the first's position (a name's entries are then found at that one).
        var standIn: [Int: Int] = [:]
        // The entry index each staged position got; -1 not accepted, -2 refused as already defined
        // (a reference to the name reaches the existing entry).
        // (32-bit: entry indices are; half the pages of a large load's list.)
        var indexOfStaged = ScratchArray<Int32>(repeating: -1, count: stagedCount, in: scratch)
        // Accepted entries: staged position and entry index, in order.
        var acceptedPositions = ScratchArray<Int>(capacity: stagedCount, in: scratch)
        var acceptedIndex = ScratchArray<Int>(capacity: stagedCount, in: scratch)
        var nextIndex = base.count
        // Whether an accepted entry takes an index of the base (an override).
        var replacesBase = false
        // Entries that fail the checks every door shares: not compiled, and not reported again as
        // missing when something refers to them.
        var rejected = invalidNames
        // More of them, hashed into `rejected` at the first reference to no entry (a load whose
        // every entry fails to decode has thousands, and often no such reference).
        var rejectedLater = invalidNameList
        // Dependencies with the environment resolved and the lookup used, by position in the
        // accepted lists (only entries that use it: none in most loads).
        var resolved: [Int: [Dependency]] = [:]
        var environmentOf: [Int: EnvironmentLookup] = [:]
        // Where environment problems are recorded (one store for the change's many).
        var environmentText: TextBuffer?
        // Records rejected by the quick check below, by name (not reported again as missing).
        var rejectedStaged: StagedNameIndex?
        defer { rejectedStaged?.free() }
        // The uses a quick check reads, and where its messages are written.
        var checkedUses: [DefinitionCoding.CheckedUse] = []
        var checkText: TextBuffer?
        var checkFile = DefinitionCoding.FileName()
        for k in 0..<stagedCount {
            let summary = growing.summary(k)
            var checkedQuickly = false
            if summary.mayHaveProblems && !summary.headMayHaveProblems && !summary.usesEnvironment {
                // Most flawed records: names of uses written straight as dependency values, checked
                // where they lie in the record, their messages written from their bytes.
                checkedUses.removeAll(keepingCapacity: true)
                var simple = !summary.nestsNearCeiling && Transaction.checkedUses(ofStaged: growing, k, into: &checkedUses)
                if !simple {
                    checkedUses.removeAll(keepingCapacity: true)
                    simple = DefinitionCoding.simpleCheckedUses(
                        growing.arena, at: growing.record(k), file: &checkFile, into: &checkedUses)
                }
                if simple {
                    checkedQuickly = true
                    let before = diagnostics.count
                    let entry = growing.nameBytes(k)
                    for use in checkedUses {
                        let form = ProblemText.flawedForm(use.tag)
                        if form.isFlawed(use.name) {
                            // The message written when it is read (`MessageForm`).
                            diagnostics.append(
                                Diagnostic(
                                    .schema, form: form, entry: entry, key: use.key, name: use.name, at: use.location,
                                    in: ProblemText.buffer(&checkText).problemStore))
                        }
                    }
                    if diagnostics.count > before {
                        if rejectedStaged == nil { rejectedStaged = StagedNameIndex(capacity: stagedCount) }
                        _ = rejectedStaged!.find(entry, hash: growing.nameHash(k), staged: growing, orInsert: k)
                        continue
                    }
                }
            }
            if summary.mayHaveProblems && !checkedQuickly {
                // The full checks, on the decoded definition (rare: a name that may be flawed, an
                // environment value, a value nesting near the ceiling).
                let before = diagnostics.count
                var usesEnvironment = false
                // The head, and (when they may be flawed) the dependencies the checks read, read
                // from the record (no definition decoded).
                let head = DefinitionCoding.head(growing.arena, at: growing.record(k))
                DependencyRule.problems(ofEntry: head, into: &diagnostics)
                if summary.dependenciesMayHaveProblems {
                    DefinitionCoding.forEachCheckedDependency(growing.arena, at: growing.record(k)) { key, location, value in
                        Transaction.check(
                            value, key: key, location: location, of: head, into: &diagnostics, usesEnvironment: &usesEnvironment)
                    }
                }
                if diagnostics.count > before {
                    rejected.insert(growing.name(k))
                    continue
                }
            }
            // The name's bytes are read from its record only where they are compared (a table to
            // look in, a name staged twice): not once more per entry.
            let hash = growing.nameHash(k)
            var index = base.count > 0 ? base.index(of: growing.nameBytes(k), hash: hash) : -1
            while nextRepeated < repeated.count && repeated[nextRepeated] < k { nextRepeated += 1 }
            if nextRepeated < repeated.count && repeated[nextRepeated] == k {
                // A name staged before (rare): the first of its entries not rejected holds it.
                let firstAt = names.first(of: growing.nameBytes(k), hash: hash, staged: growing)!
                let holder = indexOfStaged[firstAt] == -1 ? standIn[firstAt] : firstAt
                if let prior = holder, indexOfStaged[prior] != -2 {
                    let first = DefinitionCoding.location(growing.arena, at: growing.record(firstAt))
                    diagnostics.append(
                        Diagnostic(
                            .duplicate,
                            "entry '\(growing.name(k))' is defined twice\(first.map { " (first at \($0))" } ?? ""); rename or remove one of them",
                            at: DefinitionCoding.location(growing.arena, at: growing.record(k))))
                    continue
                }
                if holder == nil { standIn[firstAt] = k }
            }
            if index >= 0 && !removed.contains(index) && mode == .add && (child.map { $0.own.contains(growing.name(k)) } ?? true)
            {
                indexOfStaged[k] = -2
                let prior = base.location(at: index)
                diagnostics.append(
                    Diagnostic(
                        .duplicate,
                        "entry '\(growing.name(k))' is already defined\(prior.map { " at \($0)" } ?? " (added from code)"); rename it, or load it as an override (CR_LOAD_OVERRIDE) to replace that one",
                        at: DefinitionCoding.location(growing.arena, at: growing.record(k))))
                continue
            }
            if index < 0 {
                index = nextIndex
                nextIndex += 1
            } else {
                replacesBase = true
            }
            indexOfStaged[k] = Int32(truncatingIfNeeded: index)
            if !removed.isEmpty { removed.remove(index) }
            if summary.usesEnvironment {
                // The entry keeps the lookup it was resolved against.
                let def = growing.definition(k)
                let lookup = environment ?? def.environment ?? EnvironmentLookup(.process)
                environmentOf[acceptedPositions.count] = lookup
                resolved[acceptedPositions.count] = EnvironmentResolution(
                    lookup: lookup, maxStringBytes: maxStringBytes, entry: def.name,
                    text: ProblemText.buffer(&environmentText)
                ).resolve(def.dependencies, into: &diagnostics)
            }
            acceptedPositions.append(k)
            acceptedIndex.append(index)
        }
        // 2b. Entries the change does not name but whose tagged lists or optional references it
        // affects are resolved and compiled again (same definition, same index): staged again.
        let reresolved = dependentsOfMembership(
            staged: growing, accepted: acceptedPositions, indices: acceptedIndex, removed: removed)
        // The entries the change defines come first in the accepted lists (the history records
        // them as this change's; the ones compiled again keep their own step).
        let definedCount = acceptedIndex.count
        for i in reresolved {
            guard let def = base.definition(at: i) else { continue }
            // Environment values are resolved again against the environment the entry was
            // committed with (it is not part of this change).
            if let lookup = def.environment {
                environmentOf[acceptedPositions.count] = lookup
                resolved[acceptedPositions.count] = EnvironmentResolution(
                    lookup: lookup, maxStringBytes: maxStringBytes, entry: def.name,
                    text: ProblemText.buffer(&environmentText)
                ).resolve(def.dependencies, into: &diagnostics)
            }
            acceptedPositions.append(growing.count)
            acceptedIndex.append(i)
            growing.append(def)
        }
        let staged = growing
        let reresolvedSet = Set(reresolved)
        // Whether the change only adds entries (every accepted one at a new index, none removed):
        // then no entry of the base refers to one it accepts (the base's references were resolved
        // without them), which bounds the cycle and lifetime checks to the change, and the table
        // may be extended in place (`EntryTableBuilder`).
        let addsOnly = removed.isEmpty && !replacesBase && reresolved.isEmpty
        // Whether the change sets no entry of the base (it adds entries, removes some, or both):
        // then still no entry that stays refers to an accepted one, and the table keeps the
        // base's rows (`EntryTableBuilder`), hiding the removed ones.
        let keepsRows = !replacesBase && reresolved.isEmpty

        // 3. References: every name must resolve to an entry that stays.
        let base = self.base
        let removedBase = removed
        // The names a suggestion is looked for among, as their bytes where they are stored (made at
        // the first missing reference; nothing is appended to either arena during this step).
        var allNames: Suggestions.Candidates?
        // The last suggestion (entries that misspell one name get the same one).
        var suggestionMemo = Suggestions.Memo()
        // Edges, targets and membership of each accepted entry, by position in `accepted`, in
        // flat arrays (no array per entry); `changedAtList[i]` is that position for entry index i
        // (or -1). Arrays, not dictionaries: no hashing per entry; from the base's count on when
        // the change only adds entries (the size of the change, not of the table).
        var resolving = ResolvedEdges(entries: acceptedPositions.count, edges: staged.edges.count, in: scratch)
        var changedAtList = ChangedPositions(from: keepsRows ? base.count : 0, to: nextIndex, in: scratch)
        // Members of each tag in the new state, built at the first tagged list.
        var members = TagMembers()
        // The last two names resolved (by their interned identity) and their indices: neighbouring
        // entries mostly refer to the same few entries.
        // Messages of references to no entry: written in one buffer, places read with one file name.
        var messageText: TextBuffer?
        // Where they are recorded (`messageText`'s store, read once).
        var missingStore: ProblemStore?
        // The staged positions of the document the last such problem came from, and its file's
        // index in `missingStore` (asked once per document, not per problem).
        var missingDocument = (positions: 0..<0, file: UInt32(0))
        var fileName = DefinitionCoding.FileName()
        var recentName0 = -1, recentName1 = -1
        var recentTarget0 = -1, recentTarget1 = -1
        // The last name that resolved to no entry (entries written alike misspell one name alike).
        var recentMissing = -1
        // Whether a cycle is possible (step 4): a change to an empty table whose every edge goes to
        // an entry of a lower index (each entry refers only to entries written before it: most
        // configs) has none, known from each entry's edges while they are at hand.
        var mayHaveCycles = base.count > 0
        for p in acceptedPositions.indices {
            let k = acceptedPositions[p]
            changedAtList[acceptedIndex[p]] = Int32(p)
            // Targets are every resolved reference and provider in written order, edges the object
            // edges (references, tagged members, optional targets that exist). Until the first
            // provider, tagged list or optional they are the same list, so edges are only written
            // from then on (`diverge`); otherwise the entry's edges are its targets.
            resolving.begin()
            let edgeRange = staged.edgeRange(k)
            let first = edgeRange.lowerBound, end = edgeRange.upperBound
            for e in first..<end {
                let edge = staged.edges[e]
                if edge.kind == .tagged || edge.kind == .taggedInt {
                    let list = members.of(
                        staged.text(of: edge), base: base, removed: removedBase,
                        replaced: {
                            var tagged: [(name: String, tags: [EntryTag], index: Int)] = []
                            for (q, j) in acceptedPositions.enumerated() where staged.summary(j).tagged {
                                tagged.append(
                                    (staged.name(j), DefinitionCoding.tags(staged.arena, at: staged.record(j)), acceptedIndex[q])
                                )
                            }
                            return (Array(acceptedIndex), tagged)
                        })
                    resolving.membership.append(Int32(list.count))
                    resolving.membership += list
                    resolving.diverge()
                    resolving.edges += list
                    continue
                }
                let id = edge.id
                let found: Int?
                if id == recentName0 {
                    found = recentTarget0
                } else if id == recentName1 {
                    found = recentTarget1
                } else if id == recentMissing {
                    found = nil
                } else {
                    let bytes = staged.internedBytes(id)
                    let hash = NameTable.hash(bytes.baseAddress ?? emptyKey, bytes.count)
                    var f: Int?
                    if let p = names.first(of: bytes, hash: hash, staged: staged),
                        let j = indexOfStaged[p] == -1 ? standIn[p] : p, indexOfStaged[j] >= 0
                    {
                        f = Int(indexOfStaged[j])
                    } else {
                        let i = base.index(of: bytes, hash: hash)
                        if i >= 0 && !removedBase.contains(i) { f = i }
                    }
                    found = f
                    if let f {
                        recentName1 = recentName0
                        recentTarget1 = recentTarget0
                        recentName0 = id
                        recentTarget0 = f
                    } else {
                        recentMissing = id
                    }
                }
                if edge.kind == .optional {
                    // Absent is not a problem: the slot is null until the entry exists.
                    resolving.membership.append(found.map { Int32($0) } ?? -1)
                    resolving.diverge()
                    if let f = found { resolving.edges.append(Int32(f)) }
                    continue
                }
                if let target = found {
                    if edge.kind == .provider { resolving.diverge() }
                    resolving.targets.append(Int32(target))
                    if resolving.diverged && edge.kind == .reference { resolving.edges.append(Int32(target)) }
                    continue
                }
                // -1 keeps the later references at their places for the compiler (the change
                // fails, or is a reload's intermediate step); edge walks skip it.
                resolving.targets.append(-1)
                if resolving.diverged { resolving.edges.append(-1) }
                if messageText == nil {
                    // The first reference to no entry: room for one problem per edge left (the
                    // list is not copied as it grows; pages not written are not touched).
                    diagnostics.reserveCapacity(diagnostics.count + staged.edges.count - e)
                }
                // The name's bytes (a `String` only where one is compared or suggested for).
                let nameBytes = staged.internedBytes(id)
                if !rejectedLater.isEmpty {
                    rejected.formUnion(rejectedLater.strings())
                    rejectedLater = InvalidEntryNames()
                }
                if !removals.isEmpty && removals.contains(String(decoding: nameBytes, as: UTF8.self)) {
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    let def = staged.definition(k)
                    diagnostics.append(
                        Diagnostic(
                            .missingReference, "cannot remove '\(name)': entry '\(def.name)' refers to it",
                            at: def.location))
                } else if !namesIncomplete && (rejected.isEmpty || !rejected.contains(String(decoding: nameBytes, as: UTF8.self)))
                    && (rejectedStaged == nil
                        || rejectedStaged!.find(
                            nameBytes, hash: NameTable.hash(nameBytes.baseAddress ?? emptyKey, nameBytes.count), staged: staged)
                            == nil)
                {
                    var suggestion: String?
                    if suggestionsLeft > 0 {
                        if allNames == nil {
                            allNames = Transaction.suggestionCandidates(
                                base: base, removed: removed, staged: staged, accepted: acceptedPositions)
                        }
                        suggestion = Suggestions.closest(
                            to: String(decoding: nameBytes, as: UTF8.self), in: allNames!, excluding: staged.name(k),
                            memo: &suggestionMemo)
                    }
                    suggestionsLeft -= 1
                    // The message written when it is read (`MessageForm`).
                    if missingStore == nil { missingStore = ProblemText.buffer(&messageText).problemStore }
                    diagnostics.append(
                        Transaction.missingReference(
                            nameBytes, edge: edge, ofEdge: e - first, at: k, in: staged, suggestion: suggestion,
                            store: missingStore!, document: &missingDocument, fileName: &fileName))
                }
            }
            resolving.end()
            if !mayHaveCycles { mayHaveCycles = resolving.hasEdge(of: p, atLeast: Int32(acceptedIndex[p])) }
        }
        // Entries that stay must not refer to removed ones: those that name each removed entry,
        // found through the rows' reverse index (`EntryReferrers`), not by reading every entry.
        if !removed.isEmpty {
            let replaced = Set(acceptedIndex)
            for t in removed.sorted() {
                for i in base.referrers(of: t) where !removed.contains(i) && !replaced.contains(i) {
                    diagnostics.append(
                        Diagnostic(
                            .missingReference, "cannot remove '\(base.name(at: t))': entry '\(base.name(at: i))' refers to it",
                            at: base.location(at: i)))
                }
            }
        }

        // Immutable copies for the closures below (a captured `var` is boxed and checked for
        // exclusivity at every access).
        let changedAt = changedAtList
        let graph = resolving
        let acceptedStaged = acceptedPositions
        // One reference to the staged entries for those closures: each closure that captured
        // `staged` itself would copy it (a retain and a release of each of its fields).
        let stagedRef = StagedEntriesReference(staged)
        // Where each entry's definition record is (nil for an index with no entry), and its
        // name's bytes: what the cycle and lifetime messages read, in place (no definition
        // decoded, no `String` per name of a path that may name a thousand entries).
        let recordOf: (Int) -> (arena: DefinitionArena, offset: Int)? = { i in
            changedAt[i] >= 0
                ? (stagedRef.staged.arena, stagedRef.staged.record(acceptedStaged[Int(changedAt[i])]))
                : base.isLive(i) ? base.recordLocation(at: i) : nil
        }
        let nameOf: (Int) -> UnsafeBufferPointer<UInt8>? = { i in
            changedAt[i] >= 0 ? stagedRef.staged.nameBytes(acceptedStaged[Int(changedAt[i])]) : base.entryName(at: i)
        }

        // 4. Cycles: a new cycle must pass through a changed entry, so search from those. Checked
        // whatever else is wrong: the graph holds every reference that resolved (none is possible
        // when step 3 found no edge to an entry at or above its own index in an empty table).
        // When the change sets no entry of the base, no entry of the base reaches one of the
        // accepted ones, so a cycle through them stays among them: only their edges to each
        // other are walked (none when it only removes entries: no cycle can be new).
        if acceptedIndex.isEmpty {
            // Nothing defined or compiled again: no new cycle.
        } else if mayHaveCycles && keepsRows {
            let first = base.count
            diagnostics += findCycles(
                starts: acceptedIndex, first: first, total: nextIndex,
                edgesOf: { i in
                    let e = graph.edges(of: Int(changedAt[i]))
                    return e.contains { $0 < first } ? ArraySlice(e.filter { $0 >= first }) : e
                },
                recordOf: recordOf, nameOf: nameOf)
        } else if mayHaveCycles {
            diagnostics += findCycles(
                starts: acceptedIndex, total: nextIndex,
                edgesOf: { changedAt[$0] >= 0 ? graph.edges(of: Int(changedAt[$0])) : base.edges(at: $0)[...] },
                recordOf: recordOf, nameOf: nameOf)
        }

        // 5. Lifetimes: no singleton may reach a `graph` entry through object edges (the same
        // edges as cycles). Checked whatever else is wrong, like cycles.
        // (The indices of the change's entries: a set, the size of the change, not of the table.)
        var inheritedSingletons = Set<Int>()
        if !inherited.isEmpty {
            for p in acceptedStaged.indices
            where staged.summary(acceptedStaged[p]).lifestyle == .singleton && inherited[staged.name(acceptedStaged[p])] != nil {
                inheritedSingletons.insert(acceptedIndex[p])
            }
        }
        let inheritedSingleton = inheritedSingletons
        let lifetimes = LifetimeRule(
            total: nextIndex,
            edgesOf: { i in
                // Without the places of references that did not resolve (a failing change).
                guard changedAt[i] >= 0 else { return base.edges(at: i)[...] }
                let e = graph.edges(of: Int(changedAt[i]))
                return e.contains { $0 < 0 } ? ArraySlice(e.filter { $0 >= 0 }) : e
            },
            lifestyleOf: { i in
                if changedAt[i] >= 0 { return stagedRef.staged.summary(acceptedStaged[Int(changedAt[i])]).lifestyle }
                if !removedBase.isEmpty && removedBase.contains(i) { return nil }
                return base.isLive(i) ? base.plans[i].lifestyle : nil
            },
            isInheritedSingleton: { i in
                // A child's table holds its parent's singletons with the parent as their owner.
                if changedAt[i] >= 0 { return inheritedSingleton.isEmpty ? false : inheritedSingleton.contains(i) }
                return base.isLive(i) && base.owner(of: i) != nil
            },
            recordOf: recordOf, nameOf: nameOf,
            locationOf: { i in
                changedAt[i] >= 0
                    ? DefinitionCoding.location(
                        stagedRef.staged.arena, at: stagedRef.staged.record(acceptedStaged[Int(changedAt[i])]))
                    : base.isLive(i) ? base.location(at: i) : nil
            })
        // Nothing to walk when no entry of the new state is a `graph` entry (most loads): known
        // from the summaries, and, when the change is large next to the table (so this stays
        // linear in the change), from one pass over the table.
        var graphEntries = acceptedStaged.contains { staged.summary($0).lifestyle == .graph }
        if !graphEntries && acceptedStaged.count * 4 < base.count {
            graphEntries = true
        } else if !graphEntries {
            for i in 0..<base.count where base.isLive(i) && base.plans[i].lifestyle == .graph && !removedBase.contains(i) {
                graphEntries = true
                break
            }
        }
        if graphEntries && keepsRows && !acceptedStaged.contains(where: { staged.summary($0).lifestyle == .singleton }) {
            // Only a singleton can break the rule, and one of the base reaches no added entry (so
            // nothing it did not reach before; a removal takes edges away): with no singleton
            // added there is nothing to walk.
            graphEntries = false
        }
        if graphEntries { diagnostics += lifetimes.problems(changed: Array(acceptedIndex)) }
        if !diagnostics.isEmpty { return .failure(ConfigError(diagnostics)) }

        // 6. Compile: each plan from its record, already in the arena.
        let records = staged.arena
        // Where each plan is compiled from: the record's dependencies, or (entries that use the
        // environment, by position in the accepted lists) their resolved form written after the
        // records, in accepted order.
        var resolvedAt: [Int: Int] = [:]
        for p in resolved.keys.sorted() { resolvedAt[p] = DefinitionCoding.encodeDependencies(resolved[p]!, into: records) }
        if records.count > Int(UInt32.max) {
            return .failure(
                ConfigError(
                    .limit, "one change may hold at most 4 GiB of entry names, keys and literals; split it into several loads"))
        }
        // Plans point at keys and literal strings in the records' arena, which stops moving here.
        records.freeze()
        // A large change's plans in huge pages, a third of its records' bytes or so (`Arena`):
        // address space for as many bytes as the records, what is not written given back by
        // `finish()`.
        if records.count >= Arena.hugePagesFrom { records.plans.reserveHugePages(records.count) }
        let compiler = PlanCompiler(arena: records.plans, strings: records)
        var table = EntryTableBuilder(
            base: base, count: nextIndex, keepsRows: keepsRows, changed: acceptedStaged.count + removed.count)
        for i in removed.sorted() { table.remove(i) }
        // (A change that only removes entries adds no arena to the rows.)
        let arenaIndex = acceptedStaged.isEmpty ? 0 : table.index(of: records)
        // Class slots by the class name's interned identity: one String per class, not per entry.
        var slotOfClass: [Int: Int] = [:]
        // The last two classes met (entries of a config mostly alternate between a few).
        var lastClass = (id: -1, slot: 0), otherClass = (id: -1, slot: 0)
        var tooLarge: Int?
        // The resolved lists read in place (no array slice, so no retain and release, per entry).
        graph.targets.withUnsafeBufferPointer { allTargets in
            graph.membership.withUnsafeBufferPointer { allMembership in
                for p in acceptedStaged.indices {
                    if p & (Transaction.readAheadBatch - 1) == 0 {
                        // The name table's cells for the next batch of rows (see `NameTable.touch`).
                        for q in p..<min(p + Transaction.readAheadBatch, acceptedStaged.count) {
                            touchedCells |= table.touch(hash: staged.nameHash(acceptedStaged[q]))
                        }
                    }
                    let k = acceptedStaged[p]
                    let index = acceptedIndex[p]
                    let summary = staged.summary(k)
                    let classSlot: Int
                    if summary.classID == lastClass.id {
                        classSlot = lastClass.slot
                    } else {
                        if summary.classID == otherClass.id {
                            classSlot = otherClass.slot
                        } else if let s = slotOfClass[summary.classID] {
                            classSlot = s
                        } else {
                            classSlot = classSlots.slot(
                                for: String(decoding: staged.internedBytes(summary.classID), as: UTF8.self))
                            slotOfClass[summary.classID] = classSlot
                        }
                        otherClass = lastClass
                        lastClass = (summary.classID, classSlot)
                    }
                    let plan = compiler.compile(
                        dependenciesAt: (resolvedAt.isEmpty ? nil : resolvedAt[p]) ?? staged.dependencyPosition(k),
                        classSlot: classSlot,
                        lifestyle: summary.lifestyle,
                        targets: UnsafeBufferPointer(rebasing: allTargets[graph.targetRange(of: p)]),
                        membership: UnsafeBufferPointer(rebasing: allMembership[graph.membershipRange(of: p)]))
                    if plan.exceedsLimits && tooLarge == nil { tooLarge = k }
                    var cell: SingletonCell?
                    var cellOwner: UnsafeMutableRawPointer?
                    if summary.lifestyle == .singleton {
                        let name = staged.name(k)
                        if reresolvedSet.contains(index), let (keptCell, keptOwner) = base.singleton(at: index) {
                            // Compiled again for its members: a singleton already built keeps its object.
                            cell = keptCell
                            cellOwner = keptOwner
                        } else if let (keptCell, keptOwner) = kept[name] {
                            // A reload left the entry unchanged: the same cell, so the same object, and owner.
                            cell = keptCell
                            cellOwner = keptOwner
                        } else if let (inheritedCell, inheritedOwner) = inherited[name] {
                            cell = inheritedCell
                            cellOwner = inheritedOwner ?? owner?.toOpaque()
                        } else {
                            cell = SingletonCell(name: name)
                        }
                        plan.singleton = cell.map { Unmanaged.passUnretained($0).toOpaque() }
                    }
                    table.set(
                        index, plan: plan, arena: arenaIndex, record: staged.record(k), hash: staged.nameHash(k), cell: cell,
                        owner: cellOwner,
                        environment: (environmentOf.isEmpty ? nil : environmentOf[p])
                            ?? (staged.environments.isEmpty ? nil : staged.environments[k]))
                }
            }
        }
        if let k = tooLarge {
            return .failure(
                ConfigError(
                    .limit,
                    "entry '\(staged.name(k))' would build too many objects in one create (its references, lists and tagged lists need more than 4 GiB of working memory); split its dependencies over several entries",
                    at: DefinitionCoding.location(records, at: staged.record(k))))
        }
        records.finish()
        var defined = acceptedIndex
        defined.removeLast(acceptedIndex.count - definedCount)
        changedIndices = defined
        removedIndices = removed.sorted()
        onlyAdded = addsOnly
        onlyRemoved = !removed.isEmpty && acceptedIndex.isEmpty
        return .success(table.build())
    }

    /// Entries of `base` that the change does not name (not accepted, not `removed`) but whose
    /// plans depend on it: a `{Tagged: t}` where an accepted or removed entry has (or had) tag `t`,
    /// or an `{Optional: Name}` where `Name` is accepted or removed. Only entries whose plans
    /// have such values (`EntryTable.dynamic`) can be, found by tag and name (`MembershipUses`).
    private func dependentsOfMembership(
        staged: StagedEntries, accepted: ScratchArray<Int>, indices: ScratchArray<Int>, removed: Set<Int>
    ) -> [Int] {
        let dynamic = base.dynamic
        if dynamic.isEmpty { return [] }
        var tags = Set<String>(), names = Set<String>()
        func note(_ name: String, _ entryTags: [EntryTag]) {
            names.insert(name)
            for t in entryTags { tags.insert(t.text) }
        }
        var named = Set<Int>()
        for (p, k) in accepted.enumerated() {
            let index = indices[p]
            note(staged.name(k), DefinitionCoding.tags(staged.arena, at: staged.record(k)))
            named.insert(index)
            if base.isLive(index) { note(base.name(at: index), base.tags(at: index)) }
        }
        for i in removed where base.isLive(i) { note(base.name(at: i), base.tags(at: i)) }
        // Found through the rows' index of those values (`MembershipUses`), not by reading each.
        return base.rows.membershipUses.users(ofTags: tags, orNames: names, in: base).filter {
            !named.contains($0) && !removed.contains($0)
        }
    }

    /// The checks an entry passes whichever door it came through (config, `Registry.add`,
    /// `cr_add_entry`), for one of its dependencies (`DependencyRule.problems(ofEntry:)` checks its
    /// names): the nesting ceiling, then the contents of the value (`DependencyRule.problems(of:)`).
    /// `def` gives the entry's name and place (its dependencies are not read). Sets
    /// `usesEnvironment` when the value has an environment value to resolve.
    static func check(
        _ value: DependencyValue, key: String, location: SourceLocation?, of def: EntryDefinition,
        into diagnostics: inout [Diagnostic], usesEnvironment: inout Bool
    ) {
        if value.isContainer && value.nestingDepth(stoppingAfter: DependencyValue.maxNesting) > DependencyValue.maxNesting {
            diagnostics.append(
                Diagnostic(
                    .limit,
                    "entry '\(def.name)', key '\(key)': the value nests deeper than \(DependencyValue.maxNesting) levels \(DependencyValue.tooDeepFix)",
                    at: location ?? def.location))
            return
        }
        DependencyRule.keyProblem(key, entry: def.name, at: location ?? def.location, into: &diagnostics)
        DependencyRule.problems(
            of: value, entry: def.name, key: key, fallback: location ?? def.location, into: &diagnostics,
            usesEnvironment: &usesEnvironment)
    }

    /// The uses `DefinitionCoding.simpleCheckedUses` reads, from the staged edges of position `k`
    /// (their names, keys and places as the entry decoder kept them; no walk through the record;
    /// lists and maps included: their uses are the edges, in the same order). False when a use has
    /// no place kept or is a tag (the record is read then).
    static func checkedUses(
        ofStaged staged: StagedEntries, _ k: Int, into uses: inout [DefinitionCoding.CheckedUse]
    ) -> Bool {
        guard let file = staged.documentFile(of: k) else { return false }
        for e in staged.edgeRange(k) {
            let edge = staged.edges[e]
            let tag: DefinitionCoding.ValueTag
            switch edge.kind {
            case .taggedInt: continue
            case .tagged: return false
            case .reference: tag = .reference
            case .provider: tag = .provider
            case .optional: tag = .optional
            }
            guard let place = edge.place else { return false }
            uses.append(
                DefinitionCoding.CheckedUse(
                    tag: tag, key: staged.internedBytes(place.key), name: staged.internedBytes(edge.id),
                    location: SourceLocation(file: file, line: place.line, column: place.column)))
        }
        return true
    }

    /// The names a reference to no entry may be suggested from: `base`'s live entries (but the
    /// `removed`), then the `accepted` staged positions, in that order. Written into a list of
    /// their count (a list of each joined into a third cost ~50 instructions a name: as much as
    /// the suggestions of a 1,000-entry load's message), out of `apply`, which a load runs whole.
    @inline(never)
    private static func suggestionCandidates(
        base: EntryTable, removed: Set<Int>, staged: StagedEntries, accepted: ScratchArray<Int>
    ) -> Suggestions.Candidates {
        let names = [UnsafeBufferPointer<UInt8>](unsafeUninitializedCapacity: base.count + accepted.count) { out, n in
            n = 0
            for i in 0..<base.count where base.isLive(i) && !removed.contains(i) {
                if let (p, c) = base.names.bytes(at: i) {
                    out[n] = UnsafeBufferPointer(start: p, count: c)
                    n += 1
                }
            }
            for q in 0..<accepted.count {
                out[n] = staged.nameBytes(accepted[q])
                n += 1
            }
        }
        return Suggestions.Candidates(names)
    }

    /// The problem of staged position `k`'s reference `edge` (its `index`th) to `name`, which
    /// names no entry, recorded in `store`. The key and place are those kept with the edge when
    /// the entry decoder wrote it (no walk through the record), the document's file by its index
    /// in `store` (`document`: the positions of the document the last one came from, and that
    /// index: asked once per document, not per problem); else read from the record (the
    /// definition is not decoded). The message is written from their bytes when it is read
    /// (`MessageForm`). Out of line: the loop that resolves every reference stays small.
    @inline(never)
    private static func missingReference(
        _ name: UnsafeBufferPointer<UInt8>, edge: StagedEdge, ofEdge index: Int, at k: Int, in staged: StagedEntries,
        suggestion: String?, store: ProblemStore, document: inout (positions: Range<Int>, file: UInt32),
        fileName: inout DefinitionCoding.FileName
    ) -> Diagnostic {
        let form: MessageForm = edge.kind == .provider ? .missingProvider : .missingReference
        if edge.place != nil && !document.positions.contains(k), let d = staged.document(of: k) {
            document = (d.positions, store.fileIndex(of: d.file))
        }
        if let place = edge.place, document.positions.contains(k) {
            return Diagnostic(
                .missingReference, form: form, entry: staged.nameBytes(k), key: staged.internedBytes(place.key), name: name,
                file: document.file, line: place.line, column: place.column, suggestion: suggestion, in: store)
        }
        let (key, location) = DefinitionCoding.place(ofEdge: index, in: staged.arena, at: staged.record(k), file: &fileName)
        return Diagnostic(
            .missingReference, form: form, entry: staged.nameBytes(k), key: key, name: name,
            at: location ?? DefinitionCoding.location(staged.arena, at: staged.record(k)), suggestion: suggestion, in: store)
    }

    /// The most cycles one change reports in full; further ones are counted in one more problem.
    static let maxReportedCycles = 100

    /// Every cycle reachable from `starts` (one per back edge of a depth-first search, parallel edges
    /// counted once), each with its path. The nodes are the indices from `first` to `total` (and
    /// `edgesOf` gives only edges between them). Linear in the entries and references walked, plus
    /// the cycles reported.
    private func findCycles(
        starts: ScratchArray<Int>, first: Int = 0, total: Int, edgesOf: (Int) -> ArraySlice<Int32>,
        recordOf: (Int) -> (arena: DefinitionArena, offset: Int)?, nameOf: (Int) -> UnsafeBufferPointer<UInt8>?
    ) -> [Diagnostic] {
        // Plain memory for the walk's state (an array checks it is unique at every write, each
        // step writes several): colours 0 unvisited, 1 on the stack, 2 done; each node's position
        // on the stack while on it; the stack (at most every node once). Indexed by node (the
        // memory of `color` and `depthOf` starts at node `first`).
        let nodes = total - first
        let colorMemory = UnsafeMutablePointer<UInt8>.allocate(capacity: max(nodes, 1))
        colorMemory.initialize(repeating: 0, count: nodes)
        let depthMemory = UnsafeMutablePointer<Int32>.allocate(capacity: max(nodes, 1))
        let color = colorMemory - first, depthOf = depthMemory - first
        typealias Frame = (node: Int32, begin: Int32, next: Int32, end: Int32)
        let stack = UnsafeMutablePointer<Frame>.allocate(capacity: max(nodes, 1))
        var depth = 0
        defer {
            colorMemory.deallocate()
            depthMemory.deallocate()
            stack.deallocate()
        }
        var diagnostics: [Diagnostic] = []
        // Where the cycles found are recorded, and where their messages are written (made at the
        // first).
        var store: ProblemStore?
        var text: TextBuffer?
        var pathNames: PathNames?
        var unreported = 0
        // For each node, the node whose frame last closed a cycle at it (made at the first cycle,
        // so a load without one pays nothing). A node is pushed once, so while it is on top the
        // stack below it is fixed: two of its references to one node on the stack (`a: H` and
        // `b: H`, or a name twice in a list) close the same cycle, reported once.
        var closedFrom: UnsafeMutablePointer<Int32>?
        defer { (closedFrom.map { $0 + first })?.deallocate() }
        // Each node's edges are asked for once, when it is pushed, and copied onto `pending`; a
        // frame walks its own stretch of it (plain memory: no reference counting, uniqueness or
        // bounds check per step), which is dropped when the frame is.
        var pending = PlainInt32List(capacity: 256)
        defer { pending.free() }
        func push(_ node: Int) {
            color[node] = 1
            depthOf[node] = Int32(depth)
            let begin = Int32(pending.count)
            pending.append(edgesOf(node))
            (stack + depth).initialize(to: (Int32(node), begin, begin, Int32(pending.count)))
            depth += 1
        }
        for start in starts where color[start] == 0 {
            push(start)
            while depth > 0 {
                let top = stack[depth - 1]
                if top.next < top.end {
                    stack[depth - 1].next += 1
                    let target = Int(pending[Int(top.next)])
                    if target < 0 { continue }
                    if color[target] == 0 {
                        push(target)
                    } else if color[target] == 1 {
                        if closedFrom == nil {
                            let memory = UnsafeMutablePointer<Int32>.allocate(capacity: max(nodes, 1))
                            memory.initialize(repeating: -1, count: nodes)
                            closedFrom = memory - first
                        }
                        if closedFrom![target] == top.node { continue }
                        closedFrom![target] = top.node
                        if diagnostics.count < Transaction.maxReportedCycles {
                            if store == nil {
                                store = ProblemStore()
                                text = TextBuffer(capacity: 512)
                                pathNames = PathNames(names: 64)
                            }
                            let members = (Int(depthOf[target])..<depth).map { Int(stack[$0].node) }
                            diagnostics.append(
                                cycleDiagnostic(
                                    members, recordOf: recordOf, nameOf: nameOf, in: store!, text: text!, path: &pathNames!))
                        } else {
                            unreported += 1
                        }
                    }
                } else {
                    color[Int(top.node)] = 2
                    depth -= 1
                    pending.truncate(to: Int(top.begin))
                }
            }
        }
        if unreported > 0 {
            diagnostics.append(
                Diagnostic(
                    .cycle, "\(unreported) more dependency cycles not listed (the first \(Transaction.maxReportedCycles) are)"))
        }
        return diagnostics
    }

    /// "dependency cycle: A -> B -> A", rotated to start at the earliest entry, located at that
    /// entry's reference to the next one. A long path names its first and last entries and counts
    /// the ones between. Written into `text` (cleared first) from the entries' records and names'
    /// bytes.
    private func cycleDiagnostic(
        _ members: [Int], recordOf: (Int) -> (arena: DefinitionArena, offset: Int)?,
        nameOf: (Int) -> UnsafeBufferPointer<UInt8>?, in store: ProblemStore, text: TextBuffer, path: inout PathNames
    ) -> Diagnostic {
        // The cycle rotated to start at its earliest entry and closed on it, read in place: entry
        // `j` of the closed path is `at(j)` (no copies of a path that may be thousands long).
        let m = members.count
        var start = 0
        for j in 1..<max(m, 1) where members[j] < members[start] { start = j }
        func at(_ j: Int) -> Int { members[(start + j) % m] }
        let closedCount = m + 1
        text.clear()
        text.append("dependency cycle: ")
        PathText.write(count: closedCount, at: at, name: nameOf, into: text, keeping: &path)
        let first = at(0)
        let nextIndex = m > 1 ? at(1) : first
        // The first entry's dependency that reaches the next one, read from its record.
        var location: SourceLocation?
        if let (arena, offset) = recordOf(first) {
            func find(_ next: UnsafeBufferPointer<UInt8>) -> (SourceLocation?, ReachingDependency?) {
                ReachingDependency.find(in: arena, at: offset, reaching: next) {
                    guard let (a, o) = recordOf(nextIndex) else { return [] }
                    return Set(DefinitionCoding.tags(a, at: o).map(\.text))
                }
            }
            let (entryLocation, via): (SourceLocation?, ReachingDependency?)
            if let b = nameOf(nextIndex) {
                (entryLocation, via) = find(b)
            } else {
                var unnamed = "#\(nextIndex)"
                (entryLocation, via) = unnamed.withUTF8(find)
            }
            location = via?.location ?? entryLocation
            if let via {
                text.append(" (via key '")
                text.append(via.key)
                text.append("' of '")
                PathText.writeName(first, name: nameOf, into: text)
                text.append("'")
                if via.kind == .tagged {
                    text.append(", {Tagged: ")
                    text.append(via.tag ?? "")
                    text.append("}")
                } else if via.kind == .optional {
                    text.append(", {Optional: ")
                    PathText.writeName(nextIndex, name: nameOf, into: text)
                    text.append("}")
                }
                text.append(")")
            }
        }
        return Diagnostic(
            .cycle, written: text, at: location, path: path, in: store)
    }
}

/// The position in a transaction's accepted lists of each entry index it changed, -1 for the
/// others; kept for the indices from `first` on (a change that only adds entries changes none
/// below the base's count: its list is the size of the change, not of the table).
struct ChangedPositions {
    private var list: ScratchArray<Int32>
    private let first: Int

    /// No index changed yet among `from..<to` (in `region` when given).
    init(from first: Int, to total: Int, in region: ScratchRegion?) {
        self.first = first
        list = ScratchArray(repeating: -1, count: total - first, in: region)
    }

    /// Index `i`'s position (any index; -1 when unchanged). Set only for indices from `first` on.
    subscript(i: Int) -> Int32 {
        @inline(__always) get { i >= first && i - first < list.count ? list[i - first] : -1 }
        set { list[i - first] = newValue }
    }
}

/// What a transaction resolved for its accepted entries, in flat arrays (no array per entry):
/// each entry's targets (every reference and provider, in written order; -1 for one that did not
/// resolve), object edges, and what the compiler needs for tagged lists (member count, then
/// members) and optional references (the target or -1).
struct ResolvedEdges {
    var targets: [Int32] = []
    var membership: [Int32] = []
    var edges: [Int32] = []
    /// Where each entry's lists end.
    private struct Ends {
        var targets: Int32
        var membership: Int32
        var edges: Int32
    }

    /// `base[p + 1]` is entry p's ends (`base[0]` all zero) and `diverged[p]` whether its edges
    /// differ from its targets (written to `edges`): raw memory sized once for every entry, so
    /// ending an entry is two stores (no array appends, no uniqueness checks).
    private final class Storage {
        let base: UnsafeMutablePointer<Ends>
        let diverged: UnsafeMutablePointer<Bool>
        let region: ScratchRegion?
        init(entries: Int, region: ScratchRegion?) {
            self.region = region
            base = ScratchRegion.allocate(Ends.self, count: entries + 1, in: region)
            base.initialize(to: Ends(targets: 0, membership: 0, edges: 0))
            diverged = ScratchRegion.allocate(Bool.self, count: max(1, entries), in: region)
        }
        deinit {
            ScratchRegion.deallocate(base, in: region)
            ScratchRegion.deallocate(diverged, in: region)
        }
    }

    private let storage: Storage
    private let capacity: Int
    private var count = 0
    /// Whether the entry being written has diverged.
    private(set) var diverged = false

    /// Room for `entries` entries, which make about `edges` targets (the ends in `region` when
    /// given).
    init(entries: Int, edges: Int, in region: ScratchRegion? = nil) {
        storage = Storage(entries: entries, region: region)
        capacity = entries
        targets.reserveCapacity(edges)
    }

    /// Starts the next entry.
    mutating func begin() { diverged = false }

    /// From here on the entry's edges are written apart from its targets (a copy of those so far).
    mutating func diverge() {
        if diverged { return }
        diverged = true
        edges += targets[Int(storage.base[count].targets)...]
    }

    /// Ends the entry.
    mutating func end() {
        precondition(count < capacity, "ResolvedEdges: more entries than made room for")
        storage.diverged[count] = diverged
        count += 1
        storage.base[count] = Ends(
            targets: Int32(truncatingIfNeeded: targets.count), membership: Int32(truncatingIfNeeded: membership.count),
            edges: Int32(truncatingIfNeeded: edges.count))
    }

    /// Where entry `p`'s targets are in `targets`.
    func targetRange(of p: Int) -> Range<Int> { Int(storage.base[p].targets)..<Int(storage.base[p + 1].targets) }

    /// Where entry `p`'s tagged list members and optional targets are in `membership`.
    func membershipRange(of p: Int) -> Range<Int> {
        Int(storage.base[p].membership)..<Int(storage.base[p + 1].membership)
    }

    /// Whether an object edge of entry `p` goes to index `from` or above (read in place).
    func hasEdge(of p: Int, atLeast from: Int32) -> Bool {
        let e = storage.base[p], f = storage.base[p + 1]
        if storage.diverged[p] {
            for i in Int(e.edges)..<Int(f.edges) where edges[i] >= from { return true }
        } else {
            for i in Int(e.targets)..<Int(f.targets) where targets[i] >= from { return true }
        }
        return false
    }

    func targets(of p: Int) -> ArraySlice<Int32> { targets[targetRange(of: p)] }
    func membership(of p: Int) -> ArraySlice<Int32> { membership[membershipRange(of: p)] }
    func edges(of p: Int) -> ArraySlice<Int32> {
        storage.diverged[p] ? edges[Int(storage.base[p].edges)..<Int(storage.base[p + 1].edges)] : targets(of: p)
    }
}

/// The members of each tag in a transaction's new state: the live entries whose tags include it,
/// as entry indices ordered by entry name (byte-wise). Built once, at the first tagged list.
struct TagMembers {
    private var byTag: [String: [(name: String, index: Int32)]]?
    private var sorted: Set<String> = []

    /// The members of tag `tag`: entries of `base` that stay and are not replaced, and the
    /// accepted entries (which win over the base's): `replaced` gives their indices and, for those
    /// with tags, their names and tags (asked for once, at the first tagged list).
    mutating func of(
        _ tag: String, base: EntryTable, removed: Set<Int>,
        replaced: () -> (indices: [Int], tagged: [(name: String, tags: [EntryTag], index: Int)])
    ) -> [Int32] {
        if byTag == nil {
            var map: [String: [(name: String, index: Int32)]] = [:]
            func add(_ name: String, _ tags: [EntryTag], _ index: Int) {
                var seen: Set<String> = []
                for t in tags where tags.count == 1 || seen.insert(t.text).inserted {
                    map[t.text, default: []].append((name, Int32(index)))
                }
            }
            let (indices, tagged) = replaced()
            let replacedIndices = Set(indices)
            for i in 0..<base.count where base.isLive(i) && !removed.contains(i) && !replacedIndices.contains(i) {
                let tags = base.tags(at: i)
                if !tags.isEmpty { add(base.name(at: i), tags, i) }
            }
            for (name, tags, index) in tagged { add(name, tags, index) }
            byTag = map
        }
        guard var list = byTag![tag] else { return [] }
        if !sorted.contains(tag) {
            list.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
            byTag![tag] = list
            sorted.insert(tag)
        }
        return list.map(\.index)
    }
}

/// The staged names a transaction accepted, found by their bytes (no `String` per name): open
/// addressing over 4-byte cells, each the staged position + 1 in the bits of the capacity's mask
/// and the name's hash in the bits above them (as `NameTable`'s cells), grown at half full.
/// Names are told apart by their whole hash (`StagedEntries.nameHashes`), then their bytes.
struct StagedNameIndex {
    private var cells: UnsafeMutablePointer<UInt32>?
    private var capacity = 0
    private var used = 0
    /// Where the cells are allocated (nil: `malloc`).
    private var region: ScratchRegion?

    /// Whether the index is large enough (64 KB, more than a core's L1 data cache) that reading
    /// the cells of a batch of names ahead of looking them up pays (`touch`): a 10k-entry load
    /// waited for a cell at ~4% of its time, a 100k one ~5%. A smaller index stays in L1.
    var readsAhead: Bool { capacity >= 1 << 14 }

    /// Reads the cell where the probe of a name with `hash` starts, and returns it (for nothing but
    /// the read: a batch's cells read one after another are fetched from memory together, where
    /// looking names up in a large index one at a time waited for each cell in turn).
    @inline(__always) func touch(hash: UInt64) -> UInt32 {
        guard let cells else { return 0 }
        return cells[Int(truncatingIfNeeded: hash) & (capacity - 1)]
    }

    /// An empty index with room for `capacity` names at staged positions below `capacity`, its
    /// cells in `region` when given.
    init(capacity: Int = 0, in region: ScratchRegion? = nil) {
        self.region = region
        if capacity > 0 { cells = StagedNameIndex.table(for: capacity, capacity: &self.capacity, in: region) }
    }

    /// A zeroed table for names at positions below `count` (at most half full).
    private static func table(
        for count: Int, capacity: inout Int, in region: ScratchRegion?
    ) -> UnsafeMutablePointer<UInt32> {
        var c = 16
        while c < count * 2 + 2 { c <<= 1 }
        capacity = c
        return ScratchRegion.allocate(UInt32.self, count: c, in: region, zeroed: true)
    }

    /// The staged position recorded for `bytes` (hash `hash`); nil if none, after recording
    /// `newValue` for them, when given.
    mutating func find(
        _ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64, staged: StagedEntries, orInsert newValue: Int? = nil
    ) -> Int? {
        probe(bytes, hash: hash, staged: staged, orInsert: newValue)
    }

    /// The staged position recorded for the name of staged position `k` (hash `hash`); nil if
    /// none, after recording `k` for it. Its bytes are read only to compare them with a name of
    /// the same hash.
    mutating func insert(_ k: Int, hash: UInt64, staged: StagedEntries) -> Int? {
        probe(nil, hash: hash, staged: staged, orInsert: k)
    }

    /// Whether recording staged position `k` needs a larger table first (`makeRoom`).
    @inline(__always) func needsRoom(toInsert k: Int) -> Bool { (used + 1) * 2 > capacity || (k + 1) * 2 > capacity }

    /// Grows the table so that staged position `k` can be recorded (`needsRoom`).
    mutating func makeRoom(toInsert k: Int, staged: StagedEntries) { grow(toHold: max(used + 1, k + 1), staged) }

    /// Records staged position `k` (hash `hash`), whose name the index does not hold, in a table
    /// with room for it (`needsRoom`, `makeRoom`).
    @inline(__always) mutating func insertNew(_ k: Int, hash: UInt64) {
        let mask = capacity - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while cells.unsafelyUnwrapped[i] != 0 { i = (i + 1) & mask }
        cells.unsafelyUnwrapped[i] =
            UInt32(truncatingIfNeeded: hash) & ~UInt32(truncatingIfNeeded: mask) | UInt32(truncatingIfNeeded: k + 1)
        used += 1
    }

    /// `find` of `bytes`, or when nil of the name of staged position `newValue`.
    @inline(__always)
    private mutating func probe(
        _ given: UnsafeBufferPointer<UInt8>?, hash: UInt64, staged: StagedEntries, orInsert newValue: Int?
    ) -> Int? {
        if let v = newValue, (used + 1) * 2 > capacity || (v + 1) * 2 > capacity { grow(toHold: max(used + 1, v + 1), staged) }
        guard let cells else { return nil }
        let mask = capacity - 1
        let high = UInt32(truncatingIfNeeded: hash) & ~UInt32(truncatingIfNeeded: mask)
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let c = cells[i]
            if c == 0 { break }
            if c & ~UInt32(truncatingIfNeeded: mask) == high {
                let k = Int(c & UInt32(truncatingIfNeeded: mask)) - 1
                if staged.nameHash(k) == hash {
                    let held = staged.nameBytes(k)
                    let bytes = given ?? staged.nameBytes(newValue!)
                    if held.count == bytes.count
                        && (held.count == 0 || RawMapSlot.equalBytes(held.baseAddress!, bytes.baseAddress!, held.count))
                    {
                        return k
                    }
                }
            }
            i = (i + 1) & mask
        }
        if let v = newValue {
            cells[i] = high | UInt32(truncatingIfNeeded: v + 1)
            used += 1
        }
        return nil
    }

    /// A table with room for `count` names (positions below `count`), holding the same ones.
    private mutating func grow(toHold count: Int, _ staged: StagedEntries) {
        let old = cells, oldCapacity = capacity
        var newCapacity = 0
        let fresh = StagedNameIndex.table(for: max(count, oldCapacity), capacity: &newCapacity, in: region)
        let mask = newCapacity - 1
        if let old {
            let oldMask = UInt32(truncatingIfNeeded: oldCapacity - 1)
            for s in 0..<oldCapacity where old[s] != 0 {
                let k = Int(old[s] & oldMask) - 1
                let hash = staged.nameHash(k)
                var i = Int(truncatingIfNeeded: hash) & mask
                while fresh[i] != 0 { i = (i + 1) & mask }
                fresh[i] =
                    UInt32(truncatingIfNeeded: hash) & ~UInt32(truncatingIfNeeded: mask) | UInt32(truncatingIfNeeded: k + 1)
            }
            ScratchRegion.deallocate(old, in: region)
        }
        cells = fresh
        capacity = newCapacity
    }

    /// Frees the table.
    mutating func free() {
        ScratchRegion.deallocate(cells, in: region)
        region = nil
        cells = nil
        capacity = 0
        used = 0
    }
}

/// The staged entries of a change behind one reference, for the escaping closures of its cycle and
/// lifetime checks: a closure context holding `StagedEntries` itself is a copy of it (a retain of
/// each of its fields, ~190 instructions, and as many releases), and a change made seven.
private final class StagedEntriesReference {
    let staged: StagedEntries
    init(_ staged: StagedEntries) { self.staged = staged }
}
