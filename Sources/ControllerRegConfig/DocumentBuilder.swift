#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds a `ConfigDocument` while a loader reads its input, in document order.
///
/// Loaders call one `add…` per scalar and `beginList`/`beginMap` … `endContainer` per container
/// (for a map: key, value, key, value …; keys are strings). The builder enforces the depth,
/// node and string limits and checks maps for duplicate keys; duplicates are recorded as
/// diagnostics (so one load reports all of them), while limit errors are thrown at once.
public struct DocumentBuilder {
    /// The file name every location will carry.
    public let file: String
    /// The limits being enforced.
    public let limits: ConfigLimits
    /// Problems found so far that do not stop parsing (duplicate keys).
    public private(set) var diagnostics: [Diagnostic] = []
    /// The key nodes reported as duplicates.
    var duplicateKeys: [Int] = []

    @usableFromInline var nodes: [ConfigNode] = []
    /// String bytes, zero-filled past `stringCount` (so a string's terminating NUL is already
    /// there): bytes are copied into place, not appended (`append(contentsOf:)` cost ~90
    /// instructions a string). Trimmed to `stringCount` by `finish()`.
    @usableFromInline var strings: [UInt8]
    @usableFromInline var stringCount = 0
    /// The open containers, innermost last: each one's node index and its parent's child count
    /// when it was opened (the innermost container's own count is `topChildren`).
    @usableFromInline var open: [(index: Int, children: Int)] = []
    /// Children added so far to the innermost open container (counted in a scalar: no array
    /// write per node).
    @usableFromInline var topChildren: Int = 0
    @usableFromInline var pendingStringStart: Int = -1

    /// Creates a builder. `expectedBytes` (the input size) sizes the buffers up front.
    public init(file: String, limits: ConfigLimits = ConfigLimits(), expectedBytes: Int = 0) {
        self.file = file
        self.limits = limits
        // Sized so that typical configs never grow (growing copies the whole buffer while the old
        // one is still held): ~10 input bytes per value and 3/4 of the input as string bytes. Pages
        // of the reserve that are never written cost no memory.
        nodes.reserveCapacity(max(16, min(expectedBytes / 10, limits.maxNodes)))
        strings = [UInt8](repeating: 0, count: max(64, expectedBytes / 4 * 3))
    }

    /// The nesting depth of the containers open now.
    @inlinable public var depth: Int { open.count }

    /// Number of nodes added so far.
    @inlinable public var nodeCount: Int { nodes.count }

    /// Whether the container open now is a map and the next node added will be one of its keys.
    @inlinable public var expectsKey: Bool {
        guard let top = open.last else { return false }
        return nodes[top.index].kind == .map && topChildren % 2 == 0
    }

