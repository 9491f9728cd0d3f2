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
        try registry(paths: paths).entries
    }

    /// Loads `paths` into a fresh registry as one transaction (every problem is a `ToolError`),
    /// resolving environment values against `environment` (nil: the process environment).
    public static func registry(paths: [String], environment: [String: String]? = nil) throws(ToolError) -> Registry {
        let registry = Registry()
        do throws(ConfigError) {
            try registry.load(paths: paths, environment: environment)
        } catch {
            throw ToolError(error)
        }
        return registry
    }
}

/// The last path component of a file name.
func baseName(_ path: String) -> String {
    if let slash = path.lastIndex(of: "/") { return String(path[path.index(after: slash)...]) }
    return path
}
