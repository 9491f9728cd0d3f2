#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one rule for what a dependency value means, shared by every door into a registry: the
/// entry decoder (config files), `Registry.add` (entries built in Swift), the C ABI's
/// `cr_add_entry` (host values) and, inverted, the tool when it writes a config.
///
/// - A string that starts with `@` is a literal string without the `@` (`"@"` alone is `""`);
///   any other string is a reference to an entry.
/// - A map with one key naming a form (`Form`) is that form: `{Provider: Name}`, `{Tagged: tag}`,
///   `{Optional: Name}`; a key that names a form in another case (`{provider: X}`) is a mistake,
///   never a plain map.
/// - Lists and other maps hold values read by the same rule.
///
/// Problems are found in two places only: the shape of a form while a value is read
/// (`formProblem`), and the contents of the resulting `DependencyValue` (`problems(of:)`, run by
/// the registry's transaction for every door). Messages come from here, so each door gives the
/// same code and words.
public enum DependencyRule {
    /// The map forms of a dependency value, by their key. A later form is added as a case here,
    /// with its extra keys, its target kinds (`formProblem`) and its reading (`form(_:target:)`).
    public enum Form: String, CaseIterable, Sendable {
        /// `{Provider: Name}`: a factory for entry `Name`.
        case provider = "Provider"
        /// `{Tagged: tag}`: the objects of every entry whose tags include `tag` (a string or an
        /// integer), as a list ordered by entry name.
        case tagged = "Tagged"
        /// `{Optional: Name}`: the object of entry `Name` when it exists, else null.
        case optional = "Optional"
        /// `{Env: NAME, Type: int, Default: 8080}`: an environment variable converted at load.
        case env = "Env"

        /// Keys the form's map may hold besides its own (none for a provider, a tagged list or an
        /// optional reference; `Type` and `Default`, both optional, for `Env`).
        public var extraKeys: [String] {
            switch self {
            case .provider, .tagged, .optional: return []
            case .env: return ["Type", "Default"]
            }
        }

        /// How the form is written, for messages.
        public var example: String {
            switch self {
            case .provider: return "{Provider: EntryName}"
            case .tagged: return "{Tagged: tag}"
            case .optional: return "{Optional: EntryName}"
            case .env: return "{Env: NAME, Type: int, Default: 8080}"
            }
        }

        /// What the form is called in messages ("a provider").
        var noun: String {
            switch self {
            case .provider: return "a provider"
            case .tagged: return "a tagged list"
            case .optional: return "an optional reference"
            case .env: return "an environment value"
            }
        }
    }

    /// How a map written as a dependency value is read.
    public enum MapReading: Equatable, Sendable {
        /// An ordinary map of named values.
        case plain
        /// A form: the map has the form's key (and perhaps others, checked by `formProblem`).
        case form(Form)
        /// A key that names a form in the wrong case (`provider`): reported, never read as a map.
        case misspelt(key: String, form: Form)
    }

    /// Reads a map by its keys. A key naming a form in another case counts as a mistake only when
    /// the map has the form's shape: `{provider: X}` alone, or `{env: X}` with at least one of
    /// `Type`/`Default` (in any case) and no other key; `{provider: aws, region: eu}` and
    /// `{env: prod}` are plain maps.
    public static func reading(ofMapWithKeys keys: some Sequence<String>) -> MapReading {
        var misspelt: (String, Form)?
        var others: [String] = []
        for key in keys {
            if let form = Form(rawValue: key) { return .form(form) }
            if misspelt == nil, let form = Form.allCases.first(where: { sameIgnoringCase(key, $0.rawValue) }) {
                misspelt = (key, form)
            } else {
                others.append(key)
            }
        }
        guard let (key, form) = misspelt else { return .plain }
        let extras = form.extraKeys
        let shaped =
            extras.isEmpty
            ? others.isEmpty
            : !others.isEmpty && others.count <= extras.count
                && others.allSatisfy { o in extras.contains { sameIgnoringCase(o, $0) } }
        return shaped ? .misspelt(key: key, form: form) : .plain
    }

