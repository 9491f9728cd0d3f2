#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a registry was given, in order, so `Registry.reload()` can give it again.
///
/// A file load is kept as its paths, format and mode: a reload reads the files again. Definitions
/// given directly (config text or bytes, `Registry.add`, `cr_add_entry`) and removals are kept
/// as they were: their definitions live in the registry, so the history keeps only the definitions a
/// later step replaced or removed (`replaced`), and each entry records the step that defined it
/// (`origins`). A registry loaded once from text keeps no second copy of its config.
struct ReloadHistory {
    /// Where a step's definitions come from.
    enum Source {
        /// Files read by path (absolute, see `absolute`); several are one transaction.
        case files([String], ConfigFormat)
        /// Definitions given directly (text, bytes, code), or none (a removal).
        case given
    }

    /// One successful change, as it was asked for.
    struct Step {
        var source: Source
        var mode: LoadMode
        var removals: [String]
        /// The environment the step was resolved against: a map is given again by a reload, the
        /// process environment is read anew.
        var environment: ConfigEnvironment = .process
    }

    /// Shared with the registry's state while a change appends to it (`SharedTailList`: adding
    /// an entry appends one step, it does not copy them all).
    var steps = SharedTailList<Step>()

    /// `path` as a reload must read it: a relative path joined to the current directory of the
    /// load, so a host that changes directory (a daemon's chdir("/")) reloads the file it loaded,
    /// not another one of the same name (or none). Symbolic links are followed again at each read.
    /// Kept as it is when the current directory cannot be read.
    static func absolute(_ path: String) -> String {
        if path.isEmpty || path.utf8.first == UInt8(ascii: "/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        let dir = String(cString: cwd)
        return dir.hasSuffix("/") ? dir + path : dir + "/" + path
    }
    /// The step that defined each entry: by entry index in a root registry, by position in `own`
    /// in a child.
    var origins = SharedTailList<Int32>()

    /// Whether `index` (an origin) is a `.given` step.
    func isGiven(_ step: Int32) -> Bool {
        guard step >= 0, Int(step) < steps.count else { return false }
        if case .given = steps[Int(step)].source { return true }
        return false
    }

    /// The definitions of `.given` steps that a later step replaced or removed, each with the step
    /// that gave it, in the order they were replaced. Appended to (`SharedTailList`: a removal or
    /// an override appends one, it does not copy the steps or this list).
    var replaced = SharedTailList<(step: Int32, definition: EntryDefinition)>()

    /// Keeps `definition`, defined by step `origin`, for replay if that step gave it directly.
    mutating func keepReplaced(_ definition: EntryDefinition, origin: Int32) {
        if isGiven(origin) { replaced.append((origin, definition)) }
    }

    /// The kept definitions (`replaced`) by the step that gave them, in the order they were kept.
    func replacedByStep() -> [Int32: [EntryDefinition]] {
        var byStep: [Int32: [EntryDefinition]] = [:]
        for (step, definition) in replaced { byStep[step, default: []].append(definition) }
        return byStep
    }
}
