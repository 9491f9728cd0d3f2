/// Reads entries out of a `ConfigDocument` by the config schema. Knows nothing of file formats.
///
/// Schema: the top level is a map from entry names to entries. An entry is a string (the class
/// name) or a map with `ClassName` (required), `Description` (string), `Tag` (a string, an integer,
/// or a list of them),
/// `Dependencies` (map), `Lifestyle` (`transient`, `singleton` or `graph`) and `Eager` (bool, for
/// singletons). Any other key is an error. Dependency values are read by `DependencyRule` (`"@text"`
/// is a literal, other strings references, `{Provider: Name}`, `{Tagged: t}`, `{Optional: Name}`
/// forms); names are checked by
/// the registry's transaction, as for entries from every other door.
public enum EntryDecoder {
    /// The keys an entry map may have (the list messages quote, `MessageForm.allowedEntryKeys`).
    public static let entryKeys = MessageForm.allowedEntryKeys.description.split(separator: ",").map {
        String($0.drop { $0 == " " })
    }

    /// What decoding a document found.
    public struct Result: Sendable {
        /// The valid entries, in written order.
        public var entries: [EntryDefinition]
        /// Every problem found.
        public var diagnostics: [Diagnostic]
        /// Names of entries that were written but are invalid (so references to them are not
        /// reported as missing as well).
        public var invalidNames: [String]
    }

    /// Decodes every entry, collecting every problem (the whole document is always checked).
    /// The document's own problems (duplicate keys) come first; an entry holding a duplicate key is
    /// invalid (its other problems are still reported) and a repeated entry name is skipped.
    public static func decode(_ doc: ConfigDocument) -> Result {
        var staged = StagedEntries(entries: entryCount(of: doc))
        let found = stage(doc, into: &staged)
        return Result(
            entries: (0..<staged.count).map { staged.definition($0) }, diagnostics: found.diagnostics,
            invalidNames: found.invalidNames.strings())
    }

    /// How many entries the document's top level holds (0 when it is not a map).
    static func entryCount(of doc: ConfigDocument) -> Int {
        guard let root = doc.root, doc.nodes[root].kind == .map else { return 0 }
        return doc.nodes[root].count
    }

    /// About how many entries `bytes` bytes of config text hold (to size a load's records before
    /// its document is read; they grow if there are more).
    static func expectedEntries(inputBytes bytes: Int) -> Int { bytes / 128 }

    /// Decodes every entry as `decode` does, writing each valid one straight into `staged` as its
    /// record (no `EntryDefinition`, no `String` per value); returns the problems (the document's
    /// first) and the names of invalid entries.
    static func stage(
        _ doc: ConfigDocument, into staged: inout StagedEntries
    ) -> (
        diagnostics: [Diagnostic], invalidNames: InvalidEntryNames
    ) {
        staged.beginDocument(file: doc.file)
        return doc.withView { view in
            var d = Decoder(
                doc: view, strings: view.strings, nodes: view.nodes,
                writer: DefinitionCoding.RecordWriter(staged.arena, file: doc.file))
            d.diagnostics = doc.problems
            d.run(into: &staged)
            return (d.diagnostics, d.invalidNames)
        }
    }

    /// Decodes a document's entries while its loader reads it: the loader hands each top-level
    /// pair over as soon as it is complete (`TopLevelPairSink`), and it is written into `staged`
    /// as `stage` writes it, in the same order with the same problems; the loader then reuses the
    /// pair's nodes, so the whole document is never in memory. `finish` gives the outcome `stage`
    /// gives for the whole document.
    final class Stream: TopLevelPairSink, ScratchHolder {
        /// The records written so far (taken back by the caller after `finish`).
        @exclusivity(unchecked) var staged: StagedEntries
        /// The decoder, made at the first pair (raw memory: no copy or access check per pair).
        @exclusivity(unchecked) private var decoder: UnsafeMutablePointer<Decoder>? = nil

        init(into staged: StagedEntries) {
            self.staged = staged
            // The names are indexed as they are staged: the table the document's repeated entry
            // names are found in is the transaction's.
            self.staged.indexNames()
        }

        /// Repeated entry names are found here, in the staged names' index (`Decoder.isRepeated`).
        var checksTopLevelKeys: Bool { true }

        /// The load's region for temporaries (the staged entries').
        var scratch: ScratchRegion? { staged.scratch }

        deinit {
            decoder?.deinitialize(count: 1)
            decoder?.deallocate()
        }

