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
///
/// Nodes and string bytes are written through raw pointers into buffers sized from the input
/// (`DocumentStorage` owns them), one capacity compare per node; `finish()` copies them into the
/// document's arrays. Each map keeps a 64-bit fingerprint set of its keys while it is open, so
/// the duplicate-key check runs only for a map in which two keys share a fingerprint.
///
/// Given a `TopLevelPairSink`, a builder whose root is a map hands the sink its complete pairs
/// whenever they hold `handOnNodes` nodes or more (a dozen or so entries: the call and the checks
/// around it are paid once for them all, and their nodes and bytes are still in the first-level
/// data cache, which a batch of 2,048 nodes overran), and then reuses
/// their nodes and string bytes for the pairs read next (unless a loader called `keepNodes()`):
/// the document in memory is a dozen or so entries, not all of them. Every limit and check stays the document's: the node limit counts the nodes reused,
/// and top-level keys are checked for duplicates against all earlier ones (`TopLevelNames`), unless
/// the sink `checksTopLevelKeys` (the entry decoder: one table of the names, its own).
public struct DocumentBuilder {
    /// The file name every location will carry.
    public let file: String
    /// The limits being enforced.
    public let limits: ConfigLimits
    /// Problems found so far that do not stop parsing (duplicate keys).
    public private(set) var diagnostics: [Diagnostic] = []
    /// The key nodes reported as duplicates.
    var duplicateKeys: [Int] = []

    /// Owner of the buffers below (they are freed with it, also when a parse throws part-way).
    let storage: DocumentStorage
    /// Nodes so far: `nodeAllocated` of room, of which `nodeCapacity` may be used before the node
    /// limit is checked (never more than `nodeLimit`).
    var nodeBase: UnsafeMutablePointer<ConfigNode>
    var nodeCapacity: Int
    var nodeAllocated: Int
    /// How many more nodes this document may have, counted from the start of `nodeBase`:
    /// `limits.maxNodes` less the nodes of pairs handed on and reused.
    var nodeLimit: Int
    /// Number of nodes added so far.
    public private(set) var nodeCount = 0
    /// String bytes so far, each string followed by its NUL; `stringCapacity` bytes of room plus
    /// `DocumentStorage.stringSlack` more that only readers of whole words touch.
    var stringBase: UnsafeMutablePointer<UInt8>
    var stringCapacity: Int
    private(set) var stringCount = 0
    var pendingStringStart = -1
    /// The containers open above the innermost one (which lives in the `top…` fields).
    var openBase: UnsafeMutablePointer<OpenContainer>
    var openCapacity: Int
    var openCount = 0
    /// The innermost open container: its node index (-1 at the top level), whether it is a map,
    /// the children added to it, the fingerprints of its keys and the fingerprints seen twice.
    var top = OpenContainer(index: -1, isMap: false, children: 0, keyBits: 0, collisions: 0)

    /// Where the root map's pairs go as they are read, if anywhere (`storage.sink`), and whether
    /// there is one (tested where every container closes).
    let sink: UnsafeMutablePointer<TopLevelPairSink?>
    /// The load's region for temporaries, if its sink has one (`ScratchHolder`; a dynamic cast,
    /// ~70k instructions the first time in a process: asked only where a large load needs it).
    var scratch: ScratchRegion? { (sink.pointee as? ScratchHolder)?.scratch }
    let hasSink: Bool
    /// Whether the keys of pairs handed on are checked here for repeats (`topLevelNames`): a
    /// sink that `checksTopLevelKeys` does it itself.
    let checksHandedKeys: Bool
    /// The first node of the root map's pairs not yet handed to `sink`.
    var handFrom = 1
    /// Whether nodes handed on stay (a loader may still look back at them: `keepNodes()`).
    var keepsNodes = false
    /// The pairs are handed on once the nodes since the last hand-over reach this many.
    static let handOnNodes = 256
    /// The node count at which the next pairs are handed on.
    var handAt = DocumentBuilder.handOnNodes
    /// The keys of the root map handed on so far, and the duplicates found among them (reported
    /// when the root map closes, where its duplicate check would report them).
    var topLevelNames = TopLevelNames()
    /// What `handPairs` read ahead of its insertions (kept so the reads are made).
    var touchedCells: UInt32 = 0
    var topLevelDuplicates: [Diagnostic] = []

