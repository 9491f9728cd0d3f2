#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of entries read from their definition records, without decoding them: a committed table's
/// live entries or a change's staged ones. What `ReloadChanges` compares, so a reload (and a child
/// recompiled over its changed parent) learns what changed without decoding every definition.
protocol EntryRecordSet {
    /// Positions run from 0 below this; some may hold no entry.
    var positionCount: Int { get }
    /// The name's bytes of the entry at position `k`, nil where there is none.
    func entryName(at k: Int) -> UnsafeBufferPointer<UInt8>?
    /// The position of the entry named by `name`'s bytes, nil when there is none (the later one
    /// when a name is repeated).
    func position(ofName name: UnsafeBufferPointer<UInt8>) -> Int?
    /// Whether some name is given to two positions (staged entries not applied yet).
    var repeatsAName: Bool { get }
    /// Where the record of the entry at `k` is.
    func definitionRecord(at k: Int) -> (arena: DefinitionArena, offset: Int)
    /// Whether the entry at `k` has environment values (compared by what they resolve to).
    func usesEnvironment(at k: Int) -> Bool
    /// The entry at `k` decoded, with the environment it resolves against.
    func decoded(at k: Int) -> EntryDefinition
}

extension EntryTable: EntryRecordSet {
    var positionCount: Int { count }

    func entryName(at k: Int) -> UnsafeBufferPointer<UInt8>? {
        guard isLive(k), let (p, n) = names.bytes(at: k) else { return nil }
        return UnsafeBufferPointer(start: p, count: n)
    }

    func position(ofName name: UnsafeBufferPointer<UInt8>) -> Int? {
        let i = index(of: name, hash: NameTable.hash(name.baseAddress ?? emptyKey, name.count))
        return i >= 0 ? i : nil
    }

    var repeatsAName: Bool { false }

    func definitionRecord(at k: Int) -> (arena: DefinitionArena, offset: Int) { recordLocation(at: k) }

    func usesEnvironment(at k: Int) -> Bool { !environments.isEmpty && environments[Int32(k)] != nil }

    func decoded(at k: Int) -> EntryDefinition { definition(at: k)! }
}

/// A change's staged entries, with the environment a load resolves them against (`lookup`; the
/// definitions from code carry their own).
struct StagedRecordSet: EntryRecordSet {
    let staged: StagedEntries
    let lookup: EnvironmentLookup?
    private let byName: [NameKey: Int]
    let repeatsAName: Bool

    init(staged: StagedEntries, lookup: EnvironmentLookup?) {
        self.staged = staged
        self.lookup = lookup
        var byName: [NameKey: Int] = [:]
        byName.reserveCapacity(staged.count)
        var repeats = false
        for k in 0..<staged.count where byName.updateValue(k, forKey: NameKey(staged.nameBytes(k))) != nil { repeats = true }
        self.byName = byName
        repeatsAName = repeats
    }

    var positionCount: Int { staged.count }

    func entryName(at k: Int) -> UnsafeBufferPointer<UInt8>? { staged.nameBytes(k) }

    func position(ofName name: UnsafeBufferPointer<UInt8>) -> Int? { byName[NameKey(name)] }

    func definitionRecord(at k: Int) -> (arena: DefinitionArena, offset: Int) { (staged.arena, staged.record(k)) }

    func usesEnvironment(at k: Int) -> Bool { staged.summary(k).usesEnvironment }

    func decoded(at k: Int) -> EntryDefinition {
        var d = staged.definition(k)
        if d.environment == nil { d.environment = lookup }
        return d
    }
}

/// An entry name by its bytes in a record arena (valid while the arena lives): equal and hashed
/// by bytes, as the registry tells names apart.
struct NameKey: Hashable {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func == (a: NameKey, b: NameKey) -> Bool {
        a.bytes.count == b.bytes.count
            && (a.bytes.count == 0 || memcmp(a.bytes.baseAddress!, b.bytes.baseAddress!, a.bytes.count) == 0)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(NameTable.hash(bytes.baseAddress ?? emptyKey, bytes.count)) }

    /// The name as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