        func take(_ part: DocumentView, pairs range: Range<Int>) {
            if let d = decoder {
                d.pointee.read(part)
                d.pointee.decodePairs(range, into: &staged)
                return
            }
            staged.beginDocument(file: part.file)
            let d = UnsafeMutablePointer<Decoder>.allocate(capacity: 1)
            d.initialize(
                to: Decoder(
                    doc: part, strings: part.strings, nodes: part.nodes,
                    writer: DefinitionCoding.RecordWriter(staged.arena, file: part.file)))
            d.pointee.checksNames = true
            d.pointee.documentStart = staged.count
            decoder = d
            d.pointee.decodePairs(range, into: &staged)
        }

        /// The problems (the document's first) and invalid names, once the loader has returned
        /// `doc` (its root alone when its pairs came here; a document whose root is not a map, or
        /// that is empty, is checked here).
        func finish(_ doc: ConfigDocument) -> (diagnostics: [Diagnostic], invalidNames: InvalidEntryNames) {
            guard let d = decoder else { return EntryDecoder.stage(doc, into: &staged) }
            doc.withView { view in
                d.pointee.read(view)
                d.pointee.run(into: &staged)
            }
            // The decoder's list as it is when the document has no problems of its own (a copy
            // of thousands of diagnostics retains each one's strings).
            // The document's problems: its repeated keys inside entries, then its repeated entry names.
            let repeated = d.pointee.repeatedNames
            let own = doc.problems.isEmpty ? repeated : repeated.isEmpty ? doc.problems : doc.problems + repeated
            let problems = own.isEmpty ? d.pointee.diagnostics : own + d.pointee.diagnostics
            return (problems, d.pointee.invalidNames)
        }
    }

    /// Where a document names entries, by their names' bytes and `NameTable.hash`: the names
    /// packed in one byte array, found through an open-addressing table of place numbers probed
    /// by the hash itself. No array and no SipHash per name (a dictionary keyed by `[UInt8]` cost
    /// ~2,600 instructions an invalid entry, and every later entry's lookup paid one more).
    struct NamePlaces {
        /// Place number + 1 per cell, 0 when empty; at most half full.
        private var cells: [Int32] = []
        private var names: [UInt8] = []
        private var places: [(hash: UInt64, start: Int32, count: Int32, line: Int32, column: Int32)] = []

        var isEmpty: Bool { places.isEmpty }

        /// Records that `name` (its `NameTable.hash` is `hash`) is named at `line`, `column`.
        mutating func insert(_ name: UnsafeBufferPointer<UInt8>, hash: UInt64, line: Int, column: Int) {
            if (places.count + 1) * 2 > cells.count {
                cells = [Int32](repeating: 0, count: max(16, cells.count * 2))
                for i in places.indices { addCell(Int32(i), hash: places[i].hash) }
            }
            places.append(
                (hash, Int32(names.count), Int32(name.count), Int32(truncatingIfNeeded: line), Int32(truncatingIfNeeded: column)))
            names.append(contentsOf: name)
            addCell(Int32(places.count - 1), hash: hash)
        }

        /// Points the first free cell of `hash`'s probe sequence at place number `index`.
        private mutating func addCell(_ index: Int32, hash: UInt64) {
            let mask = cells.count - 1
            var i = Int(truncatingIfNeeded: hash) & mask
            while cells[i] != 0 { i = (i + 1) & mask }
            cells[i] = index + 1
        }

        /// The place recorded first for `name` (its `NameTable.hash` is `hash`), if any.
        func place(of name: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (line: Int, column: Int)? {
            guard !cells.isEmpty else { return nil }
            let mask = cells.count - 1
            var i = Int(truncatingIfNeeded: hash) & mask
            while cells[i] != 0 {
                let p = places[Int(cells[i] - 1)]
                if p.hash == hash && Int(p.count) == name.count
                    && names.withUnsafeBufferPointer({ all in
                        name.isEmpty || memcmp(all.baseAddress! + Int(p.start), name.baseAddress!, name.count) == 0
                    })
                {
                    return (Int(p.line), Int(p.column))
                }
                i = (i + 1) & mask
            }
            return nil
        }
    }