    /// `reading(ofMapWithKeys:)` of a map whose one key is `key`, read from its bytes (the entry
    /// decoder's forms: no `String` per key); nil when they are not all ASCII (read the `String`
    /// then: a non-ASCII key may still lower-case to a form's name).
    static func reading(ofOneKey key: UnsafeBufferPointer<UInt8>) -> MapReading? {
        for b in key where b >= 0x80 { return nil }
        let names = formNames
        for (form, name) in names
        where name.count == key.count && RawMapSlot.equalBytes(name.baseAddress!, key.baseAddress!, key.count) {
            return .form(form)
        }
        // A form's key in another case, with no other key: a mistake for a form without extra
        // keys (an `Env` form's other keys are what makes `{env: X}` one).
        for (form, name) in names where name.count == key.count {
            if Suggestions.equalIgnoringCase(name, key) {
                return form.extraKeys.isEmpty ? .misspelt(key: String(decoding: key, as: UTF8.self), form: form) : .plain
            }
        }
        return .plain
    }

    /// Each form with its key's bytes (kept for the life of the process).
    nonisolated(unsafe) private static let formNames: [(Form, UnsafeBufferPointer<UInt8>)] = Form.allCases.map { form in
        let bytes = Array(form.rawValue.utf8)
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        p.initialize(from: bytes, count: bytes.count)
        return (form, UnsafeBufferPointer(start: p, count: bytes.count))
    }

    /// `key.lowercased() == name.lowercased()` for a `name` of ASCII letters (a form or one of its
    /// keys), without making either string when `key` is ASCII too (the usual case: no
    /// allocation per key of every map a config holds).
    private static func sameIgnoringCase(_ key: String, _ name: String) -> Bool {
        let ascii = Suggestions.withBytes(of: key) { k -> Bool? in
            guard k.allSatisfy({ $0 < 0x80 }) else { return nil }
            return Suggestions.withBytes(of: name) { n in
                k.count == n.count && Suggestions.equalIgnoringCase(k, n)
            }
        }
        return ascii ?? (key.lowercased() == name.lowercased())
    }

    /// A string by the rule: `"@text"` is the literal `text` (a `.template` when it holds `${`, to
    /// be substituted at load), anything else a reference (checked later by `problems(of:)`: a
    /// reference must not be empty).
    public static func value(ofString text: String, at location: SourceLocation? = nil) -> DependencyValue {
        guard text.utf8.first == literalMark else { return .reference(text, at: location) }
        let literal = String(text.dropFirst())
        return EnvTemplate.isTemplate(literal) ? .template(literal, at: location) : .string(literal)
    }

    /// The first byte that makes a string a literal (`@`); readers that see bytes before a
    /// `String` (the entry decoder) test it to take the literal's text without the mark.
    public static let literalMark = UInt8(ascii: "@")

    /// The problem with a map read as `form`, given its key count and the kind of the form key's
    /// value; nil if it is well-formed (its target is then read with `form(_:target:at:)`).
    public static func formProblem(_ form: Form, keyCount: Int, targetKind: ValueKind) -> String? {
        if keyCount != 1 + form.extraKeys.count {
            return "\(form.noun) is written \(form.example) with no other keys"
        }
        switch form {
        case .tagged:
            if targetKind != .string && targetKind != .int {
                return "Tagged must name one tag (a non-empty string or an integer), found \(kindName(targetKind))"
                    + (targetKind == .list ? "; write one {Tagged: tag} per tag" : "")
            }
        case .provider, .optional, .env:
            if targetKind != .string {
                return "\(form.rawValue) must name an entry (a non-empty string), found \(kindName(targetKind))"
            }
        }
        return nil
    }

    /// The message for a form key in the wrong case.
    public static func misspeltMessage(key: String, form: Form) -> String {
        ProblemText.joined("'", key, misspeltWords, form.example)
    }

    /// The words of `misspeltMessage` between the key and the form's example (the decoder writes
    /// the message with its place in one go: `ProblemText.misspeltForm`).
    static let misspeltWords = "' is not a dependency form: forms are case-sensitive; write "

    /// The value of a well-formed form whose target string is `target` (an `Env` form without
    /// `Type` and `Default`; a whole one is read by `envForm(_:)`).
    public static func form(_ form: Form, target: String, at location: SourceLocation? = nil) -> DependencyValue {
        switch form {
        case .provider: return .provider(target, at: location)
        case .tagged: return .tagged(.string(target), at: location)
        case .optional: return .optional(target, at: location)
        case .env: return .env(EnvValue(name: target, location: location))
        }
    }

