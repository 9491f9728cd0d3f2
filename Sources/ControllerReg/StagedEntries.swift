import ControllerRegConfig

/// A change's entries as every door hands them to the transaction: each definition written once
/// as a record in the change's `DefinitionArena` (the form the registry keeps), and what the
/// transaction reads of it without decoding it: its name's hash, lifestyle and class, and its uses
/// of other entries as one flat list of integers. The entry decoder writes records straight from a
/// document; code doors (`Registry.add`, `cr_add_entry`, child registries, reloads) encode their
/// `EntryDefinition`s. Either way `add(record:)` reads the record back (`DefinitionCoding.summarize`),
/// so every door meets the same summary and the same checks. Definitions are decoded again only
/// where a message, an environment value or a child registry needs them.
struct StagedEntries {
    /// The arena the records are in (the transaction's; its plans go there too).
    let arena: DefinitionArena
    /// The load's region for temporaries (nil: `malloc`): the lists below, and the transaction's.
    let scratch: ScratchRegion?
    /// What the transaction reads of each record, by staged position: one row each (40 bytes,
    /// read together: one list, not five).
    private var rows: ScratchArray<Row>
    /// The uses of other entries of position `k`: `edges[edgeRange(k)]`.
    private(set) var edges: ScratchArray<StagedEdge>

    /// One staged record.
    private struct Row {
        /// The record's offset in the arena.
        var record: Int
        var summary: DefinitionCoding.Summary
        /// `NameTable.hash` of its name (the key of every name lookup of a change).
        var nameHash: UInt64
        /// Where its dependencies start (what its plan is compiled from), as the distance from
        /// the record's offset (`UInt32.max`: read from the record instead).
        var dependencyDistance: UInt32
        /// Where its uses of other entries end in `edges` (they start where the row before's end).
        var edgeEnd: Int32
    }
    /// The file of each document the entry decoder staged entries from, from the position of
    /// its first one on: the file of the places its `StagedEdge`s keep.
    private(set) var documentFiles: [(from: Int, file: String)] = []
    /// The environment a definition from code was committed with (a child recompiling its
    /// parent's entries), by position; empty for loads.
    private(set) var environments: [Int: EnvironmentLookup] = [:]
    /// The staged names, indexed as they are staged once `indexNames()` was called (a load);
    /// nil otherwise (the transaction indexes them).
    private(set) var names: StagedNames?
    /// How many entries the lists were sized for (what the name index is sized for).
    private let expectedEntries: Int

    /// Room for about `entries` entries holding about `textBytes` bytes of text (0: unknown);
    /// the lists (and the arena's interning table) in `scratch` when given (a large load's).
    init(entries: Int, textBytes: Int = 0, scratch: ScratchRegion? = nil) {
        arena = DefinitionArena(entries: entries, textBytes: textBytes, scratch: scratch)
        self.scratch = scratch
        expectedEntries = entries
        rows = ScratchArray(capacity: entries, in: scratch)
        edges = ScratchArray(capacity: entries * 2, in: scratch)
    }

    /// `definitions` encoded, in order (the code doors).
    init(_ definitions: [EntryDefinition]) {
        self.init(entries: definitions.count)
        for d in definitions { append(d) }
    }

    /// How many entries are staged.
    var count: Int { rows.count }

    /// Encodes `definition` and stages it.
    mutating func append(_ definition: EntryDefinition) {
        if let e = definition.environment { environments[rows.count] = e }
        add(record: DefinitionCoding.encode(definition, into: arena))
    }

    /// Stages the record just written at `offset`, reading its summary back from it.
    mutating func add(record offset: Int) {
        let distance = StagedEntries.distance(DefinitionCoding.dependenciesPosition(arena, at: offset), from: offset)
        let summary = DefinitionCoding.summarize(arena, at: offset, edges: &edges)
        let name = DefinitionCoding.nameBytes(arena, at: offset)
        let hash = NameTable.hash(name.baseAddress ?? emptyKey, name.count)
        rows.append(
            Row(record: offset, summary: summary, nameHash: hash, dependencyDistance: distance, edgeEnd: Int32(edges.count)))
        names?.add(rows.count - 1, hash: hash, staged: self)
    }