    private struct Decoder {
        var doc: DocumentView
        /// The document's string bytes and nodes, read in place (`doc`'s).
        var strings: UnsafePointer<UInt8>
        var nodes: UnsafeBufferPointer<ConfigNode>
        var writer: DefinitionCoding.RecordWriter
        var diagnostics: [Diagnostic] = []
        var invalidNames = InvalidEntryNames()
        /// Whether repeated entry names are found here (a stream: the loader does not), from the
        /// staged names' index and, for names it does not answer for, `otherPlaces`.
        var checksNames = false
        /// The staged position of the document's first entry (earlier ones are other documents').
        var documentStart = 0
        /// The hashes of the entry names of the pairs being decoded, when their index's cells
        /// were read ahead of looking them up (`decodePairs`); kept for its capacity.
        var pairHashes: [UInt64] = []
        /// The cells read ahead, combined (kept, so the reads are not optimised away).
        private(set) var touchedCells: UInt32 = 0
        /// The document's repeated entry names, reported as the loader reports repeated keys.
        var repeatedNames: [Diagnostic] = []
        /// Where the document names each entry whose name the staged names' index does not place
        /// in the document (an invalid entry: not staged; a name an earlier document staged
        /// first), by its name's bytes: every entry of a config whose entries are all invalid.
        var otherPlaces = NamePlaces()
        /// The entry name and dependency key nodes being decoded: a dependency problem names them,
        /// in the words the transaction uses for the same problem from another door.
        var currentEntryNode = 0, currentKeyNode = 0
        /// Where messages are written (made at the first problem).
        var messageText: TextBuffer?
        /// The last unknown entry key and the key suggested for it: a config that misspells a key
        /// misspells it alike in many entries, and the answer depends on the key alone.
        /// (The key kept as bytes: compared with the next unknown key's without a `String`.)
        var lastUnknownKey: (key: [UInt8], suggestion: String?)?

        init(
            doc: DocumentView, strings: UnsafePointer<UInt8>, nodes: UnsafeBufferPointer<ConfigNode>,
            writer: DefinitionCoding.RecordWriter
        ) {
            self.doc = doc
            self.strings = strings
            self.nodes = nodes
            self.writer = writer
        }

        /// Reads `view` from now on (the next part of the same document).
        mutating func read(_ view: DocumentView) {
            doc.move(to: view)
            strings = view.strings
            nodes = view.nodes
        }

        var currentEntry: String { doc.string(at: currentEntryNode) }

        /// The buffer messages are written in.
        mutating func text() -> TextBuffer { ProblemText.buffer(&messageText) }

        /// `Field of entry 'E' must be ..., found K` for the entry being decoded, `node` the value.
        /// Out of line, as every problem's path here: the per-entry code stays small.
        @inline(never)
        mutating func failField(_ field: StaticString, _ rule: StaticString, _ node: Int) {
            ProblemText.entryField(field, of: bytes(currentEntryNode), rule, found: kindName(node), into: text())
            failWritten(.schema, node)
        }

        /// A problem inside the dependency being decoded, at `node`: `entry 'E', key 'K': problem`.
        mutating func failInDependency(_ code: ErrorCode, _ problem: String, _ node: Int, suggestion: String? = nil) {
            ProblemText.inDependency(entry: bytes(currentEntryNode), key: bytes(currentKeyNode), problem, into: text())
            failWritten(code, node, suggestion: suggestion)
        }
        var currentKey: String { doc.string(at: currentKeyNode) }

        /// The next sibling of node `node` (`ConfigDocument.next(after:)` on the nodes in place).
        @inline(__always) func next(after node: Int) -> Int {
            let n = nodes[node]
            return n.isContainer ? Int(n.extent) : node + 1
        }

        /// Whether string node `node` holds exactly `text`.
        @inline(__always) func equals(_ node: Int, _ text: StaticString) -> Bool {
            let n = nodes[node]
            return Int(n.extent) == text.utf8CodeUnitCount
                && RawMapSlot.equalBytes(strings + Int(n.payload), text.utf8Start, text.utf8CodeUnitCount)
        }

        /// The key of an entry map at `node`, recognised from its bytes (by length first: one
        /// compare; no String unless it is unknown). Inline: a call copied the whole decoder
        /// (264 bytes) to pass it, for every key of every entry.
        @inline(__always) func entryKey(_ node: Int) -> EntryKey {
            switch nodes[node].extent {
            case 9: return equals(node, "ClassName") ? .className : equals(node, "Lifestyle") ? .lifestyle : .unknown
            case 12: return equals(node, "Dependencies") ? .dependencies : .unknown
            case 11: return equals(node, "Description") ? .description : .unknown
            case 3: return equals(node, "Tag") ? .tag : .unknown
            case 5: return equals(node, "Eager") ? .eager : .unknown
            default: return .unknown
            }
        }