    /// A location in this builder's file.
    @inlinable public func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }

    /// Adds a null.
    @inlinable public mutating func addNull(line: Int, column: Int) throws(ConfigError) {
        try append(ConfigNode(kind: .null, line: UInt32(clamping: line), column: UInt32(clamping: column), payload: 0, extent: 0))
    }

    /// Adds a boolean.
    @inlinable public mutating func addBool(_ value: Bool, line: Int, column: Int) throws(ConfigError) {
        try append(
            ConfigNode(
                kind: .bool, line: UInt32(clamping: line), column: UInt32(clamping: column), payload: value ? 1 : 0, extent: 0))
    }

    /// Adds an integer.
    @inlinable public mutating func addInt(_ value: Int64, line: Int, column: Int) throws(ConfigError) {
        try append(
            ConfigNode(
                kind: .int, line: UInt32(clamping: line), column: UInt32(clamping: column), payload: UInt64(bitPattern: value),
                extent: 0))
    }

    /// Adds a floating-point number.
    @inlinable public mutating func addDouble(_ value: Double, line: Int, column: Int) throws(ConfigError) {
        try append(
            ConfigNode(
                kind: .double, line: UInt32(clamping: line), column: UInt32(clamping: column), payload: value.bitPattern,
                extent: 0))
    }

    /// Adds a string whose bytes (valid UTF-8, checked by the loader) are copied.
    @inlinable public mutating func addString(_ bytes: UnsafeRawBufferPointer, line: Int, column: Int) throws(ConfigError) {
        beginString()
        appendStringBytes(bytes)
        try endString(line: line, column: column)
    }

    /// Starts a string built in pieces (for loaders that unescape): `appendStringBytes` …, then `endString`.
    @inlinable public mutating func beginString() {
        pendingStringStart = stringCount
    }

    /// Makes room for `n` more string bytes (and the terminating NUL).
    @inlinable @inline(__always) mutating func reserveStringBytes(_ n: Int) {
        if stringCount &+ n >= strings.count { growStrings(n) }
    }

    /// Doubles the string buffer (at least `n` + 1 more bytes), zero-filled.
    @usableFromInline @inline(never) mutating func growStrings(_ n: Int) {
        strings.append(contentsOf: repeatElement(0, count: max(strings.count, n + 1)))
    }

    /// Appends bytes to the string begun by `beginString`.
    @inlinable public mutating func appendStringBytes(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n > 0, let source = bytes.baseAddress else { return }
        reserveStringBytes(n)
        let at = stringCount
        strings.withUnsafeMutableBufferPointer { all in
            UnsafeMutableRawPointer(all.baseAddress! + at).copyMemory(from: source, byteCount: n)
        }
        stringCount = at &+ n
    }

    /// Appends one byte to the string begun by `beginString`.
    @inlinable public mutating func appendStringByte(_ byte: UInt8) {
        reserveStringBytes(1)
        strings[stringCount] = byte
        stringCount &+= 1
    }

    /// Appends a Unicode scalar, UTF-8 encoded, to the string begun by `beginString`.
    @inlinable public mutating func appendScalar(_ scalar: Unicode.Scalar) {
        for b in UTF8.encode(scalar)! { appendStringByte(b) }
    }

    /// Finishes the string begun by `beginString` and adds it as a node.
    @inlinable public mutating func endString(line: Int, column: Int) throws(ConfigError) {
        let start = pendingStringStart
        let length = stringCount - start
        // The NUL after the string: the buffer is zero past `stringCount`, so room is all it needs.
        reserveStringBytes(0)
        stringCount &+= 1
        pendingStringStart = -1
        if length > limits.maxStringBytes { throw stringTooLong(length, line: line, column: column) }
        try append(
            ConfigNode(
                kind: .string, line: UInt32(clamping: line), column: UInt32(clamping: column),
                payload: UInt64(start), extent: UInt32(length)))
    }

    /// Opens a list; close it with `endContainer`.
    @inlinable public mutating func beginList(line: Int, column: Int) throws(ConfigError) {
        try beginContainer(.list, line: line, column: column)
    }

    /// Opens a map; add key, value, key, value …, then close it with `endContainer`.
    @inlinable public mutating func beginMap(line: Int, column: Int) throws(ConfigError) {
        try beginContainer(.map, line: line, column: column)
    }

    /// Closes the innermost open list or map (and checks a map for duplicate keys).
    public mutating func endContainer() {
        guard let top = open.popLast() else { return }
        let children = topChildren
        topChildren = top.children
        nodes[top.index].extent = UInt32(nodes.count)
        if nodes[top.index].kind == .map {
            nodes[top.index].payload = UInt64(children / 2)
            checkDuplicateKeys(map: top.index)
        } else {
            nodes[top.index].payload = UInt64(children)
        }
    }

    /// Appends a copy of the finished subtree rooted at node `index` (YAML aliases), counting it
    /// against `maxNodes`.
    public mutating func addCopy(of index: Int) throws(ConfigError) {
        let end = nodes[index].isContainer ? Int(nodes[index].extent) : index + 1
        let size = end - index
        if nodes.count + size > limits.maxNodes {
            throw ConfigError(
                .limit, "the document has more than \(limits.maxNodes) values",
                at: location(line: Int(nodes[index].line), column: Int(nodes[index].column)))
        }
        noteChild()
        let delta = nodes.count - index
        for i in index..<end {
            var n = nodes[i]
            if n.isContainer { n.extent = UInt32(Int(n.extent) + delta) }
            nodes.append(n)
        }
    }

    /// The kind of node `index` added so far (for loaders that look back, such as YAML anchors).
    @inlinable public func kind(of index: Int) -> ConfigNode.Kind { nodes[index].kind }

    /// Finishes the document; the problems that did not stop reading (duplicate keys) travel in
    /// `ConfigDocument.problems`. Throws a syntax error if a container is still open.
    public mutating func finish() throws(ConfigError) -> ConfigDocument {
        if let top = open.last {
            let n = nodes[top.index]
            throw ConfigError(
                .syntax, "unterminated \(n.kind == .map ? "map" : "list")",
                at: location(line: Int(n.line), column: Int(n.column)))
        }
        strings.removeLast(strings.count - stringCount)
        return ConfigDocument(
            file: file, nodes: nodes, strings: strings, problems: diagnostics, duplicateKeys: duplicateKeys.sorted())
    }

    // MARK: - Internals

    @inlinable mutating func noteChild() {
        topChildren &+= 1  // also counts top-level nodes, which nothing reads
    }

    @inlinable @inline(__always) mutating func append(_ node: ConfigNode) throws(ConfigError) {
        if nodes.count >= limits.maxNodes { throw tooManyNodes(node) }
        noteChild()
        nodes.append(node)
    }

    // The errors of the paths above, out of line so the per-value code stays small enough to inline.
    @usableFromInline @inline(never) func tooManyNodes(_ node: ConfigNode) -> ConfigError {
        ConfigError(
            .limit, "the document has more than \(limits.maxNodes) values",
            at: location(line: Int(node.line), column: Int(node.column)))
    }

    @usableFromInline @inline(never) func stringTooLong(_ length: Int, line: Int, column: Int) -> ConfigError {
        ConfigError(
            .limit, "string of \(length) bytes exceeds the limit of \(limits.maxStringBytes) bytes",
            at: location(line: line, column: column))
    }

    @inlinable mutating func beginContainer(_ kind: ConfigNode.Kind, line: Int, column: Int) throws(ConfigError) {
        if open.count >= limits.maxDepth {
            throw ConfigError(
                .limit, "nesting deeper than the limit of \(limits.maxDepth) levels",
                at: location(line: line, column: column))
        }
        try append(ConfigNode(kind: kind, line: UInt32(clamping: line), column: UInt32(clamping: column), payload: 0, extent: 0))
        open.append((nodes.count - 1, topChildren))
        topChildren = 0
    }

    mutating func checkDuplicateKeys(map: Int) {
        let count = Int(nodes[map].payload)
        guard count > 1 else { return }
        let end = Int(nodes[map].extent)
        if count <= 8 {
            // Small map: every key against the earlier ones, walked in place (no array of keys).
            // Length and first byte are compared before memcmp; most pairs differ there.
            var a = map + 1
            var va = a + 1
            a = nodes[va].isContainer ? Int(nodes[va].extent) : va + 1
            while a < end {
                let ka = nodes[a]
                var b = map + 1
                while b < a {
                    let kb = nodes[b]
                    if ka.extent == kb.extent && sameBytes(Int(ka.payload), Int(kb.payload), Int(ka.extent)) {
                        reportDuplicate(a, first: b)
                        break
                    }
                    let vb = b + 1
                    b = nodes[vb].isContainer ? Int(nodes[vb].extent) : vb + 1
                }
                va = a + 1
                a = nodes[va].isContainer ? Int(nodes[va].extent) : va + 1
            }
            return
        }
        var keys: [Int] = []
        keys.reserveCapacity(count)
        var i = map + 1
        while i < end {
            keys.append(i)
            let v = i + 1
            i = nodes[v].isContainer ? Int(nodes[v].extent) : v + 1
        }
        strings.withUnsafeBytes { all in
            func bytes(_ k: Int) -> UnsafeRawBufferPointer {
                let n = nodes[k]
                return UnsafeRawBufferPointer(rebasing: all[Int(n.payload)..<Int(n.payload) + Int(n.extent)])
            }
            func report(_ dup: Int, _ first: Int) {
                duplicateKeys.append(dup)
                let f = nodes[first], d = nodes[dup]
                diagnostics.append(
                    Diagnostic(
                        .duplicate,
                        "duplicate key '\(String(decoding: bytes(dup), as: UTF8.self))' (first defined at line \(f.line), column \(f.column))",
                        at: location(line: Int(d.line), column: Int(d.column))))
            }
            // Length first, then memcmp (elementsEqual compares byte by byte through generics).
            func same(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Bool {
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
            // Open addressing over key indices; capacity is a power of two at least twice the count.
            var capacity = 16
            while capacity < keys.count * 2 { capacity <<= 1 }
            var table = [Int32](repeating: -1, count: capacity)
            var hashes = [UInt64](repeating: 0, count: capacity)
            for k in keys {
                let b = bytes(k)
                let h = byteHash(b)
                var slot = Int(truncatingIfNeeded: h) & (capacity - 1)
                while table[slot] >= 0 {
                    let other = Int(table[slot])
                    if hashes[slot] == h && same(bytes(other), b) {
                        report(k, other)
                        break
                    }
                    slot = (slot + 1) & (capacity - 1)
                }
                if table[slot] < 0 {
                    table[slot] = Int32(k)
                    hashes[slot] = h
                }
            }
        }
    }

    /// Whether the `length` bytes at string offsets `x` and `y` are equal.
    func sameBytes(_ x: Int, _ y: Int, _ length: Int) -> Bool {
        if length == 0 { return true }
        return strings.withUnsafeBufferPointer { all in
            all[x] == all[y] && memcmp(all.baseAddress! + x, all.baseAddress! + y, length) == 0
        }
    }

    /// Records key node `dup` as a duplicate of key node `first` (same message as the large-map path).
    mutating func reportDuplicate(_ dup: Int, first: Int) {
        duplicateKeys.append(dup)
        let f = nodes[first], d = nodes[dup]
        let text = strings.withUnsafeBufferPointer { all in
            String(decoding: UnsafeBufferPointer(rebasing: all[Int(d.payload)..<Int(d.payload) + Int(d.extent)]), as: UTF8.self)
        }
        diagnostics.append(
            Diagnostic(
                .duplicate,
                "duplicate key '\(text)' (first defined at line \(f.line), column \(f.column))",
                at: location(line: Int(d.line), column: Int(d.column))))
    }
}