    /// A container open above the innermost one.
    struct OpenContainer {
        var index: Int
        var isMap: Bool
        var children: Int
        var keyBits: UInt64
        var collisions: UInt64
    }

    /// Runs `read` with a builder that writes straight into the storage of the document's arrays
    /// (sized from the input: no copy at the end unless they had to grow), and returns the
    /// finished document. Throws what `read` throws, or a syntax error if a container is left open.
    ///
    /// With a `sink`, the pairs of a root map go to it as they are read, and the document returned
    /// holds the root map alone (with its pair count and every problem found); any other root is
    /// returned whole.
    static func build(
        file: String, limits: ConfigLimits, expectedBytes: Int, expectedNodes: Int? = nil, sink: TopLevelPairSink? = nil,
        _ read: (inout DocumentBuilder) throws(ConfigError) -> Void
    ) throws(ConfigError) -> ConfigDocument {
        // Sized so that typical configs never grow: one value per 8 input bytes and as many string
        // bytes as input bytes (JSON text can hold no more). Pages of the reserve that are never
        // written cost no memory. Pairs handed to a sink reuse their room: a few hand-overs' worth
        // (a root that is not a map, or a long entry, grows it; the JSON reader reserves its
        // strings itself).
        var nodeCapacity = max(16, min(expectedNodes ?? expectedBytes / 8, max(limits.maxNodes, 16)))
        var stringCapacity = max(64, min(expectedBytes, limits.maxInputBytes) + 32)
        if sink != nil {
            nodeCapacity = min(nodeCapacity, 4 * handOnNodes)
            stringCapacity = min(stringCapacity, 64 * handOnNodes)
        }
        var failure: ConfigError? = nil
        var finished: DocumentBuilder? = nil
        var nodes: [ConfigNode] = []
        var strings = [UInt8](unsafeUninitializedCapacity: stringCapacity + DocumentStorage.stringSlack) {
            stringBuffer, stringCount in
            nodes = [ConfigNode](unsafeUninitializedCapacity: nodeCapacity) { nodeBuffer, nodeCount in
                var builder = DocumentBuilder(
                    file: file, limits: limits, nodes: nodeBuffer.baseAddress!, nodeCapacity: nodeCapacity,
                    strings: stringBuffer.baseAddress!, stringCapacity: stringCapacity, sink: sink)
                // A root map's keys (entries) run to about one per 128 bytes of input.
                if builder.checksHandedKeys {
                    builder.topLevelNames = TopLevelNames(
                        expectedKeys: expectedBytes / 128, expectedBytes: expectedBytes / 8, in: builder.scratch
                    )
                }
                do throws(ConfigError) {
                    try read(&builder)
                    try builder.checkClosed()
                } catch {
                    failure = error
                    return
                }
                nodeCount = builder.storage.nodes == nil ? builder.nodeCount : 0
                finished = builder
            }
            if let builder = finished, builder.storage.strings == nil { stringCount = builder.stringCount }
        }
        if let failure { throw failure }
        let builder = finished!
        // The buffers grew past the arrays' storage: copy them from where they went.
        if builder.storage.nodes != nil { nodes = Array(UnsafeBufferPointer(start: builder.nodeBase, count: builder.nodeCount)) }
        if builder.storage.strings != nil {
            strings = Array(UnsafeBufferPointer(start: builder.stringBase, count: builder.stringCount))
        }
        return ConfigDocument(
            file: file, nodes: nodes, strings: strings, problems: builder.diagnostics,
            duplicateKeys: builder.duplicateKeys.sorted())
    }

    private init(
        file: String, limits: ConfigLimits, nodes: UnsafeMutablePointer<ConfigNode>, nodeCapacity: Int,
        strings: UnsafeMutablePointer<UInt8>, stringCapacity: Int, sink: TopLevelPairSink?
    ) {
        self.file = file
        self.limits = limits
        storage = DocumentStorage(open: 16, file: file, sink: sink)
        self.sink = storage.sink
        hasSink = sink != nil
        checksHandedKeys = sink.map { !$0.checksTopLevelKeys } ?? false
        nodeBase = nodes
        nodeAllocated = nodeCapacity
        nodeLimit = max(limits.maxNodes, 0)
        self.nodeCapacity = min(nodeCapacity, nodeLimit)
        stringBase = strings
        self.stringCapacity = stringCapacity
        openBase = storage.open
        openCapacity = 16
    }

    /// The nesting depth of the containers open now.
    public var depth: Int { top.index < 0 ? 0 : openCount &+ 1 }

