/// Resolving an entry's environment values at commit: the one place where `${NAME}` in literal
/// strings and `{Env: NAME, Type: T, Default: D}` become concrete values, for every door (config
/// files, `Registry.add`, `cr_add_entry`). Definitions keep the written form; only the compiled
/// plan holds the result.
///
/// Problems are `ErrorCode.environment` (a variable without a value or default, a value that does
/// not convert), located at the string or the `Env` name, naming the variable and the fix; every
/// one is reported together with the load's other problems. A substituted string longer than the
/// string limit is `ErrorCode.limit`.
struct EnvironmentResolution {
    let lookup: EnvironmentLookup
    let maxStringBytes: Int
    let entry: String
    /// Where the problems' messages are written and recorded (a change's share one buffer and
    /// its store: `Diagnostic(_:written:at:)`; no `String` per message).
    var text = TextBuffer()

    /// Whether two definitions that are equal as written resolve their environment values
    /// differently (each against the environment it was committed with): a reload that reads a
    /// changed environment changes the entry.
    static func valuesDiffer(_ a: EntryDefinition, _ b: EntryDefinition) -> Bool {
        guard a.environment != nil || b.environment != nil else { return false }
        func resolved(_ d: EntryDefinition) -> [Dependency] {
            var ignored: [Diagnostic] = []
            return EnvironmentResolution(
                lookup: d.environment ?? EnvironmentLookup(.process), maxStringBytes: Int.max, entry: d.name
            ).resolve(d.dependencies, into: &ignored)
        }
        return resolved(a) != resolved(b)
    }

    /// `dependencies` with every environment value resolved; problems are appended to `out`.
    func resolve(_ dependencies: [Dependency], into out: inout [Diagnostic]) -> [Dependency] {
        dependencies.map { d in
            var r = d
            r.value = resolve(d.value, key: d.key, fallback: d.location, into: &out)
            return r
        }
    }