        /// The bytes of string node `node` (without the trailing NUL).
        @inline(__always) func bytes(_ node: Int) -> UnsafeBufferPointer<UInt8> {
            let n = nodes[node]
            return UnsafeBufferPointer(start: strings + Int(n.payload), count: Int(n.extent))
        }

        mutating func fail(_ code: ErrorCode, _ message: String, _ node: Int, suggestion: String? = nil) {
            diagnostics.append(Diagnostic(code, message, at: doc.location(of: node), suggestion: suggestion))
        }

        /// `fail` with the message just written in `text()` (kept without a `String`).
        mutating func failWritten(_ code: ErrorCode, _ node: Int, suggestion: String? = nil) {
            let location = doc.location(of: node)
            diagnostics.append(Diagnostic(code, written: text(), at: location, suggestion: suggestion))
        }

        /// The kind of a node as a value kind.
        func valueKind(_ node: Int) -> ValueKind {
            switch nodes[node].kind {
            case .null: return .null
            case .bool: return .bool
            case .int: return .int
            case .double: return .double
            case .string: return .string
            case .list: return .list
            case .map: return .map
            }
        }

        func kindName(_ node: Int) -> String { DependencyRule.kindName(valueKind(node)) }

        mutating func run(into staged: inout StagedEntries) {
            guard !nodes.isEmpty else {
                diagnostics.append(
                    Diagnostic(
                        .schema, "the config is empty: expected a map from entry names to entries",
                        at: SourceLocation(file: doc.file, line: 1, column: 1)))
                return
            }
            let root = 0
            guard nodes[root].kind == .map else {
                fail(.schema, "the top level must be a map from entry names to entries, found \(kindName(root))", root)
                return
            }
            decodePairs(root + 1..<Int(nodes[root].extent), into: &staged)
        }

        /// Decodes the top-level pairs whose nodes are `range` (in written order).
        mutating func decodePairs(_ range: Range<Int>, into staged: inout StagedEntries) {
            var next = range.lowerBound
            let end = range.upperBound
            // With a large index of staged names (a large load), each name's lookup waited for
            // its cell to come from memory: the pairs' names are hashed first, then their cells
            // read in a loop of nothing else (so fetched together), then the names looked up.
            let readsAhead = checksNames && staged.names?.readsAhead == true
            if readsAhead, let names = staged.names {
                pairHashes.removeAll(keepingCapacity: true)
                var key = next
                while key < end {
                    let name = bytes(key)
                    pairHashes.append(NameTable.hash(name.baseAddress ?? emptyKey, name.count))
                    key = self.next(after: key + 1)
                }
                touchedCells |= pairHashes.withUnsafeBufferPointer { hashes in
                    var touched: UInt32 = 0
                    for hash in hashes { touched |= names.touch(hash: hash) }
                    return touched
                }
            }
            var pair = 0
            while next < end {
                let key = next, value = next + 1
                next = self.next(after: value)
                // A repeated entry name is reported with the document's problems; the first stays.
                var looked: (hash: UInt64, firstStaged: Int?)? = nil
                if checksNames {
                    let name = bytes(key)
                    let hash: UInt64
                    if readsAhead {
                        hash = pairHashes[pair]
                        pair += 1
                    } else {
                        hash = NameTable.hash(name.baseAddress ?? emptyKey, name.count)
                    }
                    let first = staged.firstPosition(named: name, hash: hash)
                    if isRepeated(key, name, hash: hash, firstStaged: first, in: staged) { continue }
                    looked = (hash, first)
                } else if doc.isDuplicateKey(key) {
                    continue
                }
                if let record = writeEntry(nameNode: key, valueNode: value) {
                    staged.add(record: record, writtenBy: writer, name: looked)
                    if let looked, looked.firstStaged != nil {
                        otherPlaces.insert(
                            bytes(key), hash: looked.hash, line: Int(nodes[key].line), column: Int(nodes[key].column))
                    }
                } else {
                    invalidNames.append(bytes(key))
                    if let looked {
                        otherPlaces.insert(
                            bytes(key), hash: looked.hash, line: Int(nodes[key].line), column: Int(nodes[key].column))
                    }
                }
            }
        }

