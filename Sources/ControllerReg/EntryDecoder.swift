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
    /// The keys an entry map may have.
    public static let entryKeys = ["ClassName", "Description", "Tag", "Dependencies", "Lifestyle", "Eager"]

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
        var d = Decoder(doc: doc)
        d.diagnostics = doc.problems
        d.run()
        return Result(entries: d.entries, diagnostics: d.diagnostics, invalidNames: d.invalidNames)
    }

    private struct Decoder {
        let doc: ConfigDocument
        var entries: [EntryDefinition] = []
        var diagnostics: [Diagnostic] = []
        var invalidNames: [String] = []
        /// Strings made from the document's bytes, remembered by those bytes (direct-mapped):
        /// dependency keys, class names and references repeat, and a hit costs a hash and a
        /// `memcmp` instead of a validated `String` (and shares the storage of a long one).
        /// The entry and dependency key being decoded: a dependency problem names them, in the
        /// words the transaction uses for the same problem from another door.
        var currentEntry = "", currentKey = ""
        var cacheOffsets = [UInt32](repeating: 0, count: Decoder.cacheSlots)
        var cacheLengths = [UInt32](repeating: UInt32.max, count: Decoder.cacheSlots)
        var cacheValues = [String](repeating: "", count: Decoder.cacheSlots)
        static let cacheSlots = 512

        init(doc: ConfigDocument) {
            self.doc = doc
        }

        /// The text of string node `node`, as `doc.string(at:)`, through the cache.
        mutating func cachedString(_ node: Int) -> String {
            let n = doc.nodes[node]
            let offset = Int(n.payload), length = Int(n.extent)
            if length > 64 { return doc.string(at: node) }
            let (slot, hit) = doc.strings.withUnsafeBufferPointer { all -> (Int, Bool) in
                let p = all.baseAddress! + offset
                // Slot from the length and the first and last 8 bytes (two unaligned loads, no
                // loop); strings shorter than 8 bytes are masked to their length.
                let raw = UnsafeRawPointer(p)
                var first: UInt64 = 0, last: UInt64 = 0
                if length >= 8 {
                    first = raw.loadUnaligned(as: UInt64.self)
                    last = (raw + (length - 8)).loadUnaligned(as: UInt64.self)
                } else if offset + 8 <= all.count {
                    first = raw.loadUnaligned(as: UInt64.self) & ((1 << UInt64(8 * length)) &- 1)
                } else {
                    for i in 0..<length { first |= UInt64(p[i]) << UInt64(8 * i) }
                }
                let h =
                    (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ (UInt64(length) &* 0x1656_67B1_9E37_79F9)
                let slot = Int(truncatingIfNeeded: h >> 40) & (Decoder.cacheSlots - 1)
                let hit =
                    cacheLengths[slot] == UInt32(length)
                    && (length == 0 || memcmp(all.baseAddress! + Int(cacheOffsets[slot]), p, length) == 0)
                return (slot, hit)
            }
            if hit { return cacheValues[slot] }
            let text = doc.string(at: node)
            cacheOffsets[slot] = UInt32(truncatingIfNeeded: offset)
            cacheLengths[slot] = UInt32(length)
            cacheValues[slot] = text
            return text
        }

        mutating func fail(_ code: ErrorCode, _ message: String, _ node: Int, suggestion: String? = nil) {
            diagnostics.append(Diagnostic(code, message, at: doc.location(of: node), suggestion: suggestion))
        }

        /// The kind of node `node` as a value kind.
        func valueKind(_ node: Int) -> ValueKind {
            switch doc.nodes[node].kind {
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

        mutating func run() {
            guard let root = doc.root else {
                diagnostics.append(
                    Diagnostic(
                        .schema, "the config is empty: expected a map from entry names to entries",
                        at: SourceLocation(file: doc.file, line: 1, column: 1)))
                return
            }
            guard doc.nodes[root].kind == .map else {
                fail(.schema, "the top level must be a map from entry names to entries, found \(kindName(root))", root)
                return
            }
            let pairs = doc.pairs(of: root)
            entries.reserveCapacity(pairs.count)
            for (key, value) in pairs {
                // A repeated entry name is already reported (the document's problems); the first stays.
                if doc.isDuplicateKey(key) { continue }
                if let entry = decodeEntry(nameNode: key, valueNode: value) {
                    entries.append(entry)
                } else {
                    invalidNames.append(doc.string(at: key))
                }
            }
        }

        mutating func decodeEntry(nameNode: Int, valueNode: Int) -> EntryDefinition? {
            // Names are checked (not empty, no NUL byte) by the transaction, as for every door.
            let name = doc.string(at: nameNode)
            let location = doc.location(of: nameNode)
            switch doc.nodes[valueNode].kind {
            case .string:
                return EntryDefinition(name: name, className: cachedString(valueNode), location: location)
            case .map:
                break
            default:
                fail(
                    .schema,
                    "entry '\(name)' must be a class name (a string) or a map with ClassName, found \(kindName(valueNode))",
                    valueNode)
                return nil
            }
            var className: String?
            var description: String?
            var tags: [EntryTag] = []
            var dependencies: [Dependency] = []
            var lifestyle = Lifestyle.transient
            var eager: (Bool, Int)?
            var ok = true
            // Pairs walked in place (no array of pairs per entry).
            var next = valueNode + 1
            let end = Int(doc.nodes[valueNode].extent)
            while next < end {
                let k = next, v = next + 1
                next = doc.next(after: v)
                // Dispatch on the key's bytes: no String per key unless it is unknown.
                switch EntryKey(doc, k) {
                case .className:
                    if doc.nodes[v].kind == .string {
                        className = cachedString(v)
                    } else {
                        fail(.schema, "ClassName of entry '\(name)' must be a string, found \(kindName(v))", v)
                        ok = false
                    }
                case .description:
                    if doc.nodes[v].kind == .string {
                        description = doc.string(at: v)
                    } else {
                        fail(.schema, "Description of entry '\(name)' must be a string, found \(kindName(v))", v)
                        ok = false
                    }
                case .tag:
                    if let t = decodeTags(v, entry: name) { tags = t } else { ok = false }
                case .dependencies:
                    if doc.nodes[v].kind == .map {
                        currentEntry = name
                        guard let deps = decodeMap(v) else {
                            ok = false
                            break
                        }
                        dependencies = deps
                    } else {
                        fail(.schema, "Dependencies of entry '\(name)' must be a map, found \(kindName(v))", v)
                        ok = false
                    }
                case .lifestyle:
                    if doc.nodes[v].kind == .string, let l = Lifestyle(rawValue: doc.string(at: v)) {
                        lifestyle = l
                    } else {
                        let text = doc.nodes[v].kind == .string ? "'\(doc.string(at: v))'" : kindName(v)
                        let suggestion =
                            doc.nodes[v].kind == .string
                            ? Suggestions.closest(to: doc.string(at: v), in: Lifestyle.allCases.map(\.rawValue)) : nil
                        fail(
                            .schema,
                            "Lifestyle of entry '\(name)' must be transient, singleton or graph, found \(text)\(Suggestions.hint(suggestion))",
                            v,
                            suggestion: suggestion)
                        ok = false
                    }
                case .eager:
                    if doc.nodes[v].kind == .bool {
                        eager = (doc.nodes[v].bool, v)
                    } else {
                        fail(.schema, "Eager of entry '\(name)' must be true or false, found \(kindName(v))", v)
                        ok = false
                    }
                case .unknown:
                    let key = doc.string(at: k)
                    let suggestion = Suggestions.closest(to: key, in: EntryDecoder.entryKeys)
                    fail(
                        .schema,
                        "unknown key '\(key)' in entry '\(name)'\(Suggestions.hint(suggestion)); allowed keys are \(EntryDecoder.entryKeys.joined(separator: ", "))",
                        k,
                        suggestion: suggestion)
                    ok = false
                }
            }
            guard let cls = className else {
                if ok { fail(.schema, "entry '\(name)' has no ClassName", valueNode) }
                return nil
            }
            if let (isEager, node) = eager, isEager, lifestyle != .singleton {
                fail(.schema, "entry '\(name)' is Eager but not a singleton (add Lifestyle: singleton)", node)
                ok = false
            }
            guard ok, !doc.hasDuplicateKey(inside: valueNode) else { return nil }
            return EntryDefinition(
                name: name, className: cls, description: description, tags: tags,
                dependencies: dependencies, lifestyle: lifestyle, eager: eager?.0 ?? false,
                location: location)
        }

        /// An entry's `Tag`: a string, an integer, or a list of them (nil, reported, otherwise).
        mutating func decodeTags(_ node: Int, entry name: String) -> [EntryTag]? {
            func one(_ n: Int) -> EntryTag? {
                switch doc.nodes[n].kind {
                case .string: return .string(doc.string(at: n))
                case .int: return .int(doc.nodes[n].int)
                default: return nil
                }
            }
            if let t = one(node) { return [t] }
            guard doc.nodes[node].kind == .list else {
                fail(
                    .schema,
                    "Tag of entry '\(name)' must be a string, an integer or a list of them (Tag: [a, b]), found \(kindName(node))",
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
                        "a tag in the Tag list of entry '\(name)' must be a string or an integer, found \(kindName(e)); write Tag: [a, b]",
                        e)
                    ok = false
                }
            }
            return ok ? tags : nil
        }

        mutating func decodeMap(_ map: Int, depth: Int = 1) -> [Dependency]? {
            var result: [Dependency] = []
            result.reserveCapacity(doc.nodes[map].count)
            var ok = true
            var next = map + 1
            let end = Int(doc.nodes[map].extent)
            while next < end {
                let k = next, v = next + 1
                next = doc.next(after: v)
                let key = cachedString(k)
                if depth == 1 { currentKey = key }
                // Not an optional result: a `DependencyValue?` moved through here was copied by a
                // generic (metadata-driven) outlined copy, a measurable cost per dependency.
                let value = decodeValue(v, depth: depth, ok: &ok)
                result.append(Dependency(key: key, value: value, location: doc.location(of: k)))
            }
            return ok ? result : nil
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
                fail(
                    .schema,
                    "entry '\(currentEntry)', key '\(currentKey)': " + DependencyRule.misspeltMessage(key: key, form: form), k,
                    suggestion: form.rawValue)
                return .some(nil)
            case .form(.env):
                return decodeEnvForm(node)
            case .form(let form):
                let target = pairs.first { doc.string(at: $0.key) == form.rawValue }!.value
                if let problem = DependencyRule.formProblem(form, keyCount: pairs.count, targetKind: valueKind(target)) {
                    fail(
                        .schema, "entry '\(currentEntry)', key '\(currentKey)': " + problem,
                        pairs.count == 1 + form.extraKeys.count ? target : node)
                    return .some(nil)
                }
                if doc.nodes[target].kind == .int {
                    return DependencyRule.form(form, integerTarget: doc.nodes[target].int, at: doc.location(of: target))
                }
                return DependencyRule.form(form, target: doc.string(at: target), at: doc.location(of: target))
            }
        }

        /// A map read as `{Env: NAME, Type: T, Default: D}`: its value, or `.some(nil)` after
        /// reporting what is wrong. Outlined, to keep `decodeValue` (inlined into the common path) small.
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
                fail(
                    .schema, "entry '\(currentEntry)', key '\(currentKey)': " + problem.message,
                    problem.atKey ? pair.key : pair.value, suggestion: problem.suggestion)
                return .some(nil)
            }
        }

        /// The literal string node `node` (its text starts with `@`): a `.string` without the mark,
        /// or, when it holds `${`, a `.template` kept as written to be substituted at commit.
        @inline(never)
        func literal(_ node: Int) -> DependencyValue {
            let text = doc.stringDroppingFirst(at: node)
            if doc.withBytes(of: node, { EnvTemplate.isTemplate(UnsafeRawBufferPointer($0)) }) {
                return .template(text, at: doc.location(of: node))
            }
            return .string(text)
        }

        /// A string, integer, number or boolean node as an `Env` form's scalar, else nil.
        func scalar(_ node: Int) -> EnvScalar? {
            let n = doc.nodes[node]
            switch n.kind {
            case .string: return .string(doc.string(at: node))
            case .int: return .int(n.int)
            case .double: return .double(n.double)
            case .bool: return .bool(n.bool)
            default: return nil
            }
        }

        /// The dependency value at `node`; on a problem (reported) `.null`, with `ok` set to false.
        mutating func decodeValue(_ node: Int, depth: Int, ok: inout Bool) -> DependencyValue {
            let n = doc.nodes[node]
            if n.isContainer {
                // Values are walked recursively from here on (decoding, compiling, comparing,
                // creating): a fixed ceiling and the stack guard keep any input from overflowing
                // the stack, whatever the document's depth limit is set to.
                if depth > DependencyValue.maxNesting {
                    fail(.limit, "a dependency value nests deeper than \(DependencyValue.maxNesting) levels", node)
                    ok = false
                    return .null
                }
                if !StackGuard.hasRoom() {
                    fail(.limit, "a dependency value nests too deeply for this thread's stack", node)
                    ok = false
                    return .null
                }
            }
            switch n.kind {
            case .null: return .null
            case .bool: return .bool(n.bool)
            case .int: return .int(n.int)
            case .double: return .double(n.double)
            case .string:
                // The rule (`DependencyRule.value(ofString:)`) read from the bytes: a literal's text
                // is taken without its mark in one copy; a reference's through the cache.
                if doc.firstByte(at: node) == DependencyRule.literalMark { return literal(node) }
                return .reference(cachedString(node), at: doc.location(of: node))
            case .list:
                var items: [DependencyValue] = []
                var itemsOK = true
                for e in doc.elements(of: node) { items.append(decodeValue(e, depth: depth + 1, ok: &itemsOK)) }
                if !itemsOK { ok = false }
                return .list(items)
            case .map:
                if let form = decodeForm(node) {
                    guard let form else {
                        ok = false
                        return .null
                    }
                    return form
                }
                guard let deps = decodeMap(node, depth: depth + 1) else {
                    ok = false
                    return .null
                }
                return .map(deps)
            }
        }
    }
}

/// The keys of an entry map, recognised from their bytes.
private enum EntryKey {
    case className, description, tag, dependencies, lifestyle, eager, unknown

    init(_ doc: ConfigDocument, _ node: Int) {
        if doc.stringEquals(node, "ClassName") {
            self = .className
        } else if doc.stringEquals(node, "Dependencies") {
            self = .dependencies
        } else if doc.stringEquals(node, "Description") {
            self = .description
        } else if doc.stringEquals(node, "Tag") {
            self = .tag
        } else if doc.stringEquals(node, "Lifestyle") {
            self = .lifestyle
        } else if doc.stringEquals(node, "Eager") {
            self = .eager
        } else {
            self = .unknown
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
