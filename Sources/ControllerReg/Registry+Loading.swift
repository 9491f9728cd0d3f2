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
    /// Every problem is reported; on failure nothing changes.
    public func load(path: String, format: ConfigFormat = .auto, mode: LoadMode = .add) throws(ConfigError) {
        let doc = try ConfigLoader.load(path: path, format: format, limits: limits.config)
        try apply([doc], mode: mode)
    }

    /// Loads config text. `file` names it in error locations.
    public func load(text: String, format: ConfigFormat = .auto, file: String = "<string>", mode: LoadMode = .add) throws(ConfigError) {
        let doc = try ConfigLoader.parse(text, format: format, file: file, limits: limits.config)
        try apply([doc], mode: mode)
    }

    /// Loads config bytes. `file` names them in error locations.
    public func load(bytes: UnsafeRawBufferPointer, format: ConfigFormat = .auto, file: String = "<string>",
                     mode: LoadMode = .add) throws(ConfigError) {
        let doc = try ConfigLoader.parse(bytes, format: format, file: file, limits: limits.config)
        try apply([doc], mode: mode)
    }

    /// Loads several files as one transaction: they may refer to each other, and either all of
    /// them apply or (on any problem, all reported) none does.
    public func load(paths: [String], format: ConfigFormat = .auto, mode: LoadMode = .add) throws(ConfigError) {
        var docs: [ConfigDocument] = []
        var diagnostics: [Diagnostic] = []
        for path in paths {
            do throws(ConfigError) {
                docs.append(try ConfigLoader.load(path: path, format: format, limits: limits.config))
            } catch {
                diagnostics += error.diagnostics
            }
        }
        if !diagnostics.isEmpty { throw ConfigError(diagnostics) }
        try apply(docs, mode: mode)
    }

    /// Adds entries defined in code, validated like a file.
    public func add(_ definitions: [EntryDefinition], mode: LoadMode = .add) throws(ConfigError) {
        try commit(definitions, mode: mode)
    }

    /// Removes entries. Fails (changing nothing) if another entry refers to one of them, or if
    /// one does not exist (or, in a child, is defined by the parent).
    public func remove(entriesNamed names: [String]) throws(ConfigError) {
        try commit([], removals: names)
    }

    private func apply(_ docs: [ConfigDocument], mode: LoadMode) throws(ConfigError) {
        var definitions: [EntryDefinition] = []
        var diagnostics: [Diagnostic] = []
        var invalidNames: [String] = []
        for doc in docs {
            let decoded = EntryDecoder.decode(doc)
            definitions += decoded.entries
            diagnostics += decoded.diagnostics
            invalidNames += decoded.invalidNames
        }
        try commit(definitions, mode: mode, invalidNames: Set(invalidNames), decodeProblems: diagnostics)
    }

    /// Validates and publishes a change of entries. Problems found earlier (`decodeProblems`) are
    /// reported together with the graph's; `invalidNames` are entries that failed to decode.
    private func commit(_ definitions: [EntryDefinition], mode: LoadMode = .add, removals: [String] = [],
                        invalidNames: Set<String> = [], decodeProblems: [Diagnostic] = []) throws(ConfigError) {
        try change { (c) throws(ConfigError) in
            let current = c.entries.count - c.entries.compiled.reduce(0) { $0 + ($1 == nil ? 1 : 0) }
            if current + definitions.count > limits.maxEntries {
                // Only names not defined yet are new: an override replaces, a name twice counts once.
                var seen = Set<String>()
                let added = definitions.reduce(0) { n, d in c.entries.index(of: d.name) < 0 && seen.insert(d.name).inserted ? n + 1 : n }
                if current + added > limits.maxEntries {
                    throw ConfigError(.limit, "the registry would hold more than its limit of \(limits.maxEntries) entries")
                }
            }
            if let parent = c.parentSnapshot {
                // A child: its own definitions change, then everything is compiled afresh over the parent's.
                var own = c.own
                var problems = decodeProblems
                var position: [String: Int] = [:]
                for (i, d) in own.enumerated() { position[d.name] = i }
                for name in removals {
                    if let i = position[name] {
                        own[i].name = ""
                    } else if parent.entries.index(of: name) >= 0 {
                        problems.append(Diagnostic(.invalidArgument, "cannot remove '\(name)': it is defined by the parent registry (a child can override it, not remove it)"))
                    } else {
                        problems.append(Diagnostic(.notFound, "cannot remove '\(name)': no entry by that name"))
                    }
                }
                own.removeAll { $0.name.isEmpty }
                position = [:]
                for (i, d) in own.enumerated() { position[d.name] = i }
                var seen = Set<String>()
                for d in definitions {
                    if !seen.insert(d.name).inserted {
                        problems.append(Diagnostic(.duplicate, "entry '\(d.name)' is defined twice", at: d.location))
                    } else if let i = position[d.name] {
                        if mode == .add {
                            let prior = own[i].location
                            problems.append(Diagnostic(.duplicate, "entry '\(d.name)' is already defined\(prior.map { " at \($0)" } ?? " (added from code)")",
                                                       at: d.location))
                        } else {
                            own[i] = d
                        }
                    } else {
                        position[d.name] = own.count
                        own.append(d)
                    }
                }
                try c.merge(parent: parent, own: own, invalidNames: invalidNames, problems: problems)
            } else {
                var tx = Transaction(base: c.entries, classSlots: c.classSlots)
                switch tx.apply(definitions, mode: mode == .add ? .add : .override, removals: removals,
                                invalidNames: invalidNames, decodeProblems: decodeProblems) {
                case .failure(let error):
                    throw error
                case .success(let compiled):
                    c.classSlots = tx.classSlots
                    c.padRecords()
                    c.entries = EntryTable(compiled: compiled)
                }
            }
        }
    }
}
