/// Whether a load may redefine names that already exist.
public enum LoadMode: Sendable, Hashable {
    /// Redefining an existing name is an error naming both places (the default).
    case add
    /// A name that exists is replaced by the new definition; references to it reach the new one.
    case override
}

/// Loading configs and changing entries: every door ends in one validated commit.
extension Registry {
    /// Loads the config file at `path` (format from the extension, else sniffed, for `.auto`).
    /// Every problem is reported; on failure nothing changes. `${NAME}` and `{Env: NAME}` values
    /// are resolved against `environment` (nil: the process environment, read now, and read again
    /// by a `reload()`; a map is kept and given again by a reload).
    public func load(
        path: String, format: ConfigFormat = .auto, mode: LoadMode = .add, environment: [String: String]? = nil
    ) throws(ConfigError) {
        try releasingLoadMemory { () throws(ConfigError) in
            // Decoded while it is read: no document tree is held beside the records.
            var load = StagedLoad()
            let textBytes = try load.read(path: path, format: format, limits: limits.config)
            try apply(
                load, mode: mode, source: .files([ReloadHistory.absolute(path)], format),
                environment: ConfigEnvironment.checked(environment))
            return textBytes
        }
    }

    /// Loads config text. `file` names it in error locations; `environment` as for `load(path:)`.
    public func load(
        text: String, format: ConfigFormat = .auto, file: String = "<string>", mode: LoadMode = .add,
        environment: [String: String]? = nil
    ) throws(ConfigError) {
        try Registry.checkSourceName(file, "load(text:file:)")
        try releasingLoadMemory { () throws(ConfigError) in
            var load = StagedLoad()
            let textBytes = try withUnsafeBytesThrowing(Array(text.utf8)) { (raw) throws(ConfigError) in
                try load.read(bytes: raw, format: format, file: file, limits: limits.config)
            }
            try apply(load, mode: mode, source: .given, environment: ConfigEnvironment.checked(environment))
            return textBytes
        }
    }

    /// Loads config bytes. `file` names them in error locations; `environment` as for `load(path:)`.
    public func load(
        bytes: UnsafeRawBufferPointer, format: ConfigFormat = .auto, file: String = "<string>",
        mode: LoadMode = .add, environment: [String: String]? = nil
    ) throws(ConfigError) {
        try Registry.checkSourceName(file, "load(bytes:file:)")
        try releasingLoadMemory { () throws(ConfigError) in
            var load = StagedLoad()
            let textBytes = try load.read(bytes: bytes, format: format, file: file, limits: limits.config)
            try apply(load, mode: mode, source: .given, environment: ConfigEnvironment.checked(environment))
            return textBytes
        }
    }

    /// Loads several files as one transaction: they may refer to each other, and either all of
    /// them apply or (on any problem, all reported) none does. `environment` as for `load(path:)`.
    public func load(
        paths: [String], format: ConfigFormat = .auto, mode: LoadMode = .add, environment: [String: String]? = nil
    ) throws(ConfigError) {
        try releasingLoadMemory { () throws(ConfigError) in
            var load = StagedLoad()
            let (textBytes, unread) = load.read(paths: paths, format: format, limits: limits.config)
            // The files that were read are still checked; a file that was not may define any name, so
            // references that do not resolve are not reported then.
            try apply(
                load, mode: mode, source: .files(paths.map(ReloadHistory.absolute), format), unreadProblems: unread,
                environment: ConfigEnvironment.checked(environment))
            return textBytes
        }
    }

    /// Adds entries defined in code, validated like a file; their environment values are resolved
    /// against `environment` (nil: the process environment, read now).
    public func add(
        _ definitions: [EntryDefinition], mode: LoadMode = .add, environment: [String: String]? = nil
    )
        throws(ConfigError)
    {
        try commit(definitions, mode: mode, source: .given, environment: ConfigEnvironment.checked(environment))
    }

    /// Removes entries. Fails (changing nothing) if another entry refers to one of them, or if
    /// one does not exist (or, in a child, is defined by the parent).
    public func remove(entriesNamed names: [String]) throws(ConfigError) {
        try commit([], removals: names, source: .given)
    }

