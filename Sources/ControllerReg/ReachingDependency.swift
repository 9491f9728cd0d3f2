#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The dependency through which an entry reaches another by an object edge (a reference, an
/// optional reference, or a tagged list asking for one of the other entry's tags; not a provider):
/// what a cycle message ("via key 'k' of 'A'") and a lifetime message ("key 'k' of 'A'") name.
///
/// Read from the entry's definition record in place, no `EntryDefinition` decoded: the first such
/// dependency in written order and its first such edge (inside lists and maps too), as walking the
/// decoded definition's dependencies with `DependencyValue.forEachEdge` finds it. A failing load
/// names one per cycle or lifetime problem it lists, and decoding a whole definition for it cost
/// more than the rest of the message.
struct ReachingDependency {
    /// The dependency's key (its bytes in the record's arena).
    var key: UnsafeBufferPointer<UInt8>
    /// The edge: `.reference`, `.optional` or `.tagged`.
    var kind: DependencyEdge.Kind
    /// The tag's text, for a tagged list.
    var tag: String?
    /// Where the edge was written, else where its dependency was.
    var location: SourceLocation?

    /// The entry's own place and the dependency of the record at `offset` in `arena` that reaches
    /// the entry named `target` (nil when none does); `tagsOfTarget` gives that entry's tags' texts,
    /// asked for at the first tagged list met.
    static func find(
        in arena: DefinitionArena, at offset: Int, reaching target: UnsafeBufferPointer<UInt8>,
        tagsOfTarget: () -> Set<String>
    ) -> (entryLocation: SourceLocation?, via: ReachingDependency?) {
        var walk = Walk(target: target)
        var r = DefinitionReader(arena, at: offset)
        let entryPlace =
            DefinitionCoding.skipHeader(&r) & DefinitionCoding.Flag.location != 0 ? walk.place.read(&r) : nil
        for _ in 0..<Int(r.varint()) {
            let key = r.stringBytes()
            let place = walk.place.read(&r)
            if var found = walk.edge(r.tag(), &r, tagsOfTarget) {
                found.key = key
                if found.location == nil { found.location = place?.location }
                return (entryPlace?.location, found)
            }
        }
        return (entryPlace?.location, nil)
    }

    /// A place read from a record, its file's bytes in the arena (made a `SourceLocation` only for
    /// the edge found).
    private struct Place {
        var file: UnsafeBufferPointer<UInt8>?
        var line: Int
        var column: Int

        var location: SourceLocation {
            SourceLocation(file: file.map { String(decoding: $0, as: UTF8.self) } ?? "", line: line, column: column)
        }
    }

    /// `DefinitionCoding.PlaceCursor` giving each place read as a `Place` (nil when none is written).
    private struct PlaceCursor {
        private var cursor = DefinitionCoding.PlaceCursor()

        @inline(__always)
        mutating func read(_ r: inout DefinitionReader) -> Place? {
            cursor.read(&r) ? Place(file: cursor.file, line: cursor.line, column: cursor.column) : nil
        }
    }

    /// The walk over one record's values: its places read in order (each is written relative to
    /// the one before), the target's tags read once.
    private struct Walk {
        let target: UnsafeBufferPointer<UInt8>
        var tags: Set<String>?
        var place = PlaceCursor()

        init(target: UnsafeBufferPointer<UInt8>) { self.target = target }

        /// The first object edge reaching the target in the value whose tag byte `tag` was just
        /// read (its key left empty), or nil after reading past the value.
        mutating func edge(
            _ tag: DefinitionCoding.ValueTag, _ r: inout DefinitionReader, _ tagsOfTarget: () -> Set<String>
        ) -> ReachingDependency? {
            let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
            switch tag {
            case .reference, .optional:
                let name = r.stringBytes()
                let place = self.place.read(&r)
                guard Walk.same(name, target) else { return nil }
                return ReachingDependency(key: none, kind: tag == .optional ? .optional : .reference, location: place?.location)
            case .provider, .template:
                _ = r.stringBytes()
                _ = place.read(&r)
                return nil
            case .taggedString, .taggedInt:
                let text = tag == .taggedInt ? String(r.signed()) : String(decoding: r.stringBytes(), as: UTF8.self)
                let place = self.place.read(&r)
                if tags == nil { tags = tagsOfTarget() }
                guard tags!.contains(text) else { return nil }
                return ReachingDependency(key: none, kind: .tagged, tag: text, location: place?.location)
            case .list:
                for _ in 0..<Int(r.varint()) {
                    if let found = edge(r.tag(), &r, tagsOfTarget) { return found }
                }
                return nil
            case .map:
                for _ in 0..<Int(r.varint()) {
                    // (An edge without a place of its own is placed at the entry's dependency, not
                    // at this inner key.)
                    _ = r.stringBytes()
                    _ = place.read(&r)
                    if let found = edge(r.tag(), &r, tagsOfTarget) { return found }
                }
                return nil
            case .env:
                DefinitionCoding.skipEnvBody(&r)
                _ = place.read(&r)
                return nil
            case .null, .false, .true, .int, .double, .string:
                DefinitionCoding.skipValue(tag, &r)
                return nil
            }
        }

        /// Whether two names are the same bytes.
        static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            guard a.count == b.count else { return false }
            guard a.count > 0, let x = a.baseAddress, let y = b.baseAddress else { return true }
            return memcmp(x, y, a.count) == 0
        }
    }
}
