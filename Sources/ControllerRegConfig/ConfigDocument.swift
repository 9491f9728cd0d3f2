/// One value in a `ConfigDocument`: its kind, where it was written, and its payload.
///
/// Nodes are stored flat, in pre-order: a container is followed by its children, and
/// `extent` is the index just past its last descendant (so the next sibling of node `i`
/// is `nodes[i].extent` for a container and `i + 1` otherwise). A map's children alternate
/// key (always a string node) and value.
public struct ConfigNode: Sendable, Hashable {
    /// The kinds of value a config can hold.
    public enum Kind: UInt8, Sendable, Hashable {
        case null, bool, int, double, string, list, map
    }

    // Stored widest first: 8 + 3 * 4 + 1 bytes, a stride of 24 (32 in declaration order by
    // kind), a quarter less memory for the tree a load builds.
    /// Bool as 0/1, `Int64` or `Double` bit pattern, string byte offset, or container element count
    /// (pairs for a map).
    public var payload: UInt64
    /// 1-based line (0 for binary formats).
    public var line: UInt32
    /// 1-based column (byte offset for binary formats).
    public var column: UInt32
    /// String byte length, or for a container the index just past its subtree.
    public var extent: UInt32
    /// The kind of this value.
    public var kind: Kind

    /// Creates a node; loaders use `DocumentBuilder` instead.
    @inlinable
    public init(kind: Kind, line: UInt32, column: UInt32, payload: UInt64, extent: UInt32) {
        self.kind = kind
        self.line = line
        self.column = column
        self.payload = payload
        self.extent = extent
    }

    /// The boolean value (meaningful for `.bool`).
    @inlinable public var bool: Bool { payload != 0 }
    /// The integer value (meaningful for `.int`).
    @inlinable public var int: Int64 { Int64(bitPattern: payload) }
    /// The floating-point value (meaningful for `.double`).
    @inlinable public var double: Double { Double(bitPattern: payload) }
    /// Element count of a list, pair count of a map.
    @inlinable public var count: Int { Int(payload) }
    /// Whether this is a list or a map.
    @inlinable public var isContainer: Bool { kind == .list || kind == .map }
}

/// A parsed config file: a flat pre-order tree of values with their source positions.
///
/// Produced by the loaders, consumed by the entry decoder; it knows nothing of entries.
/// String bytes live in one buffer (`strings`), each followed by a NUL byte, always valid UTF-8.
public struct ConfigDocument: Sendable {
    /// The file name given to the loader.
    public let file: String
    /// All values, in pre-order. Empty only for an empty document.
    public let nodes: [ConfigNode]
    /// The bytes of every string, each NUL-terminated.
    public let strings: [UInt8]

    /// Problems found while reading that did not stop it (duplicate keys): the document is whole,
    /// and a consumer reports these beside its own.
    public let problems: [Diagnostic]
    /// The key nodes `problems` reports as duplicates, ascending (a consumer skips their pairs).
    public let duplicateKeys: [Int]

    /// Creates a document; loaders use `DocumentBuilder` instead.
    public init(file: String, nodes: [ConfigNode], strings: [UInt8], problems: [Diagnostic] = [], duplicateKeys: [Int] = []) {
        self.file = file
        self.nodes = nodes
        self.strings = strings
        self.problems = problems
        self.duplicateKeys = duplicateKeys
    }

    /// Calls `body` with a view of the document's nodes and bytes in place (what the entry decoder
    /// reads; the accessors below are the view's).
    public func withView<R>(_ body: (DocumentView) throws -> R) rethrows -> R {
        try strings.withUnsafeBufferPointer { all in
            try nodes.withUnsafeBufferPointer { n in
                try duplicateKeys.withUnsafeBufferPointer { duplicates in
                    try withUnsafePointer(to: file) { file in
                        var nul: UInt8 = 0
                        return try withUnsafePointer(to: &nul) { empty in
                            try body(
                                DocumentView(file: file, nodes: n, strings: all.baseAddress ?? empty, duplicateKeys: duplicates))
                        }
                    }
                }
            }
        }
    }

    /// Whether node `index` is a key reported as a duplicate.
    public func isDuplicateKey(_ index: Int) -> Bool { withView { $0.isDuplicateKey(index) } }

    /// Whether a duplicate key lies inside the subtree of container node `index`.
    public func hasDuplicateKey(inside index: Int) -> Bool { withView { $0.hasDuplicateKey(inside: index) } }

    /// The index of the root value, or nil for an empty document.
    @inlinable public var root: Int? { nodes.isEmpty ? nil : 0 }

    /// Where node `index` was written.
    public func location(of index: Int) -> SourceLocation {
        let n = nodes[index]
        return SourceLocation(file: file, line: Int(n.line), column: Int(n.column))
    }

    /// The index of the next sibling of node `index` (one past its subtree).
    @inlinable public func next(after index: Int) -> Int {
        let n = nodes[index]
        return n.isContainer ? Int(n.extent) : index + 1
    }

    /// The indices of a list's elements.
    public func elements(of list: Int) -> [Int] { withView { $0.elements(of: list) } }

    /// The (key, value) node indices of a map's pairs, in written order.
    public func pairs(of map: Int) -> [(key: Int, value: Int)] { withView { $0.pairs(of: map) } }

    /// Calls `body` with the bytes of string node `index` (without the trailing NUL).
    @inlinable
    public func withBytes<R>(of index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let n = nodes[index]
        return try strings.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[Int(n.payload)..<Int(n.payload) + Int(n.extent)]))
        }
    }

    /// The text of string node `index`.
    public func string(at index: Int) -> String { withView { $0.string(at: index) } }

    /// Whether the string at `index` contains a NUL byte (without making a String).
    public func containsNul(at index: Int) -> Bool { withView { $0.containsNul(at: index) } }

    /// The first byte of the string at `index`, or nil if it is empty.
    @inlinable public func firstByte(at index: Int) -> UInt8? {
        let n = nodes[index]
        return n.extent == 0 ? nil : strings[Int(n.payload)]
    }

    /// The string at `index` without its first Character, as `String(string(at:).dropFirst())`.
    public func stringDroppingFirst(at index: Int) -> String { withView { $0.stringDroppingFirst(at: index) } }

    /// Whether node `index` is a string with exactly the bytes of `text`.
    public func stringEquals(_ index: Int, _ text: StaticString) -> Bool { withView { $0.stringEquals(index, text) } }
}