    /// Stages the record `writer` just wrote at `offset`, with the summary and edges it gathered
    /// while writing (the entry decoder: the record is not read again). Debug builds check them
    /// against `DefinitionCoding.summarize`, the one reading every other door gets. `name`: when
    /// the caller looked its name up already (`firstPosition`), its `NameTable.hash` and where it
    /// is first staged (nil: nowhere).
    mutating func add(
        record offset: Int, writtenBy writer: DefinitionCoding.RecordWriter, name: (hash: UInt64, firstStaged: Int?)? = nil
    ) {
        assert(
            {
                var read: [StagedEdge] = []
                let summary = DefinitionCoding.summarize(arena, at: offset, edges: &read)
                return summary == writer.summary && read == Array(writer.edges)
                    && DefinitionCoding.dependenciesPosition(arena, at: offset) == writer.dependenciesPosition
            }(), "the record writer's summary differs from the record's")
        // One at a time: an entry has a few (the generic `append(contentsOf:)` cost ~90
        // instructions an entry, the loop a dozen an edge).
        for e in writer.edges { edges.append(e) }
        let hash: UInt64
        if let name {
            assert(
                name.hash
                    == NameTable.hash(
                        DefinitionCoding.nameBytes(arena, at: offset).baseAddress ?? emptyKey,
                        DefinitionCoding.nameBytes(arena, at: offset).count),
                "the name's hash given differs")
            assert(
                name.firstStaged == firstPosition(named: DefinitionCoding.nameBytes(arena, at: offset), hash: name.hash),
                "the name's first position given differs")
            hash = name.hash
        } else {
            let name = DefinitionCoding.nameBytes(arena, at: offset)
            hash = NameTable.hash(name.baseAddress ?? emptyKey, name.count)
        }
        rows.append(
            Row(
                record: offset, summary: writer.summary, nameHash: hash,
                dependencyDistance: StagedEntries.distance(writer.dependenciesPosition, from: offset),
                edgeEnd: Int32(edges.count)))
        if let name {
            // Only a table that grows reads the staged rows: the staged list is passed (a copy of
            // it made) then alone, not for every entry. (That copy, read right after the row's
            // stores, waited for them to reach memory: ~4% of a 100k load. Optional chaining,
            // not `if let`: a retain, atomic, would wait for them too.)
            let k = rows.count - 1
            if name.firstStaged == nil && names?.needsRoom(toAdd: k) == true { names?.makeRoom(toAdd: k, staged: self) }
            names?.add(k, hash: hash, firstStaged: name.firstStaged)
        } else {
            names?.add(rows.count - 1, hash: hash, staged: self)
        }
    }

    /// Indexes the names staged so far and every one staged from now on (`names`). The table has
    /// room for half the entries expected (the estimate from the input's size errs on the large
    /// side: a sparser table is more memory touched at random), and grows once if there are more.
    mutating func indexNames() {
        if names == nil { names = StagedNames(indexing: self, count: count, capacity: expectedEntries / 2, in: scratch) }
    }

    /// The names indexed (`indexNames`), or an index of them made now (in the change's region).
    func nameIndex() -> StagedNames { names ?? StagedNames(indexing: self, count: count, in: scratch) }

    /// Stops indexing the names staged from now on (entries a transaction stages again: not the
    /// change's own names).
    mutating func stopIndexingNames() { names = nil }

    /// The first staged position whose name is `bytes` (hash `hash`); nil if none or the names are
    /// not indexed.
    func firstPosition(named bytes: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int? {
        names?.first(of: bytes, hash: hash, staged: self)
    }

    /// Notes that the entries staged from now on are written from the document `file` (with the
    /// places their edges keep).
    mutating func beginDocument(file: String) {
        documentFiles.append((count, file))
    }

    /// The file of the document entry `k` was staged from (nil for an entry from code).
    func documentFile(of k: Int) -> String? {
        for d in documentFiles.reversed() where d.from <= k { return d.file }
        return nil
    }

    /// `documentFile(of:)`, with the positions staged from that document (`from..<upTo`; the last
    /// document's run on to `Int.max`).
    func document(of k: Int) -> (file: String, positions: Range<Int>)? {
        var upTo = Int.max
        for d in documentFiles.reversed() {
            if d.from <= k { return (d.file, d.from..<upTo) }
            upTo = d.from
        }
        return nil
    }

    /// Unstages the last `k` entries (a document that failed to read after some of its entries
    /// were staged). Their records stay in the arena, unreferenced, as an invalid entry's do.
    mutating func removeLast(_ k: Int) {
        guard k > 0 else { return }
        let n = rows.count - k
        rows.removeLast(k)
        edges.removeLast(edges.count - (n == 0 ? 0 : Int(rows[n - 1].edgeEnd)))
        environments = environments.filter { $0.key < n }
        documentFiles.removeAll { $0.from >= n }
        // Indexed again without them (a failed document: rare).
        if names != nil { names = StagedNames(indexing: self, count: n, in: scratch) }
    }

    /// The arena offset of position `k`'s record.
    @inline(__always) func record(_ k: Int) -> Int { rows[k].record }

    /// What the transaction reads of position `k`'s record.
    @inline(__always) func summary(_ k: Int) -> DefinitionCoding.Summary { rows[k].summary }

    /// `NameTable.hash` of position `k`'s name.
    @inline(__always) func nameHash(_ k: Int) -> UInt64 { rows[k].nameHash }

    /// Where position `k`'s uses of other entries are in `edges`.
    @inline(__always) func edgeRange(_ k: Int) -> Range<Int> {
        (k == 0 ? 0 : Int(rows[k - 1].edgeEnd))..<Int(rows[k].edgeEnd)
    }

    /// Where the dependencies of position `k`'s record start.
    func dependencyPosition(_ k: Int) -> Int {
        let row = rows[k]
        return row.dependencyDistance != .max
            ? row.record + Int(row.dependencyDistance) : DefinitionCoding.dependenciesPosition(arena, at: row.record)
    }

    /// `position - offset` as stored in `Row.dependencyDistance`.
    @inline(__always) private static func distance(_ position: Int, from offset: Int) -> UInt32 {
        position - offset < Int(UInt32.max) ? UInt32(truncatingIfNeeded: position - offset) : .max
    }

    /// The name's bytes of position `k` (valid until the arena is written again).
    func nameBytes(_ k: Int) -> UnsafeBufferPointer<UInt8> { DefinitionCoding.nameBytes(arena, at: record(k)) }

    /// The name of position `k`.
    func name(_ k: Int) -> String { DefinitionCoding.name(arena, at: record(k)) }

    /// The definition at position `k`, decoded (with the environment it carried, if any).
    func definition(_ k: Int) -> EntryDefinition {
        var d = DefinitionCoding.decode(arena, at: record(k))
        if !environments.isEmpty { d.environment = environments[k] }
        return d
    }

    /// The bytes of an interned string by its identity (`StagedEdge.payload` of a named edge).
    func internedBytes(_ id: Int) -> UnsafeBufferPointer<UInt8> {
        var r = DefinitionReader(arena, at: id)
        return r.stringBytes()
    }

    /// The entry name or tag text an edge names.
    func text(of edge: StagedEdge) -> String {
        edge.kind == .taggedInt ? String(edge.payload) : String(decoding: internedBytes(Int(edge.payload)), as: UTF8.self)
    }
}

/// Where `DefinitionCoding.summarize` appends the uses it reads: a staged change's list, or a
/// plain array.
protocol StagedEdgeList {
    mutating func append(_ edge: StagedEdge)
}

extension Array: StagedEdgeList where Element == StagedEdge {}
extension ScratchArray: StagedEdgeList where Element == StagedEdge {}

/// One use of other entries in a staged record (`DependencyValue.forEachEdge`'s, as integers), and,
/// when the entry decoder wrote it, where it is: its line and column and its dependency's key, so
/// a message about it (a reference to no entry) needs no walk through the record. 16 bytes, as
/// before the place was kept: the place fills what was padding, and a named edge's identity, an
/// arena position, fits in 32 bits (a change's arena is refused above 4 GiB before any edge is
/// read).
struct StagedEdge: Equatable {
    enum Kind: UInt8 {
        case reference, provider, tagged, taggedInt, optional
    }

