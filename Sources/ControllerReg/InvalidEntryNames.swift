/// The names of entries a load wrote but could not decode (so references to them are not reported
/// as missing as well), packed as bytes: a load whose every entry is invalid makes thousands, and
/// most such loads never ask for them (they are `String`s only when a reference to no entry is
/// found, `strings()`).
struct InvalidEntryNames {
    /// The names' bytes, one after another, and where each ends.
    private var bytes: [UInt8] = []
    private var ends: [Int32] = []

    /// No names.
    init() {}

    var isEmpty: Bool { ends.isEmpty }

    /// Adds a name's bytes.
    mutating func append(_ name: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: name)
        ends.append(Int32(truncatingIfNeeded: bytes.count))
    }

    /// Adds the names of `other`.
    static func += (list: inout InvalidEntryNames, other: InvalidEntryNames) {
        if list.isEmpty {
            list = other
            return
        }
        let base = Int32(truncatingIfNeeded: list.bytes.count)
        list.bytes += other.bytes
        list.ends += other.ends.map { $0 + base }
    }

    /// The names as `String`s, in the order they were added.
    func strings() -> [String] {
        bytes.withUnsafeBufferPointer { all in
            var start = 0
            return ends.map { end in
                defer { start = Int(end) }
                return String(decoding: UnsafeBufferPointer(rebasing: all[start..<Int(end)]), as: UTF8.self)
            }
        }
    }
}
