import ControllerReg

/// `controllerreg diff`: what a reload from the OLD config to the NEW one would change (the same
/// three lists as `Registry.reload()`, computed by the same `ReloadChanges`), both sides validated.
public struct DiffReport: Sendable {
    /// The files of each side, as given.
    public var old: [String]
    public var new: [String]
    /// Entries added, removed and changed from OLD to NEW.
    public var changes: ReloadChanges

    /// Loads each side as one transaction into a fresh registry and compares them, resolving
    /// environment values against `environment` (nil: the process environment). A side that does
    /// not load is a `ToolError` with every problem of both sides.
    public static func run(
        old: [String], new: [String], environment: [String: String]? = nil
    ) throws(ToolError) -> DiffReport {
        var problems: [Diagnostic] = []
        var sides: [[EntryDefinition]] = []
        for files in [old, new] {
            do throws(ToolError) {
                sides.append(try ConfigSet.registry(paths: files, environment: environment).entries)
            } catch {
                problems += error.diagnostics
            }
        }
        if !problems.isEmpty { throw ToolError(ConfigError(problems)) }
        return DiffReport(old: old, new: new, changes: ReloadChanges(from: sides[0], to: sides[1]))
    }

    /// One section per list, a name per line (`  + New`, `  - Gone`, `  ~ Edited`), each list sorted.
    public func text(colour: Bool = false) -> String {
        let green = colour ? "\u{1B}[32m" : "", red = colour ? "\u{1B}[31m" : "", yellow = colour ? "\u{1B}[33m" : ""
        let reset = colour ? "\u{1B}[0m" : ""
        var out = ""
        for (title, names, mark, tint) in [
            ("added", changes.added, "+", green), ("removed", changes.removed, "-", red),
            ("changed", changes.changed, "~", yellow),
        ] {
            out += "\(title) (\(names.count)):\n"
            for name in names { out += "  \(tint)\(mark) \(name)\(reset)\n" }
        }
        return out
    }

    /// `{"added": [...], "removed": [...], "changed": [...]}`.
    public func json() -> String {
        func list(_ names: [String]) -> String { "[" + names.map(JSONText.quote).joined(separator: ", ") + "]" }
        return "{\n  \"added\": \(list(changes.added)),\n  \"removed\": \(list(changes.removed)),\n"
            + "  \"changed\": \(list(changes.changed))\n}\n"
    }
}