    /// The value of a well-formed form whose target is the integer `target`: only `{Tagged: 5}`
    /// takes one (`formProblem` refuses it for the others).
    public static func form(_ form: Form, integerTarget target: Int64, at location: SourceLocation? = nil) -> DependencyValue {
        .tagged(.int(target), at: location)
    }

    /// What is wrong with an `Env` map: the message, the pair it is about, and whether the place
    /// is that pair's key (else its value).
    public struct EnvFormProblem: Error, Sendable {
        /// The problem in words.
        public var message: String
        /// The index of the pair it is about.
        public var pair: Int
        /// Whether the place is the pair's key (else its value).
        public var atKey: Bool
        /// What was probably meant (a key or type name), if something is close.
        public var suggestion: String?
    }

    /// Reads `{Env: NAME, Type: T, Default: D}` from its pairs (each key, its value's kind, and the
    /// value as a scalar when it is a string, integer, number or boolean). Checks the shape: known
    /// keys, `Env` a string, `Type` one of `EnvType`, `Default` a scalar. The name's grammar and
    /// whether the default converts are checked by `problems(of:)` (for every door).
    public static func envForm(
        _ pairs: [(key: String, kind: ValueKind, scalar: EnvScalar?)], at location: SourceLocation? = nil
    ) -> Result<EnvValue, EnvFormProblem> {
        var value = EnvValue(name: "", location: location)
        for (i, p) in pairs.enumerated() {
            switch p.key {
            case "Env":
                guard case .string(let name)? = p.scalar else {
                    return .failure(
                        EnvFormProblem(
                            message: "Env must name an environment variable (a string), found \(kindName(p.kind))", pair: i,
                            atKey: false))
                }
                value.name = name
            case "Type":
                guard case .string(let t)? = p.scalar else {
                    return .failure(
                        EnvFormProblem(
                            message: "Type of an Env value must be string, int, double or bool, found \(kindName(p.kind))",
                            pair: i, atKey: false))
                }
                guard let type = EnvType(rawValue: t) else {
                    let suggestion = EnvType.closest(to: t)
                    return .failure(
                        EnvFormProblem(
                            message:
                                "unknown Type \(EnvValue.quoted(t)) of an Env value\(Suggestions.hint(suggestion)); types are string, int, double and bool",
                            pair: i, atKey: false, suggestion: suggestion))
                }
                value.type = type
            case "Default":
                guard let d = p.scalar else {
                    return .failure(
                        EnvFormProblem(
                            message:
                                "Default of an Env value must be a string, integer, number or boolean, found \(kindName(p.kind))",
                            pair: i, atKey: false))
                }
                value.defaultValue = d
            default:
                let suggestion = Suggestions.closest(to: p.key, in: ["Env"] + Form.env.extraKeys)
                return .failure(
                    EnvFormProblem(
                        message:
                            "unknown key \(EnvValue.quoted(p.key)) in an Env value\(Suggestions.hint(suggestion)); write \(Form.env.example) (Type and Default are optional)",
                        pair: i, atKey: true, suggestion: suggestion))
            }
        }
        return .success(value)
    }

