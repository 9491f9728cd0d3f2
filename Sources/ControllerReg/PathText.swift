/// How a path of entries is written in a message (`A -> B -> A`): the one rule shared by the cycle
/// check and the lifetime rule. A long path names only its first and last `ends` entries, so a
/// message about a 100,000-entry chain stays short.
enum PathText {
    /// How many entries a long path shows at each end.
    static let ends = 8

    /// `path` joined with " -> ", its middle elided when it has more than `2 * ends + 1` entries.
    static func written(_ path: [Int], name: (Int) -> String) -> String {
        written(count: path.count, at: { path[$0] }, name: name)
    }

    /// `written` of the path whose `count` entries are `at(0)`, `at(1)`, …: only the names shown
    /// are asked for.
    static func written(count: Int, at: (Int) -> Int, name: (Int) -> String) -> String {
        // Written as bytes and made a String once: a String grown name by name costs several
        // hundred instructions an append, and a failing load writes this for each cycle it lists.
        let elided = count > 2 * ends + 1
        var bytes: [UInt8] = []
        bytes.reserveCapacity((elided ? 2 * ends : count) * 20 + 48)
        func add(_ j: Int) {
            if !bytes.isEmpty { bytes.append(contentsOf: " -> ".utf8) }
            var text = name(at(j))
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
        if !elided {
            for j in 0..<count { add(j) }
        } else {
            for j in 0..<ends { add(j) }
            bytes.append(contentsOf: " -> ... (\(count - 2 * ends) more entries) ...".utf8)
            for j in (count - ends)..<count { add(j) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