        /// Whether entry name `name` (key node `key`; first staged at `firstStaged`, if at all)
        /// repeats an earlier top-level key of the document, staged or not; reported then
        /// (`Diagnostic.duplicateKey`, the message of every repeated key).
        mutating func isRepeated(
            _ key: Int, _ name: UnsafeBufferPointer<UInt8>, hash: UInt64, firstStaged: Int?, in staged: StagedEntries
        ) -> Bool {
            let first: (line: Int, column: Int)
            if let p = firstStaged, p >= documentStart {
                let place = DefinitionCoding.location(staged.arena, at: staged.record(p))
                first = (place?.line ?? 0, place?.column ?? 0)
            } else if !otherPlaces.isEmpty, let place = otherPlaces.place(of: name, hash: hash) {
                first = place
            } else {
                return false
            }
            repeatedNames.append(
                Diagnostic.duplicateKey(
                    name, at: doc.location(of: key), firstLine: first.line, firstColumn: first.column, text: text()))
            return true
        }

        /// Writes the entry's record; its offset, or nil (reported) when the entry is invalid.
        /// An invalid entry may leave bytes in the arena that no record points to (its whole load
        /// fails).
        mutating func writeEntry(nameNode: Int, valueNode: Int) -> Int? {
            // Names are checked (not empty, no NUL byte) by the transaction, as for every door.
            currentEntryNode = nameNode
            let line = Int(nodes[nameNode].line), column = Int(nodes[nameNode].column)
            switch nodes[valueNode].kind {
            case .string:
                let record = writer.begin(
                    name: bytes(nameNode), className: bytes(valueNode), description: nil, tag: nil, tags: [],
                    lifestyle: .transient,
                    eager: false, line: line, column: column)
                writer.count(0)
                return record
            case .map:
                break
            default:
                failEntryKind(valueNode)
                return nil
            }
            var classNode = -1, descriptionNode = -1, dependenciesNode = -1
            // Where the problems of the dependencies go among the entry's others (key order).
            var dependencyProblemsAt = 0
            // One scalar tag (the common case) is kept without an array.
            var tag: EntryTag?
            var tags: [EntryTag] = []
            var lifestyle = Lifestyle.transient
            var eager: (Bool, Int)?
            var ok = true
            // Pairs walked in place (no array of pairs per entry).
            var next = valueNode + 1
            let end = Int(nodes[valueNode].extent)
            while next < end {
                let k = next, v = next + 1
                next = self.next(after: v)
                // Dispatch on the key's bytes: no String per key unless it is unknown.
                switch entryKey(k) {
                case .className:
                    if nodes[v].kind == .string {
                        classNode = v
                    } else {
                        failField("ClassName", "must be a string", v)
                        ok = false
                    }
                case .description:
                    if nodes[v].kind == .string {
                        descriptionNode = v
                    } else {
                        failField("Description", "must be a string", v)
                        ok = false
                    }
                case .tag:
                    if let t = scalarTag(v) {
                        tag = t
                    } else if let t = decodeTags(v) {
                        tags = t
                    } else {
                        ok = false
                    }
                case .dependencies:
                    if nodes[v].kind == .map {
                        dependenciesNode = v
                        dependencyProblemsAt = diagnostics.count
                    } else {
                        failField("Dependencies", "must be a map", v)
                        ok = false
                    }
                case .lifestyle:
                    if nodes[v].kind == .string, let l = lifestyleNamed(v) {
                        lifestyle = l
                    } else {
                        failLifestyle(v)
                        ok = false
                    }
                case .eager:
                    if nodes[v].kind == .bool {
                        eager = (nodes[v].bool, v)
                    } else {
                        failField("Eager", "must be true or false", v)
                        ok = false
                    }
                case .unknown:
                    failUnknownKey(k)
                    ok = false
                }
            }
            // The record's head, then its dependencies (written, and checked, even when the
            // entry is already invalid: every problem is reported).
            var record: Int?
            if classNode >= 0 {
                record = writer.begin(
                    name: bytes(nameNode), className: bytes(classNode),
                    description: descriptionNode >= 0 ? bytes(descriptionNode) : nil, tag: tag, tags: tags, lifestyle: lifestyle,
                    eager: eager?.0 ?? false, line: line, column: column)
            }
            if dependenciesNode >= 0 {
                let before = diagnostics.count
                writer.count(nodes[dependenciesNode].count)
                if !writeMap(dependenciesNode, depth: 1) { ok = false }
                if diagnostics.count > before && dependencyProblemsAt < before {
                    moveDependencyProblems(from: before, to: dependencyProblemsAt)
                }
            } else {
                writer.count(0)
            }
            guard record != nil else {
                if ok { failNoClassName(valueNode) }
                return nil
            }
            if let (isEager, node) = eager, isEager, lifestyle != .singleton {
                failEagerNotSingleton(node)
                ok = false
            }
            guard ok, !doc.hasDuplicateKey(inside: valueNode) else { return nil }
            return record
        }