    /// Throws `.invalidArgument` when `file`, the name a load gives its text, cannot be shown in
    /// messages (`SourceLocation.sourceNameProblem`), naming the call (`function`).
    private static func checkSourceName(_ file: String, _ function: String) throws(ConfigError) {
        guard let problem = SourceLocation.sourceNameProblem(file) else { return }
        throw ConfigError(.invalidArgument, "\(function): the file name \(file.debugDescription) \(problem)")
    }

    /// Runs a load (which returns the size of its documents' text) and then, once its documents
    /// and decoded definitions are gone, gives the pages they used back to the system when they
    /// were large (a load's intermediate forms are several times the size of what it keeps).
    private func releasingLoadMemory(_ load: () throws(ConfigError) -> Int) throws(ConfigError) {
        var size = 0
        defer { FreedMemory.release(afterLoadOf: size) }
        size = try load()
    }

    /// The documents of one load, decoded as each is read: their valid entries written straight
    /// into one `StagedEntries` (the change's records), their problems and invalid names.
    struct StagedLoad {
        var staged: StagedEntries?
        var diagnostics: [Diagnostic] = []
        var invalidNames = InvalidEntryNames()

        /// Reads config bytes and decodes their entries into the load while the parser reads them
        /// (`EntryDecoder.Stream`: the parsed document is never whole in memory); returns their
        /// size. If reading fails the load is left as it was (entries already decoded from these
        /// bytes are dropped: a document with an error has no entries) and the error is thrown.
        mutating func read(
            bytes: UnsafeRawBufferPointer, format: ConfigFormat, file: String, limits: ConfigLimits
        ) throws(ConfigError) -> Int {
            // Moved into the stream (no second reference: its arrays are not copied on write).
            let stream = EntryDecoder.Stream(
                into: staged.take()
                    ?? StagedEntries(
                        entries: EntryDecoder.expectedEntries(inputBytes: bytes.count), textBytes: bytes.count,
                        scratch: ScratchRegion(forInput: bytes.count)))
            let before = stream.staged.count
            let doc: ConfigDocument
            do throws(ConfigError) {
                doc = try ConfigLoader.parse(
                    bytes, format: format, file: file, limits: limits, keepingProblems: true, pairs: stream)
            } catch {
                stream.staged.removeLast(stream.staged.count - before)
                staged = stream.staged
                throw error
            }
            let found = stream.finish(doc)
            staged = stream.staged
            // Taken as they are into empty lists (appending copies each diagnostic).
            if diagnostics.isEmpty { diagnostics = found.diagnostics } else { diagnostics += found.diagnostics }
            invalidNames += found.invalidNames
            return bytes.count
        }

        /// Reads the file at `path` as `read(bytes:…)` does (format as `ConfigLoader.load(path:)`).
        mutating func read(path: String, format: ConfigFormat, limits: ConfigLimits) throws(ConfigError) -> Int {
            let bytes = try ConfigLoader.readFile(path, limit: limits.maxInputBytes)
            return try withUnsafeBytesThrowing(bytes) { (raw) throws(ConfigError) in
                try read(
                    bytes: raw, format: ConfigLoader.format(of: path, given: format), file: SourceLocation.shownPath(path),
                    limits: limits)
            }
        }

        /// Reads and decodes the files at `paths` in order, each while it is read; returns the size
        /// of their text and the problems of the files that could not be read (`load(paths:)` and
        /// a reload's file steps).
        mutating func read(
            paths: [String], format: ConfigFormat, limits: ConfigLimits
        ) -> (textBytes: Int, unread: [Diagnostic]) {
            var textBytes = 0
            var unread: [Diagnostic] = []
            for path in paths {
                do throws(ConfigError) {
                    textBytes += try read(path: path, format: format, limits: limits)
                } catch {
                    unread += error.diagnostics
                }
            }
            return (textBytes, unread)
        }
    }

    /// Commits decoded documents (decoded while each was read, so no document tree is held during
    /// the commit).
    private func apply(
        _ load: StagedLoad, mode: LoadMode, source: ReloadHistory.Source, unreadProblems: [Diagnostic] = [],
        environment: ConfigEnvironment
    ) throws(ConfigError) {
        try change { (c) throws(ConfigError) in
            try stage(
                &c, load.staged ?? StagedEntries(entries: 0), mode: mode, removals: [], source: source,
                // Invalid names only keep references to them from being reported as missing: none
                // to look for when no entry is staged.
                // (A list: hashed into a set only if a reference to no entry is found.)
                invalidNames: [], invalidNameList: (load.staged?.count ?? 0) > 0 ? load.invalidNames : InvalidEntryNames(),
                decodeProblems: unreadProblems.isEmpty ? load.diagnostics : unreadProblems + load.diagnostics,
                namesIncomplete: !unreadProblems.isEmpty, environment: environment)
        }
    }