    /// The config value that reads back as `value` (the rule inverted, for writing configs):
    /// a literal gets its `@`, a reference is its name, a form its map (`{Provider: Name}`,
    /// `{Tagged: tag}` with the tag's kind as written, `{Optional: Name}`).
    public static func written(_ value: DependencyValue) -> Value {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string("@" + EnvTemplate.escaped(s))
        case .reference(let name, _): return .string(name)
        case .provider(let name, _): return .map([Form.provider.rawValue: .string(name)])
        case .tagged(.string(let tag), _): return .map([Form.tagged.rawValue: .string(tag)])
        case .tagged(.int(let tag), _): return .map([Form.tagged.rawValue: .int(tag)])
        case .optional(let name, _): return .map([Form.optional.rawValue: .string(name)])
        case .template(let text, _): return .string("@" + text)
        case .env(let e):
            var out: [String: Value] = [Form.env.rawValue: .string(e.name)]
            if e.type != .string { out["Type"] = .string(e.type.rawValue) }
            switch e.defaultValue {
            case .string(let s)?: out["Default"] = .string(s)
            case .int(let i)?: out["Default"] = .int(i)
            case .double(let d)?: out["Default"] = .double(d)
            case .bool(let b)?: out["Default"] = .bool(b)
            case nil: break
            }
            return .map(out)
        case .list(let items): return .list(items.map(written))
        case .map(let deps):
            var out: [String: Value] = [:]
            for d in deps { out[d.key] = written(d.value) }
            return .map(out)
        }
    }

    /// Words for a value kind in messages ("an integer", "a map").
    public static func kindName(_ kind: ValueKind) -> String {
        switch kind {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .list: return "a list"
        case .map: return "a map"
        case .object: return "an object"
        case .provider: return "a provider"
        }
    }

    // MARK: Contents (checked by the transaction, for every door)

    /// The problems of an entry's name, class name and tags (`.schema`), appended to `out` (no
    /// array per entry when there are none). An empty tag, or one holding a NUL byte, is refused
    /// here for every door, as `{Tagged: t}` refuses such a `t`: no tagged list could ever name it.
    static func problems(ofEntry definition: EntryDefinition, into out: inout [Diagnostic]) {
        let name = definition.name
        if name.isEmpty {
            out.append(Diagnostic(.schema, "an entry name must not be empty; give the entry a name", at: definition.location))
        } else if containsNul(name) {
            out.append(Diagnostic(.schema, "entry name '\(name)' contains a NUL byte", at: definition.location))
        }
        if definition.className.isEmpty {
            out.append(
                Diagnostic(
                    .schema, "the class name of entry '\(name)' must not be empty; name the class that builds it",
                    at: definition.location))
        } else if containsNul(definition.className) {
            out.append(Diagnostic(.schema, "the class name of entry '\(name)' contains a NUL byte", at: definition.location))
        }
        for case .string(let tag) in definition.tags {
            if tag.isEmpty {
                out.append(
                    Diagnostic(
                        .schema,
                        "entry '\(name)' has an empty tag: no {Tagged: t} can name it (Tagged needs a non-empty tag); remove it or give it a name",
                        at: definition.location))
            } else if containsNul(tag) {
                out.append(
                    Diagnostic(
                        .schema,
                        ProblemText.joined(
                            "entry '", name, "' has tag '", tag,
                            "' holding a NUL byte: no {Tagged: t} can name it; remove the NUL"),
                        at: definition.location))
            }
        }
    }

    /// Whether a tag might fail `problems(ofEntry:)`: a string tag that is empty or holds a NUL
    /// byte (integer tags never do).
    @inline(__always)
    static func mayBeFlawed(tag: EntryTag) -> Bool {
        guard case .string(let text) = tag else { return false }
        return text.isEmpty || containsNul(text)
    }

    /// Whether a name's bytes might fail the checks above and in `problems(of:)`: empty, holding
    /// a NUL byte, or (`form`: the target of `{Provider: X}` or `{Optional: X}`) starting with
    /// the literal mark. Records that pass this for every name are not decoded to be checked
    /// (`DefinitionCoding.summarize`); the others are, and the messages come from here.
    @inline(__always)
    static func mayBeFlawed(_ bytes: UnsafeBufferPointer<UInt8>, form: Bool) -> Bool {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return true }
        if form && p[0] == literalMark { return true }
        return hasNul(p, bytes.count)
    }

    /// Whether a dependency key's bytes (or a key of a map inside a dependency) might fail
    /// `keyProblem`: holding a NUL byte.
    @inline(__always)
    static func mayBeFlawed(key bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return false }
        return hasNul(p, bytes.count)
    }

    /// Whether the `n` (> 0) bytes at `p` hold a NUL byte. Up to 16 bytes (names, keys, class
    /// names) are read as two overlapping words, each given the zero-byte test, without reading
    /// outside them; longer ones go to `memchr`. Inline: the call to `memchr` cost ~30
    /// instructions a name, three names an entry.
    @inline(__always)
    static func hasNul(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let r = UnsafeRawPointer(p)
        if n >= 8 {
            if n > 16 { return memchr(p, 0, n) != nil }
            let head = r.loadUnaligned(as: UInt64.self)
            let tail = r.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101
            // A word has a zero byte exactly when (w - 0x01..) & ~w has a high bit set.
            return ((head &- ones) & ~head | (tail &- ones) & ~tail) & (ones &* 0x80) != 0
        }
        if n >= 4 {
            let head = r.loadUnaligned(as: UInt32.self)
            let tail = r.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            let ones: UInt32 = 0x0101_0101
            return ((head &- ones) & ~head | (tail &- ones) & ~tail) & (ones &* 0x80) != 0
        }
        // 1 to 3 bytes: offsets 0, n / 2 and n - 1 are all of them.
        return p[0] == 0 || p[n &>> 1] == 0 || p[n &- 1] == 0
    }

    /// The problem of a dependency key, or a key of a map inside a dependency, that holds a NUL
    /// byte (`.schema`): hosts read arguments by NUL-terminated keys (C's `cr_map_get`, and every
    /// binding over it), so no host could ever read that value. Every door's entries are checked
    /// here (`Transaction.check`); C strings cannot carry such a key, the config formats and the
    /// Swift API can.
    static func keyProblem(_ key: String, entry: String, at location: SourceLocation?, into out: inout [Diagnostic]) {
        guard containsNul(key) else { return }
        out.append(
            Diagnostic(
                .schema,
                ProblemText.joined(
                    "entry '", entry, "', key '", key,
                    "': a dependency key must not contain a NUL byte (hosts read arguments by NUL-terminated keys, so none could read it); rename the key"
                ), at: location))
    }

    /// Whether `text` holds a NUL byte: `memchr` over its UTF-8 storage (a native string's is
    /// contiguous), not a byte-by-byte walk through the generic `contains`.
    @inline(__always)
    static func containsNul(_ text: String) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ bytes in
            bytes.count > 0 && memchr(bytes.baseAddress!, 0, bytes.count) != nil
        }) {
            return found
        }
        return text.utf8.contains(0)
    }

    /// The problems inside one dependency value (`.schema`): an empty reference, a NUL byte in a
    /// name, a provider or optional reference of a literal, an empty tag, a malformed `${...}`, a
    /// bad `Env` name or a `Default` that does not convert. `fallback` locates problems whose
    /// value has no location. Sets `usesEnvironment` when the value has something to resolve at
    /// commit. Inlined into the transaction's per-dependency loop, so a scalar (most dependencies)
    /// is checked where it lies instead of being copied for a call.
    @inline(__always)
    static func problems(
        of value: DependencyValue, entry: String, key: String, fallback: SourceLocation?,
        into out: inout [Diagnostic], usesEnvironment: inout Bool
    ) {
        func place(_ pieces: String...) -> String { ProblemText.joined(["entry '", entry, "', key '", key, "': "], pieces) }
        switch value {
        case .template, .env:
            // Outlined: nothing of these cases is bound here, so the common cases are not copied.
            usesEnvironment = true
            environmentProblems(of: value, entry: entry, key: key, fallback: fallback, into: &out)
        case .reference(let name, let at):
            if name.isEmpty {
                out.append(
                    Diagnostic(
                        .schema, place("an empty string is not an entry name; write \"@\" for an empty literal string"),
                        at: at ?? fallback))
            } else if containsNul(name) {
                out.append(
                    Diagnostic(
                        .schema, place("reference '", name, "' contains a NUL byte"), at: at ?? fallback))
            }
        case .provider(let name, let at):
            formTargetProblems(.provider, name, at: at ?? fallback, place: place, into: &out)
        case .optional(let name, let at):
            formTargetProblems(.optional, name, at: at ?? fallback, place: place, into: &out)
        case .tagged(.string(let tag), let at):
            if tag.isEmpty {
                out.append(
                    Diagnostic(
                        .schema, place("Tagged must name one tag (a non-empty string or an integer), found an empty string"),
                        at: at ?? fallback))
            } else if containsNul(tag) {
                out.append(
                    Diagnostic(.schema, place("tag '", tag, "' contains a NUL byte"), at: at ?? fallback))
            }
        case .list(let items):
            for item in items {
                nestedProblems(
                    of: item, entry: entry, key: key, fallback: fallback, into: &out, usesEnvironment: &usesEnvironment)
            }
        case .map(let deps):
            for d in deps {
                keyProblem(d.key, entry: entry, at: d.location ?? fallback, into: &out)
                nestedProblems(
                    of: d.value, entry: entry, key: key, fallback: d.location ?? fallback, into: &out,
                    usesEnvironment: &usesEnvironment)
            }
        default:
            break
        }
    }

    /// The problems of the entry name a `{Provider: Name}` or `{Optional: Name}` holds.
    private static func formTargetProblems(
        _ form: Form, _ name: String, at location: SourceLocation?, place: (String...) -> String,
        into out: inout [Diagnostic]
    ) {
        let key = form.rawValue
        if name.isEmpty {
            out.append(
                Diagnostic(
                    .schema, place(key, " must name an entry (a non-empty string), found an empty string"),
                    at: location))
        } else if name.utf8.first == UInt8(ascii: "@") {
            out.append(
                Diagnostic(
                    .schema, place(key, " must name an entry, not a literal ('", name, "')"), at: location))
        } else if containsNul(name) {
            out.append(Diagnostic(.schema, place(key, " '", name, "' contains a NUL byte"), at: location))
        }
    }

    /// The problems of a `.template` (its `${...}` syntax) or `.env` (its name, and whether its
    /// `Default` converts to its `Type`).
    @inline(never)
    static func environmentProblems(
        of value: DependencyValue, entry: String, key: String, fallback: SourceLocation?, into out: inout [Diagnostic]
    ) {
        func place(_ text: String) -> String { ProblemText.joined("entry '", entry, "', key '", key, "': ", text) }
        switch value {
        case .template(let text, let at):
            if let problem = EnvTemplate.syntaxProblem(text) {
                out.append(Diagnostic(.schema, place("in \(EnvValue.quoted("@" + text)): \(problem)"), at: at ?? fallback))
            }
        case .env(let e):
            if !EnvValue.isValidName(e.name) {
                out.append(
                    Diagnostic(
                        .schema,
                        place(
                            "Env \(EnvValue.quoted(e.name)) is not a variable name: use letters, digits and '_', not starting with a digit"
                        ), at: e.location ?? fallback))
            } else if case .failure(let problem)? = e.convertedDefault() {
                out.append(Diagnostic(.schema, place(problem.text), at: e.location ?? fallback))
            }
        default:
            break
        }
    }

    /// `problems(of:)` of a value inside a list or map (an outlined call, so the recursion stays one).
    @inline(never)
    static func nestedProblems(
        of value: DependencyValue, entry: String, key: String, fallback: SourceLocation?,
        into out: inout [Diagnostic], usesEnvironment: inout Bool
    ) {
        problems(of: value, entry: entry, key: key, fallback: fallback, into: &out, usesEnvironment: &usesEnvironment)
    }
}