        // The problems of `writeEntry`, out of line: its per-entry code stays small.

        /// An entry's value that is neither a class name nor a map (`node`).
        @inline(never)
        mutating func failEntryKind(_ node: Int) {
            fail(
                .schema,
                "entry '\(currentEntry)' must be a class name (a string) or a map with ClassName, found \(kindName(node))",
                node)
        }

        /// A `Lifestyle` value (`node`) that names none.
        @inline(never)
        mutating func failLifestyle(_ v: Int) {
            let text = nodes[v].kind == .string ? "'\(doc.string(at: v))'" : kindName(v)
            let suggestion =
                nodes[v].kind == .string
                ? Suggestions.closest(to: doc.string(at: v), in: Lifestyle.allCases.map(\.rawValue)) : nil
            fail(
                .schema,
                "Lifestyle of entry '\(currentEntry)' must be transient, singleton or graph, found \(text)\(Suggestions.hint(suggestion))",
                v,
                suggestion: suggestion)
        }

        /// An entry key (`k`) the schema does not know, with the closest known one.
        @inline(never)
        mutating func failUnknownKey(_ k: Int) {
            let key = bytes(k)
            let suggestion: String?
            if let last = lastUnknownKey, last.key.count == key.count,
                key.count == 0
                    || last.key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0 })
            {
                suggestion = last.suggestion
            } else {
                suggestion = Suggestions.closest(to: doc.string(at: k), in: EntryDecoder.entryKeys)
                lastUnknownKey = (Array(key), suggestion)
            }
            // Recorded as its pieces: the words are written when the message is read.
            diagnostics.append(
                Diagnostic(
                    .schema, form: .unknownEntryKey, entry: bytes(currentEntryNode), key: key,
                    name: UnsafeBufferPointer(start: nil, count: 0), at: doc.location(of: k), suggestion: suggestion,
                    in: text().problemStore))
        }

        /// Moves the problems found in the dependencies (from `before` on) to where the
        /// Dependencies key was written among the entry's keys (`at`).
        @inline(never)
        mutating func moveDependencyProblems(from before: Int, to at: Int) {
            let moved = diagnostics[before...]
            diagnostics.removeSubrange(before...)
            diagnostics.insert(contentsOf: moved, at: at)
        }

        /// An entry map (`node`) without a `ClassName`.
        @inline(never)
        mutating func failNoClassName(_ node: Int) {
            fail(.schema, "entry '\(currentEntry)' has no ClassName", node)
        }

        /// An `Eager: true` (`node`) on an entry that is not a singleton.
        @inline(never)
        mutating func failEagerNotSingleton(_ node: Int) {
            fail(.schema, "entry '\(currentEntry)' is Eager but not a singleton (add Lifestyle: singleton)", node)
        }

        /// The lifestyle string node `node` names, by its bytes; nil for any other text. Inline:
        /// a call copied the whole decoder to pass it, for every entry with a `Lifestyle`.
        @inline(__always) func lifestyleNamed(_ node: Int) -> Lifestyle? {
            if equals(node, "singleton") { return .singleton }
            if equals(node, "transient") { return .transient }
            if equals(node, "graph") { return .graph }
            return nil
        }

        /// A string or integer node as a tag, else nil.
        func scalarTag(_ n: Int) -> EntryTag? {
            switch nodes[n].kind {
            case .string: return .string(doc.string(at: n))
            case .int: return .int(nodes[n].int)
            default: return nil
            }
        }

        /// An entry's `Tag` list (a scalar is `scalarTag`'s; nil, reported, otherwise).
        mutating func decodeTags(_ node: Int) -> [EntryTag]? {
            func one(_ n: Int) -> EntryTag? { scalarTag(n) }
            guard nodes[node].kind == .list else {
                fail(
                    .schema,
                    "Tag of entry '\(currentEntry)' must be a string, an integer or a list of them (Tag: [a, b]), found \(kindName(node))",
                    node)
                return nil
            }
            var tags: [EntryTag] = []
            var ok = true
            for e in doc.elements(of: node) {
                if let t = one(e) {
                    tags.append(t)
                } else {
                    fail(
                        .schema,
                        "a tag in the Tag list of entry '\(currentEntry)' must be a string or an integer, found \(kindName(e)); write Tag: [a, b]",
                        e)
                    ok = false
                }
            }
            return ok ? tags : nil
        }

