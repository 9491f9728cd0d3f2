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
    /// Where the problems found are recorded (a load's share one: `Diagnostic(_:_:at:in:)`).
    var problems = ProblemStore()

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
        // The place and the words in one string (a load may report thousands of these).
        func place(_ pieces: String...) -> String { ProblemText.joined(["entry '", entry, "', key '", key, "': "], pieces) }
        switch value {
        case .template(let text, let at):
            switch EnvTemplate.substitute(text, maxBytes: maxStringBytes, lookup: lookup.value(of:)) {
            case .text(let s):
                return .string(s)
            case .missing(let names, let more):
                let written = EnvValue.quoted("@" + text)
                for name in names {
                    let shown = EnvValue.shown(name)
                    out.append(
                        Diagnostic(
                            .environment,
                            place(
                                "environment variable ", shown, " is not set (in ", written, "): set ", shown,
                                " or give a default: ${", shown, ":-value}"),
                            at: at ?? fallback, in: problems))
                }
                if more > 0 {
                    out.append(
                        Diagnostic(
                            .environment, place(String(more), " more environment variables in ", written, " are not set"),
                            at: at ?? fallback, in: problems))
                }
            case .tooLong:
                out.append(
                    Diagnostic(
                        .limit,
                        place(
                            "the string would be longer than ", String(maxStringBytes),
                            " bytes after substituting the environment"),
                        at: at ?? fallback, in: problems))
            case .malformed:
                break  // reported by DependencyRule.problems(of:) before resolution
            }
            return .null
        case .env(let e):
            let shown = EnvValue.shown(e.name)
            let at = e.location ?? fallback
            if let text = lookup.value(of: e.name), !(text.isEmpty && e.defaultValue != nil) {
                if text.utf8.count > maxStringBytes {
                    out.append(
                        Diagnostic(
                            .limit, place("environment variable ", shown, " is longer than ", String(maxStringBytes), " bytes"),
                            at: at, in: problems))
                    return .null
                }
                switch EnvValue.convert(text: text, to: e.type) {
                case .success(let v):
                    return v
                case .failure(let what):
                    let orDefault = e.defaultValue.map { " (or unset it to use the default \($0))" } ?? ""
                    out.append(
                        Diagnostic(
                            .environment,
                            place(
                                "environment variable \(shown) is \(EnvValue.quoted(text)), not \(what.text): set \(shown) to \(e.type.article)\(orDefault)"
                            ), at: at, in: problems))
                    return .null
                }
            }
            switch e.convertedDefault() {
            case .success(let v)?:
                return v
            case .failure?:
                return .null  // reported by DependencyRule.problems(of:) before resolution
            case nil:
                out.append(
                    Diagnostic(
                        .environment,
                        place(
                            "environment variable ", shown, " is not set: set ", shown, " or give a default: {Env: ", shown,
                            e.type == .string ? "" : ", Type: " + e.type.rawValue, ", Default: ...}"), at: at, in: problems))
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
}