    /// Validates and publishes a change of entries. Problems found earlier (`decodeProblems`) are
    /// reported together with the graph's; `invalidNames` are entries that failed to decode;
    /// `namesIncomplete` when a file could not be read (its names are unknown).
    private func commit(
        _ definitions: [EntryDefinition], mode: LoadMode = .add, removals: [String] = [], source: ReloadHistory.Source,
        invalidNames: Set<String> = [], decodeProblems: [Diagnostic] = [], namesIncomplete: Bool = false,
        environment: ConfigEnvironment = .process
    ) throws(ConfigError) {
        try change { (c) throws(ConfigError) in
            try stage(
                &c, StagedEntries(definitions), mode: mode, removals: removals, source: source, invalidNames: invalidNames,
                decodeProblems: decodeProblems, namesIncomplete: namesIncomplete, environment: environment)
        }
    }

    /// Applies one change to the candidate `c` and records it in `c.history`: what every door's
    /// commit runs, and what a reload runs again for each recorded step. Environment values of
    /// `definitions` are resolved against `environment` (read once for the whole change; the step
    /// keeps it, so a reload gives a map again and reads the process environment anew).
    func stage(
        _ c: inout Candidate, _ staged: StagedEntries, mode: LoadMode, removals: [String],
        source: ReloadHistory.Source, invalidNames: Set<String>, invalidNameList: InvalidEntryNames = InvalidEntryNames(),
        decodeProblems: [Diagnostic],
        namesIncomplete: Bool, environment: ConfigEnvironment, lookup given: EnvironmentLookup? = nil,
        kept: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
    ) throws(ConfigError) {
        let lookup = given ?? EnvironmentLookup(environment)
        let current = c.entries.liveCount
        if current + staged.count > limits.maxEntries {
            // Only names not defined yet are new: an override replaces, a name twice counts once.
            var seen = Set<String>()
            let added = (0..<staged.count).reduce(0) { n, k in
                let name = staged.name(k)
                return c.entries.index(of: name) < 0 && seen.insert(name).inserted ? n + 1 : n
            }
            // A change that adds no name (a removal, an override of names already defined) never
            // grows the registry: it is not refused, even when the limit was lowered below the
            // count, so a registry over its limit can still be cut down.
            if added > 0 && current + added > limits.maxEntries {
                throw ConfigError(
                    .limit,
                    "the registry would hold more than its limit of \(limits.maxEntries) entries"
                        + ConfigLimits.fix("CR_LIMIT_ENTRIES"))
            }
        }
        // One path for root and child: the same transaction checks the change over the
        // registry's table. A child then recompiles its own definitions over its parent's, unless
        // the change only added names new to it (the transaction's table is then the same).
        let child = c.parentSnapshot.map { parent in
            Transaction.ChildScope(own: Transaction.OwnNames(c.own), parentDefines: { parent.entries.index(of: $0) >= 0 })
        }
        var tx = Transaction(
            base: c.entries, classSlots: c.classSlots, environment: lookup, maxStringBytes: limits.config.maxStringBytes)
        let table: EntryTable
        switch tx.apply(
            staged: staged, mode: mode == .add ? .add : .override, removals: removals,
            invalidNames: invalidNames, invalidNameList: invalidNameList, decodeProblems: decodeProblems,
            namesIncomplete: namesIncomplete, child: child,
            kept: kept)
        {
        case .failure(let error): throw error
        case .success(let result): table = result
        }
        var history = c.history
        let step = Int32(history.steps.count)
        // The names a change that only removed entries took from this registry's view (for its
        // children).
        var removedFromView: [String]?
        history.steps.append(ReloadHistory.Step(source: source, mode: mode, removals: removals, environment: environment))
        // What the change only added, for this registry's children (`Candidate.addedForChildren`).
        var addedForChildren: [EntryDefinition]?
        if c.parentSnapshot != nil && removals.isEmpty && tx.onlyAdded && history.origins.count == c.own.count {
            // A child's change that only adds names new to its view: the transaction's table is
            // what compiling the parent's entries and its own again would give (the added ones
            // last, as their own). Appended to its own definitions and their origins, so the
            // cost is the change's, not the child's or its parent's.
            var added: [EntryDefinition] = []
            for k in 0..<staged.count {
                var d = staged.definition(k)
                // The child compiles its own entries again later (over a changed parent): they
                // keep this change's environment.
                d.environment = lookup
                c.own.append(d)
                history.origins.append(step)
                if !state.children.isEmpty { added.append(d) }
            }
            if !state.children.isEmpty { addedForChildren = added }
            c.adopt(table, from: tx)
        } else if let parent = c.parentSnapshot {
            let gone = Set(removals)
            // A child's change that only removed its own entries that its parent does not define
            // (every removal emptied a row): the transaction's table is what compiling again
            // would give, so only the own list (not the parent's entries) is gone through.
            let onlyRemovedRows = tx.onlyRemoved && tx.removedIndices.count == gone.count
            var own: SharedTailList<EntryDefinition> = []
            var origins: [Int32] = []
            for (i, d) in c.own.enumerated() {
                let origin = i < history.origins.count ? history.origins[i] : -1
                if gone.contains(d.name) {
                    history.keepReplaced(d, origin: origin)
                } else {
                    own.append(d)
                    origins.append(origin)
                }
            }
            var position: [String: Int] = [:]
            for (i, d) in own.enumerated() { position[d.name] = i }
            for k in 0..<staged.count {
                var d = staged.definition(k)
                // The child compiles its own entries again later (over a changed parent): they
                // keep this change's environment.
                d.environment = lookup
                if let i = position[d.name] {
                    history.keepReplaced(own[i], origin: origins[i])
                    own[i] = d
                    origins[i] = step
                } else {
                    position[d.name] = own.count
                    own.append(d)
                    origins.append(step)
                }
            }
            history.origins = SharedTailList(origins)
            if onlyRemovedRows {
                c.own = own
                c.adopt(table, from: tx)
                removedFromView = removals
            } else {
                try c.merge(parent: parent, own: own, invalidNames: invalidNames, problems: [], namesIncomplete: namesIncomplete)
            }
        } else {
            // Entries this change replaced or removed, and the ones it defined (the transaction
            // keeps every other entry as it was).
            let old = c.entries
            // (None to keep when the history has no entries yet: a first load.)
            for i in (history.origins.isEmpty ? [] : (Array(tx.changedIndices) + tx.removedIndices).sorted())
            where i < history.origins.count {
                guard let o = old.definition(at: i) else { continue }
                history.keepReplaced(o, origin: history.origins[i])
            }
            // Indices the change added get their origin appended (no write behind the list's end:
            // the state shares the list until then).
            let known = history.origins.count
            if known < table.count {
                var added = [Int32](repeating: -1, count: table.count - known)
                for i in tx.changedIndices where i >= known { added[i - known] = step }
                history.origins.append(contentsOf: added)
            }
            for i in tx.changedIndices where i < known { history.origins[i] = step }
            c.adopt(table, from: tx)
            if tx.onlyRemoved { removedFromView = removals }
        }
        c.history = history
        c.stagedChanges += 1
        // Children extend their tables by what a change only added (each added entry decoded once
        // here; its cost is the entry's); after any other change they are compiled again.
        if c.parentSnapshot == nil && tx.onlyAdded && !state.children.isEmpty {
            addedForChildren = tx.changedIndices.compactMap { c.entries.definition(at: $0) }
        }
        c.addedForChildren = c.stagedChanges == 1 ? addedForChildren : nil
        // Children remove what a change only removed from their views the same way.
        c.removedForChildren =
            c.stagedChanges == 1 && removedFromView != nil && !state.children.isEmpty ? removedFromView : nil
    }
}

/// `withUnsafeBytes` of a byte array that keeps the closure's typed error.
private func withUnsafeBytesThrowing<R>(
    _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(ConfigError) -> R
) throws(ConfigError) -> R {
    let result: Result<R, ConfigError> = bytes.withUnsafeBytes { raw in
        do throws(ConfigError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}