        /// Writes a map's pairs (each key and value; its count is written before); false when a
        /// value has a problem (reported).
        mutating func writeMap(_ map: Int, depth: Int) -> Bool {
            var ok = true
            var next = map + 1
            let end = Int(nodes[map].extent)
            var position = depth == 1 ? 0 : -1
            while next < end {
                let k = next, v = next + 1
                next = self.next(after: v)
                if depth == 1 { currentKeyNode = k }
                writer.key(bytes(k), position: position, line: Int(nodes[k].line), column: Int(nodes[k].column))
                if depth == 1 { position += 1 }
                writeValue(v, depth: depth, ok: &ok)
            }
            return ok
        }

        /// A map read by the dependency rule: a form (`{Provider: Name}`), a misspelt form (reported),
        /// or nil for a plain map. `.some(nil)` is a broken form (reported).
        mutating func decodeForm(_ node: Int) -> DependencyValue?? {
            let pairs = doc.pairs(of: node)
            let document = doc
            switch DependencyRule.reading(ofMapWithKeys: pairs.lazy.map { document.string(at: $0.key) }) {
            case .plain:
                return nil
            case .misspelt(let key, let form):
                let k = pairs.first { doc.string(at: $0.key) == key }!.key
                ProblemText.misspeltForm(
                    key: key, form: form, entry: bytes(currentEntryNode), dependency: bytes(currentKeyNode), into: text())
                failWritten(.schema, k, suggestion: form.rawValue)
                return .some(nil)
            case .form(.env):
                return decodeEnvForm(node)
            case .form(let form):
                let target = pairs.first { doc.string(at: $0.key) == form.rawValue }!.value
                if let problem = DependencyRule.formProblem(form, keyCount: pairs.count, targetKind: valueKind(target)) {
                    failInDependency(.schema, problem, pairs.count == 1 + form.extraKeys.count ? target : node)
                    return .some(nil)
                }
                if nodes[target].kind == .int {
                    return DependencyRule.form(form, integerTarget: nodes[target].int, at: doc.location(of: target))
                }
                return DependencyRule.form(form, target: doc.string(at: target), at: doc.location(of: target))
            }
        }

        /// A map of one pair read as `decodeForm` reads it, from its key's bytes (no pairs array, no
        /// `String` per key or target: most forms are written so), and written (or its problem
        /// reported, with a null written and `ok` false); false, having done nothing, when it is
        /// read as `decodeForm` reads it (a plain map, an `Env` form, a non-ASCII key).
        mutating func writeOneKeyForm(_ node: Int, ok: inout Bool) -> Bool {
            let key = node + 1, target = node + 2
            guard let reading = DependencyRule.reading(ofOneKey: bytes(key)) else { return false }
            switch reading {
            case .plain, .form(.env):
                return false
            case .misspelt(let k, let form):
                ProblemText.misspeltForm(
                    key: k, form: form, entry: bytes(currentEntryNode), dependency: bytes(currentKeyNode), into: text())
                failWritten(.schema, key, suggestion: form.rawValue)
            case .form(let form):
                if let problem = DependencyRule.formProblem(form, keyCount: 1, targetKind: valueKind(target)) {
                    failInDependency(.schema, problem, target)
                } else if nodes[target].kind == .int {
                    writer.value(DependencyRule.form(form, integerTarget: nodes[target].int, at: doc.location(of: target)))
                    return true
                } else {
                    let t = nodes[target]
                    writer.form(form, target: bytes(target), line: Int(t.line), column: Int(t.column))
                    return true
                }
            }
            ok = false
            writer.null()
            return true
        }

        /// A map read as `{Env: NAME, Type: T, Default: D}`: its value, or `.some(nil)` after
        /// reporting what is wrong. Outlined, to keep `writeValue` small.
        @inline(never)
        mutating func decodeEnvForm(_ node: Int) -> DependencyValue?? {
            let pairs = doc.pairs(of: node)
            let described = pairs.map { (key: doc.string(at: $0.key), kind: valueKind($0.value), scalar: scalar($0.value)) }
            let name = pairs.first { doc.string(at: $0.key) == DependencyRule.Form.env.rawValue }!.value
            switch DependencyRule.envForm(described, at: doc.location(of: name)) {
            case .success(let value):
                return .env(value)
            case .failure(let problem):
                let pair = pairs[problem.pair]
                failInDependency(.schema, problem.message, problem.atKey ? pair.key : pair.value, suggestion: problem.suggestion)
                return .some(nil)
            }
        }

