import ControllerReg

/// `controllerreg check`: every problem the library would report loading the files together,
/// plus (optionally) entries whose class the host will not provide.
public struct CheckReport: Sendable {
    /// The files checked, as given.
    public var files: [String]
    /// Every problem, sorted by place (unplaced ones last).
    public var diagnostics: [Diagnostic]
    /// How many entries the files define (counted even when the load fails, from what decoded).
    public var entryCount: Int
    /// Things worth knowing that are not problems (they change neither `isClean` nor the exit
    /// status): optional references (`{Optional: Name}`) that resolve to nothing and will be null.
    public var information: [Information] = []

    /// A note about a config that is not a problem, with its place.
    public struct Information: Sendable, Equatable {
        /// What is worth knowing, naming the entry and key.
        public var message: String
        /// Where it was written.
        public var location: SourceLocation?
    }

    /// Whether nothing was found.
    public var isClean: Bool { diagnostics.isEmpty }

    /// Checks `files` as one load into a fresh registry. With `classes`, an entry whose
    /// `ClassName` is not in it is reported too (code `classNotRegistered`). `${NAME}` and
    /// `{Env: NAME}` are resolved against `environment` (nil: the process environment).
    public static func run(files: [String], classes: Set<String>? = nil, environment: [String: String]? = nil) -> CheckReport {
        var diagnostics: [Diagnostic] = []
        let registry = Registry()
        var entries: [EntryDefinition] = []
        var information: [Information] = []
        do throws(ConfigError) {
            try registry.load(paths: files, environment: environment)
            entries = registry.entries
            information = absentOptionals(registry)
        } catch {
            diagnostics = error.diagnostics
            // The load failed as a whole; decode what can be decoded so the class check still runs.
            for file in files {
                if let doc = try? ConfigLoader.load(path: file) { entries += EntryDecoder.decode(doc).entries }
            }
        }
        if let classes {
            let known = classes.sorted()
            for entry in entries where !classes.contains(entry.className) {
                diagnostics.append(
                    Diagnostic(
                        .classNotRegistered,
                        "entry '\(entry.name)': class '\(entry.className)' is not provided by the host\(Suggestions.hint(for: entry.className, in: known))",
                        at: entry.location))
            }
        }
        return CheckReport(
            files: files, diagnostics: ConfigError(diagnostics).diagnosticsOrEmpty(diagnostics.isEmpty),
            entryCount: entries.count, information: information)
    }

    /// The optional references of a loaded registry that resolved to nothing, with their places
    /// (from the compiled plans: what a create would pass).
    static func absentOptionals(_ registry: Registry) -> [Information] {
        var out: [Information] = []
        for plan in registry.compiledPlans() where !plan.absentOptionals.isEmpty {
            let absent = Set(plan.absentOptionals)
            for dep in plan.definition.dependencies {
                dep.value.forEachEdge { edge in
                    guard edge.kind == .optional, absent.contains(edge.name) else { return }
                    out.append(
                        Information(
                            message:
                                "entry '\(plan.name)', key '\(dep.key)': {Optional: \(edge.name)} is null: no entry named '\(edge.name)' (add one to use it)",
                            location: edge.location ?? dep.location ?? plan.definition.location))
                }
            }
        }
        return out
    }

    /// One line per problem, `file:line:column: error: message [code]`, then a summary line.
    public func text(colour: Bool = false) -> String {
        let red = colour ? "\u{1B}[1;31m" : "", bold = colour ? "\u{1B}[1m" : "", reset = colour ? "\u{1B}[0m" : ""
        var out = ""
        for d in diagnostics {
            let place = d.location.map { "\(bold)\($0):\(reset) " } ?? ""
            out += "\(place)\(red)error:\(reset) \(d.message) [\(CheckReport.codeName(d.code))]\n"
        }
        for note in information {
            let place = note.location.map { "\(bold)\($0):\(reset) " } ?? ""
            out += "\(place)info: \(note.message)\n"
        }
        let what = files.count == 1 ? files[0] : "\(files.count) files"
        if diagnostics.isEmpty {
            out += "\(what): OK, \(entryCount) \(entryCount == 1 ? "entry" : "entries")\n"
        } else {
            out += "\(what): \(diagnostics.count) \(diagnostics.count == 1 ? "problem" : "problems")\n"
        }
        return out
    }

    /// `{"ok":…, "files":[…], "entries":N, "problems":[{"file","line","column","code","message"}…]}`.
    public func json() -> String {
        var out = "{\n  \"ok\": \(isClean),\n  \"files\": [" + files.map(JSONText.quote).joined(separator: ", ") + "],\n"
        out += "  \"entries\": \(entryCount),\n"
        if !information.isEmpty {
            out += "  \"information\": [\n"
            for (i, note) in information.enumerated() {
                var fields: [String] = []
                if let l = note.location {
                    fields.append("\"file\": \(JSONText.quote(l.file))")
                    fields.append("\"line\": \(l.line)")
                    fields.append("\"column\": \(l.column)")
                }
                fields.append("\"message\": \(JSONText.quote(note.message))")
                out += "    {" + fields.joined(separator: ", ") + "}" + (i + 1 < information.count ? ",\n" : "\n")
            }
            out += "  ],\n"
        }
        out += "  \"problems\": ["
        if diagnostics.isEmpty { return out + "]\n}\n" }
        out += "\n"
        for (i, d) in diagnostics.enumerated() {
            var fields: [String] = []
            if let l = d.location {
                fields.append("\"file\": \(JSONText.quote(l.file))")
                fields.append("\"line\": \(l.line)")
                fields.append("\"column\": \(l.column)")
            }
            fields.append("\"code\": \(JSONText.quote(CheckReport.codeName(d.code)))")
            fields.append("\"status\": \(d.code.rawValue)")
            fields.append("\"message\": \(JSONText.quote(d.message))")
            out += "    {" + fields.joined(separator: ", ") + "}" + (i + 1 < diagnostics.count ? ",\n" : "\n")
        }
        return out + "  ]\n}\n"
    }

    /// A stable machine name for a code: `missing-reference`, `cycle`, `schema`, ...
    public static func codeName(_ code: ErrorCode) -> String {
        switch code {
        case .ok: return "ok"
        case .invalidArgument: return "invalid-argument"
        case .io: return "io"
        case .syntax: return "syntax"
        case .schema: return "schema"
        case .duplicate: return "duplicate"
        case .missingReference: return "missing-reference"
        case .cycle: return "cycle"
        case .notFound: return "not-found"
        case .classNotRegistered: return "class-not-provided"
        case .classExists: return "class-exists"
        case .createFailed: return "create-failed"
        case .type: return "type"
        case .limit: return "limit"
        case .noMemory: return "no-memory"
        case .environment: return "environment"
        case .lifetime: return "lifetime"
        @unknown default: return "error-\(code.rawValue)"
        }
    }

    /// Reads a class list: names separated by commas, blanks or newlines; `#` starts a comment.
    public static func parseClassList(_ text: String) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            for word in content.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
                names.insert(String(word))
            }
        }
        return names
    }
}

extension ConfigError {
    /// The sorted diagnostics, or none when there were none (ConfigError never holds an empty list).
    fileprivate func diagnosticsOrEmpty(_ empty: Bool) -> [Diagnostic] { empty ? [] : diagnostics }
}

/// JSON string quoting shared by the writers.
enum JSONText {
    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if u.value < 0x20 || u.value == 0x7F || u.value == 0x2028 || u.value == 0x2029 {
                    out += "\\u" + HexDigits.text(u.value, digits: 4, uppercase: false)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

}