    /// Whether the container open now is a map and the next node added will be one of its keys.
    public var expectsKey: Bool { top.isMap && top.children & 1 == 0 }

    /// A location in this builder's file.
    public func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }

    /// Adds a null.
    @inline(__always) public mutating func addNull(line: Int, column: Int) throws(ConfigError) {
        try append(
            ConfigNode(
                kind: .null, line: DocumentBuilder.place(line), column: DocumentBuilder.place(column), payload: 0, extent: 0))
    }

    /// Adds a boolean.
    @inline(__always) public mutating func addBool(_ value: Bool, line: Int, column: Int) throws(ConfigError) {
        try append(
            ConfigNode(
                kind: .bool, line: DocumentBuilder.place(line), column: DocumentBuilder.place(column), payload: value ? 1 : 0,
                extent: 0))
    }

    /// Adds an integer.
    @inline(__always) public mutating func addInt(_ value: Int64, line: Int, column: Int) throws(ConfigError) {
        try append(
            ConfigNode(
                kind: .int, line: DocumentBuilder.place(line), column: DocumentBuilder.place(column),
                payload: UInt64(bitPattern: value),
                extent: 0))
    }

    /// Adds a floating-point number.
    @inline(__always) public mutating func addDouble(_ value: Double, line: Int, column: Int) throws(ConfigError) {
        try append(
            ConfigNode(
                kind: .double, line: DocumentBuilder.place(line), column: DocumentBuilder.place(column),
                payload: value.bitPattern,
                extent: 0))
    }

    /// Adds a string whose bytes (valid UTF-8, checked by the loader) are copied.
    @inline(__always) public mutating func addString(_ bytes: UnsafeRawBufferPointer, line: Int, column: Int) throws(ConfigError)
    {
        let n = bytes.count
        reserveStringBytes(n)
        let start = stringCount
        let target = stringBase + start
        if n > 0 { DocumentBuilder.copySmall(from: bytes.baseAddress!, to: target, count: n) }
        stringCount = start &+ n
        try finishString(start: start, line: line, column: column)
    }

    /// Ends the string written from `start` to the current end of the string bytes: its NUL, the
    /// length limit, the duplicate-key note, and its node.
    @inline(__always) private mutating func finishString(start: Int, line: Int, column: Int) throws(ConfigError) {
        let length = stringCount &- start
        stringBase[stringCount] = 0
        stringCount &+= 1
        if length > limits.maxStringBytes { throw stringTooLong(length, line: line, column: column) }
        if expectsKey { noteKey(start: start, length: length) }
        try append(
            ConfigNode(
                kind: .string, line: DocumentBuilder.place(line), column: DocumentBuilder.place(column),
                payload: UInt64(start), extent: UInt32(clamping: length)))
    }

    /// Copies `n` (> 0) bytes: up to 16 with two overlapping word moves (never reading outside the
    /// source), longer ones with `memcpy`.
    @inline(__always) static func copySmall(from source: UnsafeRawPointer, to target: UnsafeMutablePointer<UInt8>, count n: Int) {
        let out = UnsafeMutableRawPointer(target)
        if n >= 8 {
            if n > 16 {
                out.copyMemory(from: source, byteCount: n)
                return
            }
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            out.storeBytes(of: head, as: UInt64.self)
            out.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 {
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            out.storeBytes(of: head, as: UInt32.self)
            out.storeBytes(of: tail, toByteOffset: n &- 4, as: UInt32.self)
        } else {
            target[0] = source.load(as: UInt8.self)
            target[n &- 1] = source.load(fromByteOffset: n &- 1, as: UInt8.self)
            target[n &>> 1] = source.load(fromByteOffset: n &>> 1, as: UInt8.self)
        }
    }

    /// Starts a string built in pieces (for loaders that unescape): `appendStringBytes` …, then `endString`.
    @inline(__always) public mutating func beginString() {
        pendingStringStart = stringCount
    }

    /// Makes room for `n` more string bytes and the terminating NUL.
    @inline(__always) mutating func reserveStringBytes(_ n: Int) {
        if n >= stringCapacity &- stringCount { growStrings(n) }
    }

    /// Grows the string buffer to at least `n` + 1 more bytes (at least doubling it).
    @inline(never) mutating func growStrings(_ n: Int) {
        stringCapacity = max(stringCapacity * 2, stringCount + n + 1)
        stringBase = storage.resizeStrings(stringBase, count: stringCount, capacity: stringCapacity + DocumentStorage.stringSlack)
    }

    /// Appends bytes to the string begun by `beginString`.
    @inline(__always) public mutating func appendStringBytes(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n > 0, let source = bytes.baseAddress else { return }
        reserveStringBytes(n)
        DocumentBuilder.copySmall(from: source, to: stringBase + stringCount, count: n)
        stringCount &+= n
    }

    /// Appends one byte to the string begun by `beginString`.
    @inline(__always) public mutating func appendStringByte(_ byte: UInt8) {
        reserveStringBytes(1)
        stringBase[stringCount] = byte
        stringCount &+= 1
    }

    /// Appends a Unicode scalar, UTF-8 encoded, to the string begun by `beginString`.
    public mutating func appendScalar(_ scalar: Unicode.Scalar) {
        reserveStringBytes(4)
        let v = scalar.value
        let at = stringBase + stringCount
        if v < 0x80 {
            at[0] = UInt8(v)
            stringCount &+= 1
        } else if v < 0x800 {
            at[0] = UInt8(0xC0 | v >> 6)
            at[1] = UInt8(0x80 | v & 0x3F)
            stringCount &+= 2
        } else if v < 0x10000 {
            at[0] = UInt8(0xE0 | v >> 12)
            at[1] = UInt8(0x80 | v >> 6 & 0x3F)
            at[2] = UInt8(0x80 | v & 0x3F)
            stringCount &+= 3
        } else {
            at[0] = UInt8(0xF0 | v >> 18)
            at[1] = UInt8(0x80 | v >> 12 & 0x3F)
            at[2] = UInt8(0x80 | v >> 6 & 0x3F)
            at[3] = UInt8(0x80 | v & 0x3F)
            stringCount &+= 4
        }
    }

    /// Finishes the string begun by `beginString` and adds it as a node.
    @inline(__always) public mutating func endString(line: Int, column: Int) throws(ConfigError) {
        reserveStringBytes(0)
        let start = pendingStringStart
        pendingStringStart = -1
        try finishString(start: start, line: line, column: column)
    }

    // MARK: - Raw string writing (the JSON reader's fast path)

    /// Makes sure `n` more string bytes fit without further checks (plus the NUL and the slack a
    /// reader writing whole 8-byte words past its last byte needs).
    mutating func reserveUnchecked(_ n: Int) {
        reserveStringBytes(n &+ 16)
    }

    /// Finishes a string whose bytes were written directly from `stringBase + start` up to `cursor`
    /// (room for them and the NUL reserved by `reserveUnchecked`), and adds it as a node. `isKey`
    /// says whether it is a key of the innermost map (the reader knows).
    @inline(__always) mutating func endReservedString(
        start: Int, at cursor: UnsafeMutablePointer<UInt8>, isKey: Bool, line: Int, column: Int
    ) throws(ConfigError) {
        let end = cursor - stringBase
        assert(end < stringCapacity, "DocumentBuilder: unchecked string bytes overran the reserve")
        cursor.pointee = 0
        stringCount = end &+ 1
        let length = end &- start
        if length > limits.maxStringBytes { throw stringTooLong(length, line: line, column: column) }
        assert(isKey == expectsKey, "DocumentBuilder: the reader's idea of a key differs")
        if isKey { noteKey(start: start, length: length) }
        try append(
            ConfigNode(
                kind: .string, line: DocumentBuilder.place(line), column: DocumentBuilder.place(column),
                payload: UInt64(start), extent: UInt32(truncatingIfNeeded: length)))
    }

    // MARK: - Containers

    /// Opens a list; close it with `endContainer`.
    @inline(__always) public mutating func beginList(line: Int, column: Int) throws(ConfigError) {
        try beginContainer(.list, line: line, column: column)
    }

    /// Opens a map; add key, value, key, value …, then close it with `endContainer`.
    @inline(__always) public mutating func beginMap(line: Int, column: Int) throws(ConfigError) {
        try beginContainer(.map, line: line, column: column)
    }

    /// Whether the innermost open container is a map (false at the top level).
    @inline(__always) var topIsMap: Bool { top.isMap }

    /// The node index of the innermost open container, or -1 when none is open.
    @inline(__always) var topIndex: Int { top.index }

    /// Closes the innermost open list or map (and checks a map for duplicate keys). With a sink,
    /// the root map's pairs complete so far are handed on when a container in them closes and they
    /// hold enough nodes, and the rest when the root map closes.
    @inline(__always) public mutating func endContainer() {
        let index = top.index
        guard index >= 0 else { return }
        let node = nodeBase + index
        node.pointee.extent = UInt32(truncatingIfNeeded: nodeCount)
        node.pointee.payload = UInt64(top.isMap ? top.children &>> 1 : top.children)
        let check = top.collisions != 0
        if openCount > 0 {
            openCount &-= 1
            top = openBase[openCount]
            if check { checkDuplicateKeys(map: index) }
            if openCount == 0 && nodeCount >= handAt && top.isMap && hasSink { handPairs() }
        } else {
            top = OpenContainer(index: -1, isMap: false, children: 1, keyBits: 0, collisions: 0)
            if hasSink && node.pointee.kind == .map {
                finishPairs(root: index)
            } else if check {
                checkDuplicateKeys(map: index)
            }
        }
    }

    /// Keeps every node from now on: pairs are still handed to the sink, but their nodes and bytes
    /// are not reused (a YAML anchor may be copied by a later alias).
    public mutating func keepNodes() {
        keepsNodes = true
    }

    /// Hands the root map's complete pairs not handed on yet to the sink (the root map is open and
    /// innermost, its last value complete), after checking their keys against every earlier key;
    /// then reuses their nodes and bytes unless `keepsNodes`.
    @inline(never) mutating func handPairs() {
        let from = handFrom, to = nodeCount
        var k = from
        if checksHandedKeys && topLevelNames.readsAhead {
            // The names' table cells first, all of them (see `TopLevelNames.touch`).
            var touched: UInt32 = 0
            while k < to {
                let key = nodeBase[k]
                touched |= topLevelNames.touch(
                    UnsafeBufferPointer(start: stringBase + Int(key.payload), count: Int(key.extent)))
                k = nextKey(after: k)
            }
            touchedCells = touched
            k = from
        }
        // The duplicates inside these pairs (found as their maps closed), and repeated names.
        while checksHandedKeys && k < to {
            let key = nodeBase[k]
            let name = UnsafeBufferPointer(start: stringBase + Int(key.payload), count: Int(key.extent))
            if let first = topLevelNames.insert(name, line: key.line, column: key.column) {
                duplicateKeys.append(k)
                topLevelDuplicates.append(duplicateDiagnostic(k, firstLine: first.line, firstColumn: first.column))
            }
            k = nextKey(after: k)
        }
        let nodes = UnsafeBufferPointer(start: UnsafePointer(nodeBase), count: nodeCount)
        let file = UnsafePointer(storage.file)
        if duplicateKeys.isEmpty {
            sink.pointee.unsafelyUnwrapped.take(
                DocumentView(
                    file: file, nodes: nodes, strings: stringBase, duplicateKeys: UnsafeBufferPointer(start: nil, count: 0)),
                pairs: from..<to)
        } else {
            duplicateKeys.sort()
            duplicateKeys.withUnsafeBufferPointer { duplicates in
                sink.pointee.unsafelyUnwrapped.take(
                    DocumentView(file: file, nodes: nodes, strings: stringBase, duplicateKeys: duplicates), pairs: from..<to)
            }
        }
        if !duplicateKeys.isEmpty { duplicateKeys.removeAll(keepingCapacity: true) }
        if keepsNodes {
            handFrom = to
            handAt = to &+ DocumentBuilder.handOnNodes
        } else {
            // Only the root map (node 0, no string bytes) stays.
            nodeLimit -= nodeCount &- 1
            nodeCount = 1
            nodeCapacity = min(nodeAllocated, nodeLimit)
            stringCount = 0
        }
    }

    /// The root map at `root` (node 0) closed with a sink: hands on its last pairs, reports its
    /// repeated keys, and leaves it alone in the document (its pair count kept).
    mutating func finishPairs(root: Int) {
        if handFrom < nodeCount { handPairs() }
        diagnostics += topLevelDuplicates
        topLevelDuplicates = []
        duplicateKeys.removeAll()
        nodeCount = root &+ 1
        nodeBase[root].extent = UInt32(truncatingIfNeeded: nodeCount)
        stringCount = 0
    }

    /// Appends a copy of the finished subtree rooted at node `index` (YAML aliases), counting it
    /// against `maxNodes`.
    public mutating func addCopy(of index: Int) throws(ConfigError) {
        let root = nodeBase[index]
        let end = root.isContainer ? Int(root.extent) : index + 1
        let size = end - index
        if size > nodeLimit - nodeCount {
            throw ConfigError(
                .limit, "the document has more than \(limits.maxNodes) values" + ConfigLimits.fix("CR_LIMIT_NODES"),
                at: location(line: Int(root.line), column: Int(root.column)))
        }
        if size > nodeCapacity - nodeCount { growNodes(size) }
        if expectsKey {
            if root.kind == .string { noteKey(start: Int(root.payload), length: Int(root.extent)) } else { top.collisions |= 1 }
        }
        top.children &+= 1
        let delta = nodeCount - index
        for i in index..<end {
            var n = nodeBase[i]
            if n.isContainer { n.extent = UInt32(Int(n.extent) + delta) }
            (nodeBase + nodeCount).initialize(to: n)
            nodeCount += 1
        }
    }

    /// The kind of node `index` added so far (for loaders that look back, such as YAML anchors).
    public func kind(of index: Int) -> ConfigNode.Kind { nodeBase[index].kind }

    /// Node `index` as added so far (a container's extent and count are set when it closes).
    public func node(at index: Int) -> ConfigNode {
        precondition(index >= 0 && index < nodeCount, "DocumentBuilder: node \(index) out of range")
        return nodeBase[index]
    }

    /// Moves node `index` to another place (a YAML alias's copy stands where the alias was written).
    public mutating func setPlace(of index: Int, line: Int, column: Int) {
        precondition(index >= 0 && index < nodeCount, "DocumentBuilder: node \(index) out of range")
        nodeBase[index].line = UInt32(clamping: line)
        nodeBase[index].column = UInt32(clamping: column)
    }

    /// The text of string node `index` added so far (for messages).
    public func string(at index: Int) -> String {
        let n = node(at: index)
        return String(decoding: UnsafeBufferPointer(start: stringBase + Int(n.payload), count: Int(n.extent)), as: UTF8.self)
    }

    /// Throws a syntax error if a container is still open.
    func checkClosed() throws(ConfigError) {
        if top.index >= 0 {
            let n = nodeBase[top.index]
            throw ConfigError(
                .syntax, "unterminated \(n.kind == .map ? "map" : "list")",
                at: location(line: Int(n.line), column: Int(n.column)))
        }
    }

    // MARK: - Internals

    /// A line or column as stored in a node (clamped; places are never negative).
    @inline(__always) static func place(_ value: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: min(UInt(bitPattern: value), UInt(UInt32.max)))
    }

    @inline(__always) mutating func append(_ node: ConfigNode) throws(ConfigError) {
        if nodeCount == nodeCapacity { try makeRoom(for: node) }
        (nodeBase + nodeCount).initialize(to: node)
        nodeCount &+= 1
        top.children &+= 1  // also counts top-level nodes, which nothing reads
    }

    /// The node buffer is full: grow it, or throw when the node limit is reached.
    @inline(never) mutating func makeRoom(for node: ConfigNode) throws(ConfigError) {
        if nodeCount >= nodeLimit { throw tooManyNodes(node) }
        growNodes(1)
    }

    /// Grows the node buffer to at least `n` more nodes (at least doubling it, at most `nodeLimit`).
    @inline(never) mutating func growNodes(_ n: Int) {
        if nodeCount + n > nodeAllocated {
            let wanted = max(nodeAllocated * 2, nodeCount + n)
            nodeAllocated = max(min(wanted, nodeLimit), nodeCount + n)
            nodeBase = storage.resizeNodes(nodeBase, count: nodeCount, capacity: nodeAllocated)
        }
        nodeCapacity = min(nodeAllocated, nodeLimit)
    }

    // The errors of the paths above, out of line so the per-value code stays small enough to inline.
    @inline(never) func tooManyNodes(_ node: ConfigNode) -> ConfigError {
        ConfigError(
            .limit, "the document has more than \(limits.maxNodes) values" + ConfigLimits.fix("CR_LIMIT_NODES"),
            at: location(line: Int(node.line), column: Int(node.column)))
    }

    @inline(never) func stringTooLong(_ length: Int, line: Int, column: Int) -> ConfigError {
        ConfigError(
            .limit,
            "string of \(length) bytes exceeds the limit of \(limits.maxStringBytes) bytes"
                + ConfigLimits.fix("CR_LIMIT_STRING_BYTES"),
            at: location(line: line, column: column))
    }

    @inline(never) func tooDeep(line: Int, column: Int) -> ConfigError {
        ConfigError(
            .limit, "nesting deeper than the limit of \(limits.maxDepth) levels" + ConfigLimits.fix("CR_LIMIT_DEPTH"),
            at: location(line: line, column: column))
    }

    @inline(__always) mutating func beginContainer(_ kind: ConfigNode.Kind, line: Int, column: Int) throws(ConfigError) {
        if depth >= limits.maxDepth { throw tooDeep(line: line, column: column) }
        try append(
            ConfigNode(
                kind: kind, line: DocumentBuilder.place(line), column: DocumentBuilder.place(column), payload: 0, extent: 0))
        if top.index >= 0 {
            if openCount == openCapacity { growOpen() }
            openBase[openCount] = top
            openCount &+= 1
        }
        top = OpenContainer(index: nodeCount &- 1, isMap: kind == .map, children: 0, keyBits: 0, collisions: 0)
    }

    @inline(never) mutating func growOpen() {
        openCapacity *= 2
        storage.resizeOpen(openCapacity)
        openBase = storage.open
    }

    /// Records the fingerprint of a key of the innermost map: a 6-bit hash of its length, first and
    /// last byte. Equal keys have equal fingerprints, so a map whose fingerprints are all distinct
    /// has no duplicate key.
    @inline(__always) mutating func noteKey(start: Int, length: Int) {
        let first = UInt64(stringBase[start])
        let last = UInt64(stringBase[start &+ length &- (length > 0 ? 1 : 0)])
        let h = (UInt64(truncatingIfNeeded: length) &<< 16 | first &<< 8 | last) &* 0x9E37_79B9_7F4A_7C15
        let bit: UInt64 = 1 &<< (h &>> 58)
        top.collisions |= top.keyBits & bit
        top.keyBits |= bit
    }

    /// The next key after the pair whose key is node `key`.
    @inline(__always) func nextKey(after key: Int) -> Int {
        let v = nodeBase + (key &+ 1)
        return v.pointee.isContainer ? Int(v.pointee.extent) : key &+ 2
    }

    /// Reports every key of map node `map` equal to an earlier key of the same map.
    mutating func checkDuplicateKeys(map: Int) {
        let count = Int(nodeBase[map].payload)
        guard count > 1 else { return }
        let end = Int(nodeBase[map].extent)
        if count <= 8 {
            // Small map: every key against the earlier ones, walked in place (no array of keys).
            var a = nextKey(after: map + 1)
            while a < end {
                let ka = nodeBase[a]
                var b = map + 1
                while b < a {
                    let kb = nodeBase[b]
                    if ka.extent == kb.extent && sameBytes(Int(ka.payload), Int(kb.payload), Int(ka.extent)) {
                        reportDuplicate(a, first: b)
                        break
                    }
                    b = nextKey(after: b)
                }
                a = nextKey(after: a)
            }
            return
        }
        // Open addressing over key indices; capacity is a power of two at least twice the count.
        var capacity = 16
        while capacity < count * 2 { capacity <<= 1 }
        let table = UnsafeMutablePointer<(hash: UInt64, key: Int)>.allocate(capacity: capacity)
        defer { table.deallocate() }
        table.initialize(repeating: (0, -1), count: capacity)
        var k = map + 1
        while k < end {
            let n = nodeBase[k]
            let h = byteHash(UnsafeRawBufferPointer(start: stringBase + Int(n.payload), count: Int(n.extent)))
            var slot = Int(truncatingIfNeeded: h) & (capacity - 1)
            while table[slot].key >= 0 {
                let other = nodeBase[table[slot].key]
                if table[slot].hash == h && other.extent == n.extent
                    && sameBytes(Int(other.payload), Int(n.payload), Int(n.extent))
                {
                    reportDuplicate(k, first: table[slot].key)
                    break
                }
                slot = (slot + 1) & (capacity - 1)
            }
            if table[slot].key < 0 { table[slot] = (h, k) }
            k = nextKey(after: k)
        }
    }

    /// Whether the `length` bytes at string offsets `x` and `y` are equal.
    func sameBytes(_ x: Int, _ y: Int, _ length: Int) -> Bool {
        length == 0 || (stringBase[x] == stringBase[y] && memcmp(stringBase + x, stringBase + y, length) == 0)
    }

    /// Records key node `dup` as a duplicate of key node `first`.
    mutating func reportDuplicate(_ dup: Int, first: Int) {
        duplicateKeys.append(dup)
        let f = nodeBase[first]
        diagnostics.append(duplicateDiagnostic(dup, firstLine: f.line, firstColumn: f.column))
    }

    /// The problem of key node `dup`, whose text a key written at `firstLine`, `firstColumn` has.
    func duplicateDiagnostic(_ dup: Int, firstLine: UInt32, firstColumn: UInt32) -> Diagnostic {
        let d = node(at: dup)
        return Diagnostic.duplicateKey(
            UnsafeBufferPointer(start: stringBase + Int(d.payload), count: Int(d.extent)),
            at: location(line: Int(d.line), column: Int(d.column)), firstLine: Int(firstLine), firstColumn: Int(firstColumn),
            text: storage.messageText())
    }
}