/// Reading host values (`Value`, the C ABI's `ValueRef`) as dependency values by the rule.
protocol DependencySource {
    var dependencyKind: ValueKind { get }
    var dependencyString: String? { get }
    /// A boolean or number as a dependency value.
    var scalarDependency: DependencyValue { get }
    /// The elements of a list.
    var dependencyElements: [Self] { get }
    /// The pairs of a map, in the order a dependency keeps them.
    var dependencyPairs: [(key: String, value: Self)] { get }
}

extension DependencyRule {
    /// Reads a host value by the rule. Objects and providers cannot be written in a config and are
    /// `.invalidArgument`; a malformed form is `.schema` with the decoder's words.
    /// `entry` and `key` (when known) name the place in messages, as the transaction does.
    static func read<S: DependencySource>(_ source: S, entry: String?, key: String?) throws(ConfigError) -> DependencyValue {
        func fail(_ code: ErrorCode, _ text: String, suggestion: String? = nil) -> ConfigError {
            ConfigError([
                Diagnostic(code, entry.map { "entry '\($0)', key '\(key ?? "")': \(text)" } ?? text, suggestion: suggestion)
            ])
        }
        switch source.dependencyKind {
        case .null: return .null
        case .bool, .int, .double:
            return source.scalarDependency
        case .string:
            return value(ofString: source.dependencyString ?? "")
        case .list:
            var out: [DependencyValue] = []
            for e in source.dependencyElements { out.append(try read(e, entry: entry, key: key)) }
            return .list(out)
        case .map:
            let pairs = source.dependencyPairs
            switch reading(ofMapWithKeys: pairs.map(\.key)) {
            case .misspelt(let k, let form):
                throw fail(.schema, misspeltMessage(key: k, form: form), suggestion: form.rawValue)
            case .form(.env):
                let described = pairs.map { (key: $0.key, kind: $0.value.dependencyKind, scalar: $0.value.envScalar) }
                switch envForm(described) {
                case .success(let value): return .env(value)
                case .failure(let problem): throw fail(.schema, problem.message, suggestion: problem.suggestion)
                }
            case .form(let form):
                let target = pairs.first { $0.key == form.rawValue }!.value
                if let problem = formProblem(form, keyCount: pairs.count, targetKind: target.dependencyKind) {
                    throw fail(.schema, problem)
                }
                if target.dependencyKind == .int, case .int(let i) = target.scalarDependency {
                    return self.form(form, integerTarget: i)
                }
                return self.form(form, target: target.dependencyString ?? "")
            case .plain:
                var out: [Dependency] = []
                for (k, v) in pairs { out.append(Dependency(key: k, value: try read(v, entry: entry, key: key))) }
                return .map(out)
            }
        case .object, .provider:
            throw fail(
                .invalidArgument,
                "\(kindName(source.dependencyKind)) cannot be a dependency (write literals as \"@text\", references as names)")
        }
    }
}

