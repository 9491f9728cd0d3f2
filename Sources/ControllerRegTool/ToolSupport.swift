import ControllerReg
import var CControllerRegHeader.CR_VERSION_STRING

/// The tool's version, printed by `controllerreg --version`: the library's, from the header's
/// CR_VERSION_STRING (checked against CMake's project version, the one source, by a test).
public enum ToolVersion {
    public static let string = CR_VERSION_STRING
}

/// The exit codes every subcommand uses (documented in `--help` and docs/tooling.md).
public enum ExitStatus: Int32, Sendable {
    /// Success; for `check`, no problem found.
    case ok = 0
    /// Problems found (`check`) or the operation failed (bad config, unwritable output, ...).
    case failure = 1
    /// The command line itself is wrong (unknown option, missing argument, bad value).
    case usage = 2
}

/// A failure the tool reports: every problem (with its place, when it has one) and the exit status.
public struct ToolError: Error, Sendable, CustomStringConvertible {
    /// The problems, each printed on its own line.
    public var diagnostics: [Diagnostic]
    /// The exit status to end with.
    public var status: ExitStatus

    /// One problem without a place.
    public init(_ message: String, status: ExitStatus = .failure) {
        self.diagnostics = [Diagnostic(.invalidArgument, message)]
        self.status = status
    }

    /// One problem at a place in a config.
    public init(_ code: ErrorCode, _ message: String, at location: SourceLocation?) {
        self.diagnostics = [Diagnostic(code, message, at: location)]
        self.status = .failure
    }

    /// Every problem of a config error.
    public init(_ error: ConfigError) {
        self.diagnostics = error.diagnostics
        self.status = .failure
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Loading config files the way the library does, for the subcommands that need a valid config.
public enum ConfigSet {
    /// Loads `paths` into a fresh registry as one transaction and returns its entries, in
    /// definition order. Any problem (all of them are reported) is a `ToolError`.
    public static func entries(paths: [String]) throws(ToolError) -> [EntryDefinition] {
        let registry = Registry()
        do throws(ConfigError) {
            try registry.load(paths: paths)
        } catch {
            throw ToolError(error)
        }
        return registry.entries
    }
}

/// "did you mean" for the tool's own messages (edit distance, close matches only).
enum Similar {
    static func closest(to word: String, in candidates: [String]) -> String? {
        let a = Array(word.lowercased().unicodeScalars)
        let limit = max(2, a.count / 3)
        var best: (String, Int)?
        for c in candidates {
            let b = Array(c.lowercased().unicodeScalars)
            var row = Array(0...b.count)
            for i in 1...max(a.count, 1) where !a.isEmpty {
                var prev = row[0]
                row[0] = i
                for j in stride(from: 1, through: b.count, by: 1) {
                    let cur = row[j]
                    row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                    prev = cur
                }
            }
            let d = a.isEmpty ? b.count : row[b.count]
            if d <= limit, best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    static func hint(for word: String, in candidates: [String]) -> String {
        closest(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }
}

/// The last path component of a file name.
func baseName(_ path: String) -> String {
    if let slash = path.lastIndex(of: "/") { return String(path[path.index(after: slash)...]) }
    return path
}