    var kind: Kind
    /// Bits 16-23 and 0-15 of the place's column (kept when it is below 2^24).
    private var columnHigh: UInt8 = 0
    private var columnLow: UInt16 = 0
    /// The place's line; 0 when no place is kept (read it from the record: `DefinitionCoding.place`).
    private var line: UInt32 = 0
    /// The low 32 bits of `payload`.
    private var low: UInt32
    /// For `.taggedInt` the high 32 bits of the tag; otherwise the identity of the interned key of
    /// the dependency the use is in, when the place is kept.
    private var high: UInt32 = 0

    /// A use without its place.
    init(kind: Kind, payload: Int64) {
        self.kind = kind
        low = UInt32(truncatingIfNeeded: payload)
        if kind == .taggedInt { high = UInt32(truncatingIfNeeded: payload >> 32) }
    }

    /// A named use (not `.taggedInt`) at `line` and `column` of its document, in the dependency
    /// whose key's interned identity is `key` (a place that does not fit is not kept).
    @inline(__always)
    init(kind: Kind, payload: Int64, line: Int, column: Int, key: Int) {
        self.kind = kind
        low = UInt32(truncatingIfNeeded: payload)
        // One unsigned comparison each: 1...UInt32.max, 0..<2^24, 0...UInt32.max.
        guard kind != .taggedInt, UInt(bitPattern: line &- 1) < UInt(UInt32.max), UInt(bitPattern: column) < 1 << 24,
            UInt(bitPattern: key) <= UInt(UInt32.max)
        else { return }
        self.line = UInt32(truncatingIfNeeded: line)
        columnHigh = UInt8(truncatingIfNeeded: column >> 16)
        columnLow = UInt16(truncatingIfNeeded: column)
        high = UInt32(truncatingIfNeeded: key)
    }

    /// For `.taggedInt` the tag; otherwise the identity of the interned name or tag text (its
    /// position in the arena: equal texts, equal identities).
    var payload: Int64 {
        kind == .taggedInt ? Int64(bitPattern: UInt64(high) << 32 | UInt64(low)) : Int64(low)
    }

    /// `payload` of a named use (not `.taggedInt`): the interned text's identity.
    var id: Int { Int(low) }

    /// Where the use is written (line and column in its record's file) and its dependency's key
    /// (the interned identity); nil when not kept.
    var place: (line: Int, column: Int, key: Int)? {
        guard line != 0 else { return nil }
        return (Int(line), Int(columnHigh) << 16 | Int(columnLow), Int(high))
    }

    /// The same use (kind and payload; where it is written is not compared: `summarize` does not
    /// read it back).
    static func == (a: StagedEdge, b: StagedEdge) -> Bool {
        a.kind == b.kind && a.payload == b.payload
    }
}