        /// A string, integer, number or boolean node as an `Env` form's scalar, else nil.
        func scalar(_ node: Int) -> EnvScalar? {
            let n = nodes[node]
            switch n.kind {
            case .string: return .string(doc.string(at: node))
            case .int: return .int(n.int)
            case .double: return .double(n.double)
            case .bool: return .bool(n.bool)
            default: return nil
            }
        }

        /// Writes the literal string node `node` (its text starts with `@`): the text without the
        /// mark, or, when it holds `${`, a `.template` kept as written to be substituted at commit.
        mutating func writeLiteral(_ node: Int) {
            let b = bytes(node)
            if EnvTemplate.isTemplate(UnsafeRawBufferPointer(b)) {
                writer.value(.template(doc.stringDroppingFirst(at: node), at: doc.location(of: node)))
            } else if b.count > 1 && b[1] >= 0x80 {
                // The mark and what follows may be one Character: dropped as `String.dropFirst` does.
                writer.value(.string(doc.stringDroppingFirst(at: node)))
            } else {
                writer.literal(UnsafeBufferPointer(rebasing: b.dropFirst()))
            }
        }

        /// A list or map value (`node`, at `depth`) nested past `DependencyValue.maxNesting`, or past
        /// what the thread's stack holds (out of line: `writeValue` stays small).
        @inline(never)
        mutating func failNesting(_ node: Int, depth: Int) {
            if depth > DependencyValue.maxNesting {
                fail(
                    .limit,
                    "a dependency value nests deeper than \(DependencyValue.maxNesting) levels \(DependencyValue.tooDeepFix)",
                    node)
            } else {
                fail(
                    .limit,
                    "a dependency value nests too deeply for this thread's stack" + StackGuard.fix("flatten the value"),
                    node)
            }
        }

        /// Writes the dependency value at `node`; on a problem (reported) a null, with `ok` set
        /// to false. Inline: the scalars (most values) are written where a map's or list's loop
        /// reads them, without a call each; lists and maps go to `writeContainer`.
        @inline(__always)
        mutating func writeValue(_ node: Int, depth: Int, ok: inout Bool) {
            let n = nodes[node]
            switch n.kind {
            case .null: writer.null()
            case .bool: writer.bool(n.bool)
            case .int: writer.int(n.int)
            case .double: writer.double(n.double)
            case .string:
                // The rule (`DependencyRule.value(ofString:)`) read from the bytes.
                if n.extent > 0 && strings[Int(n.payload)] == DependencyRule.literalMark {
                    writeLiteral(node)
                } else {
                    writer.reference(bytes(node), line: Int(n.line), column: Int(n.column))
                }
            case .list, .map:
                writeContainer(node, depth: depth, ok: &ok)
            }
        }

        /// `writeValue` of a list or map at `node`.
        @inline(never)
        mutating func writeContainer(_ node: Int, depth: Int, ok: inout Bool) {
            let n = nodes[node]
            // Values are walked recursively from here on (decoding, compiling, comparing,
            // creating): a fixed ceiling and the stack guard keep any input from overflowing
            // the stack, whatever the document's depth limit is set to.
            if depth > DependencyValue.maxNesting || !StackGuard.hasRoom() {
                failNesting(node, depth: depth)
                ok = false
                writer.null()
                return
            }
            if n.kind == .list {
                writer.list(n.count, depth: depth)
                var itemsOK = true
                var next = node + 1
                let end = Int(n.extent)
                while next < end {
                    writeValue(next, depth: depth + 1, ok: &itemsOK)
                    next = self.next(after: next)
                }
                if !itemsOK { ok = false }
                return
            }
            // A map.
            if n.count == 1 && writeOneKeyForm(node, ok: &ok) { return }
            if let form = decodeForm(node) {
                guard let form else {
                    ok = false
                    writer.null()
                    return
                }
                writer.value(form)
                return
            }
            writer.map(n.count, depth: depth)
            if !writeMap(node, depth: depth + 1) { ok = false }
        }
    }
}

/// The keys of an entry map.
private enum EntryKey {
    case className, description, tag, dependencies, lifestyle, eager, unknown
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