/// The buffers a `DocumentBuilder` moves to when the document's arrays it started in are full,
/// and its stack of open containers; freed with this object (the builder keeps copies of the
/// pointers, so the per-value paths touch no reference count).
final class DocumentStorage {
    /// Bytes past the string buffer's capacity that may be read or written as part of a word.
    static let stringSlack = 16

    /// Where duplicate-key messages are written (made at the first).
    private var text: TextBuffer?

    /// The buffer duplicate-key messages are written in.
    func messageText() -> TextBuffer {
        if let t = text { return t }
        let t = TextBuffer()
        text = t
        return t
    }

    /// The nodes once they outgrew the array they started in, else nil.
    private(set) var nodes: UnsafeMutablePointer<ConfigNode>? = nil
    /// The string bytes once they outgrew the array they started in, else nil.
    private(set) var strings: UnsafeMutablePointer<UInt8>? = nil
    private(set) var open: UnsafeMutablePointer<DocumentBuilder.OpenContainer>
    /// The file name and the sink, where the views handed to the sink point to them (no reference
    /// count touched per pair).
    let file: UnsafeMutablePointer<String>
    let sink: UnsafeMutablePointer<TopLevelPairSink?>

    init(open: Int, file: String, sink: TopLevelPairSink?) {
        self.open = .allocate(capacity: open)
        self.file = .allocate(capacity: 1)
        self.file.initialize(to: file)
        self.sink = .allocate(capacity: 1)
        self.sink.initialize(to: sink)
    }