    private func resolve(
        _ value: DependencyValue, key: String, fallback: SourceLocation?, into out: inout [Diagnostic]
    )
        -> DependencyValue
    {
        // The place and the words written into `text`, recorded from there.
        func place() -> TextBuffer {
            text.clear()
            text.append("entry '")
            text.append(entry)
            text.append("', key '")
            text.append(key)
            text.append("': ")
            return text
        }
        // A process variable whose value is not UTF-8, used here: a problem, not repaired text.
        func notUTF8(_ name: String, at: SourceLocation?) -> Bool {
            guard let (offset, byte) = lookup.notUTF8(name) else { return false }
            let t = place()
            t.append("environment variable ")
            EnvironmentResolution.appendShown(name, to: t)
            t.append(" is not valid UTF-8 (byte \(offset) is 0x\(byte < 16 ? "0" : "")\(String(byte, radix: 16))): set ")
            EnvironmentResolution.appendShown(name, to: t)
            t.append(" to UTF-8 text")
            out.append(Diagnostic(.environment, written: t, at: at))
            return true
        }
        switch value {
        case .template(let template, let at):
            let substituted = EnvTemplate.substitute(template, maxBytes: maxStringBytes, lookup: lookup.value(of:))
            var refused = false
            if lookup.anyNotUTF8 {
                // Rare: some variable read is not UTF-8. Which of this string's are (each once)?
                var bad: [String] = []
                _ = EnvTemplate.substitute(template, maxBytes: Int.max) { name in
                    if lookup.notUTF8(name) != nil, !bad.contains(name) { bad.append(name) }
                    return nil
                }
                for name in bad where notUTF8(name, at: at ?? fallback) { refused = true }
            }
            switch substituted {
            case .text(let s):
                return refused ? .null : .string(s)
            case .missing(let names, let more):
                let written = "@" + template
                for name in names {
                    let t = place()
                    t.append("environment variable ")
                    EnvironmentResolution.appendShown(name, to: t)
                    t.append(" is not set (in ")
                    EnvironmentResolution.appendQuoted(written, to: t)
                    t.append("): set ")
                    EnvironmentResolution.appendShown(name, to: t)
                    t.append(" or give a default: ${")
                    EnvironmentResolution.appendShown(name, to: t)
                    t.append(":-value}")
                    out.append(Diagnostic(.environment, written: t, at: at ?? fallback))
                }
                if more > 0 {
                    let t = place()
                    t.append(more)
                    t.append(" more environment variables in ")
                    EnvironmentResolution.appendQuoted(written, to: t)
                    t.append(" are not set")
                    out.append(Diagnostic(.environment, written: t, at: at ?? fallback))
                }
            case .tooLong:
                let t = place()
                t.append("the string would be longer than ")
                t.append(maxStringBytes)
                t.append(" bytes after substituting the environment")
                out.append(Diagnostic(.limit, written: t, at: at ?? fallback))
            case .malformed:
                break  // reported by DependencyRule.problems(of:) before resolution
            }
            return .null
        case .env(let e):
            let at = e.location ?? fallback
            if let value = lookup.value(of: e.name), !(value.isEmpty && e.defaultValue != nil) {
                if notUTF8(e.name, at: at) { return .null }
                if value.utf8.count > maxStringBytes {
                    let t = place()
                    t.append("environment variable ")
                    EnvironmentResolution.appendShown(e.name, to: t)
                    t.append(" is longer than ")
                    t.append(maxStringBytes)
                    t.append(" bytes")
                    out.append(Diagnostic(.limit, written: t, at: at))
                    return .null
                }
                switch EnvValue.convert(text: value, to: e.type) {
                case .success(let v):
                    return v
                case .failure(let what):
                    let shown = EnvValue.shown(e.name)
                    let orDefault = e.defaultValue.map { " (or unset it to use the default \($0))" } ?? ""
                    let t = place()
                    t.append(
                        "environment variable \(shown) is \(EnvValue.quoted(value)), not \(what.text): set \(shown) to \(e.type.article)\(orDefault)"
                    )
                    out.append(Diagnostic(.environment, written: t, at: at))
                    return .null
                }
            }
            switch e.convertedDefault() {
            case .success(let v)?:
                return v
            case .failure?:
                return .null  // reported by DependencyRule.problems(of:) before resolution
            case nil:
                let t = place()
                t.append("environment variable ")
                EnvironmentResolution.appendShown(e.name, to: t)
                t.append(" is not set: set ")
                EnvironmentResolution.appendShown(e.name, to: t)
                t.append(" or give a default: {Env: ")
                EnvironmentResolution.appendShown(e.name, to: t)
                if e.type != .string {
                    t.append(", Type: ")
                    t.append(e.type.rawValue)
                }
                t.append(", Default: ...}")
                out.append(Diagnostic(.environment, written: t, at: at))
                return .null
            }
        case .list(let items):
            return .list(items.map { resolve($0, key: key, fallback: fallback, into: &out) })
        case .map(let deps):
            return .map(
                deps.map { d in
                    var r = d
                    r.value = resolve(d.value, key: key, fallback: d.location ?? fallback, into: &out)
                    return r
                })
        default:
            return value
        }
    }

    /// `EnvValue.shown(name)` written into `text` (no `String` made for a name of at most 64
    /// bytes).
    static func appendShown(_ name: String, to text: TextBuffer) {
        if name.utf8.count <= 64 { text.append(name) } else { text.append(EnvValue.shown(name)) }
    }

    /// `EnvValue.quoted(value)` written into `text` (no `String` made for a value of at most 64
    /// bytes).
    static func appendQuoted(_ value: String, to text: TextBuffer) {
        if value.utf8.count <= 64 {
            text.append(byte: UInt8(ascii: "'"))
            text.append(value)
            text.append(byte: UInt8(ascii: "'"))
        } else {
            text.append(EnvValue.quoted(value))
        }
    }
}
