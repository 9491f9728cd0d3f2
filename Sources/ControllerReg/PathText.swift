/// How a path of entries is written in a message (`A -> B -> A`): the one rule shared by the cycle
/// check and the lifetime rule. A long path names only its first and last `ends` entries, so a
/// message about a 100,000-entry chain stays short.
enum PathText {
    /// How many entries a long path shows at each end.
    static let ends = 8

    /// `path` joined with " -> ", its middle elided when it has more than `2 * ends + 1` entries.
    static func written(_ path: [Int], name: (Int) -> String) -> String {
        if path.count <= 2 * ends + 1 {
            return path.map(name).joined(separator: " -> ")
        }
        let head = path[..<ends].map(name).joined(separator: " -> ")
        let tail = path[(path.count - ends)...].map(name).joined(separator: " -> ")
        return "\(head) -> ... (\(path.count - 2 * ends) more entries) ... -> \(tail)"
    }
}