    deinit {
        file.deinitialize(count: 1)
        file.deallocate()
        sink.deinitialize(count: 1)
        sink.deallocate()
        free(nodes)
        free(strings)
        open.deallocate()
    }

    /// Room for `capacity` nodes holding the `count` at `current`; returns where they are now.
    func resizeNodes(_ current: UnsafeMutablePointer<ConfigNode>, count: Int, capacity: Int) -> UnsafeMutablePointer<ConfigNode> {
        nodes = DocumentStorage.resize(nodes, from: current, count: count, capacity: capacity)
        return nodes!
    }

    /// Room for `capacity` string bytes holding the `count` at `current`; returns where they are now.
    func resizeStrings(_ current: UnsafeMutablePointer<UInt8>, count: Int, capacity: Int) -> UnsafeMutablePointer<UInt8> {
        strings = DocumentStorage.resize(strings, from: current, count: count, capacity: capacity)
        return strings!
    }

    func resizeOpen(_ capacity: Int) {
        let grown = UnsafeMutablePointer<DocumentBuilder.OpenContainer>.allocate(capacity: capacity)
        grown.moveInitialize(from: open, count: capacity / 2)
        open.deallocate()
        open = grown
    }

    /// `owned` (or a new buffer holding the `count` values at `current`) grown to `capacity`.
    static func resize<T>(
        _ owned: UnsafeMutablePointer<T>?, from current: UnsafeMutablePointer<T>, count: Int, capacity: Int
    ) -> UnsafeMutablePointer<T> {
        let bytes = max(capacity, 1) * MemoryLayout<T>.stride
        if let owned {
            guard let raw = realloc(owned, bytes) else { fatalError("DocumentBuilder: out of memory") }
            return raw.bindMemory(to: T.self, capacity: max(capacity, 1))
        }
        guard let raw = malloc(bytes) else { fatalError("DocumentBuilder: out of memory") }
        let grown = raw.bindMemory(to: T.self, capacity: max(capacity, 1))
        grown.update(from: current, count: count)
        return grown
    }
}