extension DependencySource {
    /// The value as an `Env` form's scalar (a string, integer, number or boolean), else nil.
    var envScalar: EnvScalar? {
        switch dependencyKind {
        case .string: return dependencyString.map(EnvScalar.string)
        case .bool, .int, .double:
            switch scalarDependency {
            case .bool(let b): return .bool(b)
            case .int(let i): return .int(i)
            case .double(let d): return .double(d)
            default: return nil
            }
        default: return nil
        }
    }
}

extension Value: DependencySource {
    var dependencyKind: ValueKind { kind }
    var dependencyString: String? { if case .string(let s) = self { return s } else { return nil } }
    var scalarDependency: DependencyValue {
        switch self {
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        default: return .null
        }
    }
    var dependencyElements: [Value] { if case .list(let items) = self { return items } else { return [] } }
    /// Sorted by key: a Swift dictionary has no order of its own.
    var dependencyPairs: [(key: String, value: Value)] {
        if case .map(let dict) = self { return dict.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } } else { return [] }
    }
}

extension ValueRef: DependencySource {
    var dependencyKind: ValueKind { kind }
    var dependencyString: String? { string }
    var scalarDependency: DependencyValue {
        switch kind {
        case .bool: return .bool(bool!)
        case .int: return .int(int!)
        case .double: return .double(double!)
        default: return .null
        }
    }
    var dependencyElements: [ValueRef] { (0..<count).compactMap { self[$0] } }
    var dependencyPairs: [(key: String, value: ValueRef)] {
        (0..<count).compactMap { i in key(at: i).flatMap { k in value(at: i).map { (k, $0) } } }
    }
}

extension DependencyValue {
    /// Reads a Swift value by the dependency rule (`DependencyRule`): `"@text"` is a literal, any
    /// other string a reference, `["Provider": "Name"]` a provider, `["Tagged": "t"]` a tagged list,
    /// `["Optional": "Name"]` an optional reference. Objects and providers cannot be
    /// dependencies. Problems in names (an empty reference) are reported when the entry is added.
    public init(reading value: Value) throws(ConfigError) {
        self = try DependencyRule.read(value, entry: nil, key: nil)
    }
}

extension EntryDefinition {
    /// An entry whose dependencies are a host map read by the dependency rule, in the map's order
    /// (the C ABI's `cr_add_entry`). Names are checked when it is added, as for every door.
    package init(name: String, className: String, lifestyle: Lifestyle, reading dependencies: ValueRef?) throws(ConfigError) {
        var deps: [Dependency] = []
        for (key, value) in dependencies?.dependencyPairs ?? [] {
            deps.append(Dependency(key: key, value: try DependencyRule.read(value, entry: name, key: key)))
        }
        self.init(name: name, className: className, dependencies: deps, lifestyle: lifestyle)
    }
}
