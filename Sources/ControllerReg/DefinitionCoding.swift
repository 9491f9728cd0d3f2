#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The compact form a registry keeps of each committed definition (instead of the decoded
/// `EntryDefinition`), and decoding it back on demand for `Registry.entries`, `entry(named:)`, the
/// tool and messages about existing entries. Decoding gives back exactly what was committed,
/// source locations included.
///
/// A record in a `DefinitionArena`:
///
///     flags      byte: lifestyle (bits 0-1), eager (2), description (3), tags (4-5: one string,
///                one integer, or both bits for a list), location (6)
///     name       inline string (first, so the name is read without decoding the rest)
///     className  interned string
///     description?  inline string
///     tag?       inline string, or zigzag varint; a list: varint count, then each as a value
///                (`ValueTag.string` or `.int` and its payload)
///     location?  place (see below)
///     count      varint, then that many dependencies: key (interned), place, value
///
/// A value is a tag byte and its payload (`ValueTag`). A place is one varint, 0 for none, else the
/// line as a zigzag delta from the record's previous place shifted left by 2, or'd with 1 (same file
/// as that place) or 2 (a new file, given next as an interned string); or 3, a new file and the
/// line itself (a delta too large to shift); then the column (zigzag), as a delta from the previous
/// place's column when the varint is 1 (same file and line: a binary plist's byte offsets). Strings are a varint
/// header: even, the byte length of the text that follows (then a NUL); odd, the offset of an
/// interned string. Keys are interned; literal strings are written in place or, when an equal one
/// was written recently, as that copy's offset (`DefinitionArena.appendLiteral`): compiled plans
/// point at them.
///
/// Every switch over `DependencyValue` here is exhaustive, so a new case does not compile until it
/// is encoded and decoded.
enum DefinitionCoding {
    /// The tag byte of a value in a record (the plan compiler reads values in place by it).
    enum ValueTag: UInt8 {
        case null = 0, `false`, `true`, int, double, string, reference, provider, list, map, template, env
        /// `{Tagged: t}`: a string tag (interned) or an integer tag (zigzag), then a place.
        case taggedString, taggedInt
        /// `{Optional: Name}`: the name (interned), then a place.
        case optional

        /// The tag written as `byte`, or `.null` for a byte no tag has: inline, where
        /// `init(rawValue:)` was a call per value read (the plan compiler reads one per dependency).
        @inline(__always)
        static func read(_ byte: UInt8) -> ValueTag {
            // The cases are 0 ... `optional` in order, so a byte in that range is one of them.
            let tag = byte <= ValueTag.optional.rawValue ? unsafeBitCast(byte, to: ValueTag.self) : .null
            assert(tag == ValueTag(rawValue: byte) ?? .null, "ValueTag's cases are no longer numbered in order")
            return tag
        }
    }

    /// The `Default` of an `Env` value: a byte, then its payload.
    private enum DefaultTag: UInt8 {
        case none = 0, string, int, double, `false`, `true`
    }

    enum Flag {
        static let lifestyleMask: UInt8 = 3
        static let eager: UInt8 = 4
        static let description: UInt8 = 8
        static let tagString: UInt8 = 16
        static let tagInt: UInt8 = 32
        /// Both tag bits: the tags are a list (none, or more than one).
        static let tagList: UInt8 = 48
        static let location: UInt8 = 64
    }

    private static func code(_ lifestyle: Lifestyle) -> UInt8 {
        switch lifestyle {
        case .transient: return 0
        case .singleton: return 1
        case .graph: return 2
        }
    }

    private static func lifestyle(_ code: UInt8) -> Lifestyle {
        switch code & Flag.lifestyleMask {
        case 1: return .singleton
        case 2: return .graph
        default: return .transient
        }
    }

    // MARK: Encoding

    /// Writes `def` into `arena`; returns the record's offset.
    static func encode(_ def: EntryDefinition, into arena: DefinitionArena) -> Int {
        let offset = arena.count
        var flags = code(def.lifestyle)
        if def.eager { flags |= Flag.eager }
        if def.description != nil { flags |= Flag.description }
        let single = def.tags.count == 1 ? def.tags[0] : nil
        flags |= tagFlags(single: single, list: def.tags)
        if def.location != nil { flags |= Flag.location }
        arena.append(flags)
        arena.appendInline(def.name)
        arena.appendInterned(def.className)
        if let d = def.description { arena.appendInline(d) }
        writeTags(single: single, list: def.tags, into: arena)
        var place = PlaceWriter()
        if let l = def.location { place.write(l, into: arena) }
        arena.appendVarint(UInt64(def.dependencies.count))
        // Each dependency read in place (binding `d` copied it: key, value and location retained
        // and released once per dependency of every entry committed).
        // Fields read through the buffer: passing `deps[i]` on, even to an inlined function,
        // copied the whole `Dependency` (~200 instructions each).
        def.dependencies.withUnsafeBufferPointer { deps in
            for i in deps.indices {
                arena.appendInterned(deps[i].key)
                place.write(deps[i].location, into: arena)
                encode(deps[i].value, into: arena, place: &place)
            }
        }
        return offset
    }

    /// The flag bits announcing a record's tags: one string, one integer, or a list (more than one).
    static func tagFlags(single: EntryTag?, list: [EntryTag]) -> UInt8 {
        switch single {
        case .none: return list.count > 1 ? Flag.tagList : 0
        case .string: return Flag.tagString
        case .int: return Flag.tagInt
        }
    }

    /// Writes a record's tags as its flags announce them: one tag alone (`single`) as an inline
    /// string or zigzag integer; otherwise, when `list` holds more than one, its count and each as
    /// a value. Inline: most records have one tag or none (a call per record cost more than
    /// writing it); a list goes to `writeTagList`.
    @inline(__always)
    static func writeTags(single: EntryTag?, list: [EntryTag], into arena: DefinitionArena) {
        if let single {
            switch single {
            case .string(let s): arena.appendInline(s)
            case .int(let i): arena.appendSigned(i)
            }
        } else if list.count > 1 {
            writeTagList(list, into: arena)
        }
    }

    /// `writeTags` of a list of more than one tag: its count, then each as a value.
    @inline(never)
    private static func writeTagList(_ list: [EntryTag], into arena: DefinitionArena) {
        arena.appendVarint(UInt64(list.count))
        for t in list {
            switch t {
            case .string(let s):
                arena.append(ValueTag.string.rawValue)
                arena.appendInline(s)
            case .int(let i):
                arena.append(ValueTag.int.rawValue)
                arena.appendSigned(i)
            }
        }
    }

    /// Inlined where a dependency's value is read in place, so it is not copied for the call;
    /// values inside lists and maps go through `encodeNested` (one outlined recursion).
    @inline(__always)
    private static func encode(_ value: DependencyValue, into arena: DefinitionArena, place: inout PlaceWriter) {
        switch value {
        case .null:
            arena.append(ValueTag.null.rawValue)
        case .bool(let b):
            arena.append(b ? ValueTag.true.rawValue : ValueTag.false.rawValue)
        case .int(let i):
            arena.append(ValueTag.int.rawValue)
            arena.appendSigned(i)
        case .double(let d):
            arena.append(ValueTag.double.rawValue)
            arena.appendFixed64(d.bitPattern)
        case .string(let s):
            arena.append(ValueTag.string.rawValue)
            arena.appendLiteral(s)
        case .reference(let name, let at):
            arena.append(ValueTag.reference.rawValue)
            arena.appendInterned(name)
            place.write(at, into: arena)
        case .provider(let name, let at):
            arena.append(ValueTag.provider.rawValue)
            arena.appendInterned(name)
            place.write(at, into: arena)
        case .tagged(.string(let tag), let at):
            arena.append(ValueTag.taggedString.rawValue)
            arena.appendInterned(tag)
            place.write(at, into: arena)
        case .tagged(.int(let tag), let at):
            arena.append(ValueTag.taggedInt.rawValue)
            arena.appendSigned(tag)
            place.write(at, into: arena)
        case .optional(let name, let at):
            arena.append(ValueTag.optional.rawValue)
            arena.appendInterned(name)
            place.write(at, into: arena)
        case .list(let items):
            arena.append(ValueTag.list.rawValue)
            arena.appendVarint(UInt64(items.count))
            for item in items { encodeNested(item, into: arena, place: &place) }
        case .map(let deps):
            arena.append(ValueTag.map.rawValue)
            arena.appendVarint(UInt64(deps.count))
            for d in deps {
                arena.appendInterned(d.key)
                place.write(d.location, into: arena)
                encodeNested(d.value, into: arena, place: &place)
            }
        case .template(let text, let at):
            arena.append(ValueTag.template.rawValue)
            arena.appendInline(text)
            place.write(at, into: arena)
        case .env(let e):
            // name, type (EnvType.allCases index), default, place
            arena.append(ValueTag.env.rawValue)
            arena.appendInterned(e.name)
            arena.append(UInt8(EnvType.allCases.firstIndex(of: e.type)!))
            switch e.defaultValue {
            case nil: arena.append(DefaultTag.none.rawValue)
            case .string(let s)?:
                arena.append(DefaultTag.string.rawValue)
                arena.appendInline(s)
            case .int(let i)?:
                arena.append(DefaultTag.int.rawValue)
                arena.appendSigned(i)
            case .double(let d)?:
                arena.append(DefaultTag.double.rawValue)
                arena.appendFixed64(d.bitPattern)
            case .bool(let b)?:
                arena.append(b ? DefaultTag.true.rawValue : DefaultTag.false.rawValue)
            }
            place.write(e.location, into: arena)
        }
    }

    /// `encode` of a value inside a list or map (outlined: the recursion).
    @inline(never)
    private static func encodeNested(_ value: DependencyValue, into arena: DefinitionArena, place: inout PlaceWriter) {
        encode(value, into: arena, place: &place)
    }

    /// Places relative to the previous one of the same record (most share its file and are a
    /// few lines on).
    private struct PlaceWriter {
        var file: String?
        var line = 0
        var column = 0

        /// Whether `file` is the document's, whose places come as a line and column.
        private var fileIsDocument = false
        /// Whether the record's places have named `file` (its first place names its file).
        private var fileWritten = false

        /// Starts the next record of the same writer: its first place names its file again, and
        /// the document's file stays known (no `String` compared or copied per record).
        mutating func startRecord() {
            line = 0
            column = 0
            fileWritten = false
        }

        /// A place in `file`, the document's, which every place written this way shares: its
        /// text is compared once per record, not per place. `fileID` is the position of the
        /// file's interned copy once known (set here at the first place of a document).
        @inline(__always)
        mutating func write(line l: Int, column: Int, file f: String, fileID: inout Int, into arena: DefinitionArena) {
            let delta = Int64(l) &- Int64(line)
            let zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
            guard fileIsDocument && fileWritten, zigzag >> 61 == 0 else {
                writeFirst(line: l, column: column, file: f, fileID: &fileID, into: arena)
                return
            }
            // On the previous place's line, the column as a delta (as `write(_:into:)` does).
            let c = zigzag == 0 ? Int64(column) &- Int64(self.column) : Int64(column)
            arena.appendVarints(zigzag << 2 | 1, UInt64(bitPattern: (c << 1) ^ (c >> 63)))
            line = l
            self.column = column
        }

        /// `write(line:column:file:fileID:into:)` of a record's first place in the document, or of
        /// a line too far from the previous place's.
        @inline(never)
        private mutating func writeFirst(
            line l: Int, column: Int, file f: String, fileID: inout Int, into arena: DefinitionArena
        ) {
            let delta = Int64(l) &- Int64(line)
            let zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
            if fileID >= 0 && zigzag >> 61 == 0 {
                // A new file, given as its interned copy.
                arena.appendVarint(zigzag << 2 | 2)
                arena.appendVarint(UInt64(fileID) << 1 | 1)
                arena.appendSigned(Int64(column))
                line = l
                self.column = column
                if !fileIsDocument {
                    file = f
                    fileIsDocument = true
                }
                fileWritten = true
                return
            }
            let start = arena.count
            write(SourceLocation(file: f, line: l, column: column), into: arena)
            if fileID < 0 && file == f {
                // Where the file's interned copy is: read back from what was just written.
                var r = DefinitionReader(arena, at: start)
                if r.varint() & 3 >= 2 { fileID = r.internedString().id }
            }
            fileIsDocument = true
        }

        mutating func write(_ location: SourceLocation?, into arena: DefinitionArena) {
            guard let l = location else {
                arena.appendVarint(0)
                return
            }
            let delta = Int64(l.line) &- Int64(line)
            let zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
            if zigzag >> 61 != 0 {
                // A delta too large to shift: 3, then the file and the line itself.
                arena.appendVarint(3)
                arena.appendInterned(l.file)
                arena.appendSigned(Int64(l.line))
                if file != l.file { fileIsDocument = false }
                file = l.file
                fileWritten = true
            } else if fileWritten, let f = file, f == l.file {
                arena.appendVarint(zigzag << 2 | 1)
                if zigzag == 0 {
                    // Same file and line (binary plists, whose places are byte offsets on line 0;
                    // flow-style maps): the column as a delta too.
                    arena.appendSigned(Int64(l.column) &- Int64(column))
                    column = l.column
                    return
                }
            } else {
                arena.appendVarint(zigzag << 2 | 2)
                arena.appendInterned(l.file)
                if file != l.file { fileIsDocument = false }
                file = l.file
                fileWritten = true
            }
            arena.appendSigned(Int64(l.column))
            line = l.line
            column = l.column
        }
    }

    /// A place read from a record as numbers and the file's bytes, without a `SourceLocation` per
    /// place: the one reader of the places `PlaceWriter` writes (`PlaceReader`, the edge searches
    /// here and `ReachingDependency` all read through it).
    struct PlaceCursor {
        var file: UnsafeBufferPointer<UInt8>?
        var line = 0
        var column = 0

        /// Reads the next place; false when none is written (the cursor stays as it was).
        @inline(__always)
        mutating func read(_ r: inout DefinitionReader) -> Bool {
            let v = r.varint()
            if v == 0 { return false }
            if v == 1 {
                column = Int(truncatingIfNeeded: Int64(column) &+ r.signed())
                return true
            }
            if v & 3 >= 2 { file = r.stringBytes() }
            if v & 3 == 3 {
                line = Int(truncatingIfNeeded: r.signed())
            } else {
                let zigzag = v >> 2
                let delta = Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
                line = Int(truncatingIfNeeded: Int64(line) &+ delta)
            }
            column = Int(truncatingIfNeeded: r.signed())
            return true
        }

        /// The place, its file's name made (once while the same bytes) by `names`.
        func location(_ names: inout FileName) -> SourceLocation {
            SourceLocation(file: names.text(of: file), line: line, column: column)
        }
    }

    /// Places read in order as `SourceLocation`s (each is written relative to the one before); the
    /// file's name made a `String` once while it is the same bytes.
    struct PlaceReader {
        private var cursor = PlaceCursor()
        private var file = FileName()

        mutating func read(_ r: inout DefinitionReader) -> SourceLocation? {
            cursor.read(&r) ? cursor.location(&file) : nil
        }
    }

    // MARK: Decoding

    /// The whole definition at `offset`.
    static func decode(_ arena: DefinitionArena, at offset: Int) -> EntryDefinition {
        var r = DefinitionReader(arena, at: offset)
        let flags = r.byte()
        let name = r.string()
        let className = r.string()
        let description = flags & Flag.description != 0 ? r.string() : nil
        var tags: [EntryTag] = []
        switch flags & Flag.tagList {
        case Flag.tagString: tags = [.string(r.string())]
        case Flag.tagInt: tags = [.int(r.signed())]
        case Flag.tagList:
            let n = Int(r.varint())
            tags.reserveCapacity(n)
            for _ in 0..<n { tags.append(r.byte() == ValueTag.int.rawValue ? .int(r.signed()) : .string(r.string())) }
        default: break
        }
        var place = PlaceReader()
        let location = flags & Flag.location != 0 ? place.read(&r) : nil
        let n = Int(r.varint())
        var dependencies: [Dependency] = []
        dependencies.reserveCapacity(n)
        for _ in 0..<n { dependencies.append(dependency(&r, &place)) }
        return EntryDefinition(
            name: name, className: className, description: description, tags: tags, dependencies: dependencies,
            lifestyle: lifestyle(flags), eager: flags & Flag.eager != 0, location: location)
    }

    /// What `Transaction.check` reads of a record that may be flawed, without decoding the
    /// definition: calls `body` with the key, place and value of each dependency whose value
    /// `DependencyRule.problems(of:)` checks (references, forms, environment values, lists and
    /// maps; not the null, boolean, number and literal string ones), in their order.
    static func forEachCheckedDependency(
        _ arena: DefinitionArena, at offset: Int, _ body: (String, SourceLocation?, DependencyValue) -> Void
    ) {
        var r = DefinitionReader(arena, at: offset)
        var place = PlaceReader()
        if skipHeader(&r) & Flag.location != 0 { _ = place.read(&r) }
        for _ in 0..<Int(r.varint()) {
            let key = r.stringBytes()
            let location = place.read(&r)
            let tag = r.tag()
            switch tag {
            case .null, .false, .true, .int, .double, .string:
                skipValue(tag, &r)  // nothing to check inside, no place inside: only the key
                if DependencyRule.mayBeFlawed(key: key) { body(String(decoding: key, as: UTF8.self), location, .null) }
            default:
                body(String(decoding: key, as: UTF8.self), location, value(tag, &r, &place))
            }
        }
    }

    private static func dependency(_ r: inout DefinitionReader, _ place: inout PlaceReader) -> Dependency {
        let key = r.string()
        let location = place.read(&r)
        return Dependency(key: key, value: value(&r, &place), location: location)
    }

    private static func value(_ r: inout DefinitionReader, _ place: inout PlaceReader) -> DependencyValue {
        value(r.tag(), &r, &place)
    }

    /// The value whose tag byte `tag` was just read.
    private static func value(_ tag: ValueTag, _ r: inout DefinitionReader, _ place: inout PlaceReader) -> DependencyValue {
        switch tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int: return .int(r.signed())
        case .double: return .double(Double(bitPattern: r.fixed64()))
        case .string: return .string(r.string())
        case .reference:
            let name = r.string()
            return .reference(name, at: place.read(&r))
        case .provider:
            let name = r.string()
            return .provider(name, at: place.read(&r))
        case .taggedString:
            let tag = r.string()
            return .tagged(.string(tag), at: place.read(&r))
        case .taggedInt:
            let tag = r.signed()
            return .tagged(.int(tag), at: place.read(&r))
        case .optional:
            let name = r.string()
            return .optional(name, at: place.read(&r))
        case .list:
            let n = Int(r.varint())
            var items: [DependencyValue] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(value(&r, &place)) }
            return .list(items)
        case .map:
            let n = Int(r.varint())
            var deps: [Dependency] = []
            deps.reserveCapacity(n)
            for _ in 0..<n { deps.append(dependency(&r, &place)) }
            return .map(deps)
        case .template:
            let text = r.string()
            return .template(text, at: place.read(&r))
        case .env:
            let name = r.string()
            let types = EnvType.allCases
            let t = Int(r.byte())
            let type = t < types.count ? types[t] : .string
            let defaultValue: EnvScalar?
            switch DefaultTag(rawValue: r.byte()) ?? .none {
            case .none: defaultValue = nil
            case .string: defaultValue = .string(r.string())
            case .int: defaultValue = .int(r.signed())
            case .double: defaultValue = .double(Double(bitPattern: r.fixed64()))
            case .false: defaultValue = .bool(false)
            case .true: defaultValue = .bool(true)
            }
            return .env(EnvValue(name: name, type: type, defaultValue: defaultValue, location: place.read(&r)))
        }
    }

    // MARK: Comparing records

    /// Whether the records at `a` in `arenaA` and `b` in `arenaB` define the same entry in
    /// everything but source places: `EntryDefinition`'s `==` (name, class, description, tags,
    /// dependencies, lifestyle, eager), read in place (strings compared by their bytes, doubles
    /// bitwise), so a reload compares its entries without decoding them.
    static func sameDefinition(_ arenaA: DefinitionArena, at a: Int, _ arenaB: DefinitionArena, at b: Int) -> Bool {
        var x = DefinitionReader(arenaA, at: a)
        var y = DefinitionReader(arenaB, at: b)
        let fx = x.byte(), fy = y.byte()
        guard fx & ~Flag.location == fy & ~Flag.location else { return false }
        guard sameBytes(x.stringBytes(), y.stringBytes()), sameBytes(x.stringBytes(), y.stringBytes()) else { return false }
        if fx & Flag.description != 0 && !sameBytes(x.stringBytes(), y.stringBytes()) { return false }
        switch fx & Flag.tagList {
        case Flag.tagString: if !sameBytes(x.stringBytes(), y.stringBytes()) { return false }
        case Flag.tagInt: if x.signed() != y.signed() { return false }
        case Flag.tagList:
            let n = x.varint()
            guard n == y.varint() else { return false }
            for _ in 0..<n {
                let tx = x.byte()
                guard tx == y.byte() else { return false }
                if tx == ValueTag.int.rawValue {
                    if x.signed() != y.signed() { return false }
                } else if !sameBytes(x.stringBytes(), y.stringBytes()) {
                    return false
                }
            }
        default: break
        }
        if fx & Flag.location != 0 { skipPlace(&x) }
        if fy & Flag.location != 0 { skipPlace(&y) }
        // The dependencies are written as a map's body is.
        return samePairs(&x, &y)
    }

    /// Whether the counts and keyed values at `x` and `y` (a map's body, or a record's
    /// dependencies: count, then key, place and value each) are equal but for places.
    private static func samePairs(_ x: inout DefinitionReader, _ y: inout DefinitionReader) -> Bool {
        let n = x.varint()
        guard n == y.varint() else { return false }
        for _ in 0..<n {
            guard sameBytes(x.stringBytes(), y.stringBytes()) else { return false }
            skipPlace(&x)
            skipPlace(&y)
            guard sameValue(&x, &y) else { return false }
        }
        return true
    }

    /// Whether the values at `x` and `y` are equal but for places (`DependencyValue`'s `==`);
    /// both readers move past them when they are.
    private static func sameValue(_ x: inout DefinitionReader, _ y: inout DefinitionReader) -> Bool {
        let tag = x.tag()
        guard tag == y.tag() else { return false }
        switch tag {
        case .null, .false, .true: return true
        case .int: return x.signed() == y.signed()
        case .double: return x.fixed64() == y.fixed64()
        case .string: return sameBytes(x.stringBytes(), y.stringBytes())
        case .reference, .provider, .taggedString, .optional, .template:
            guard sameBytes(x.stringBytes(), y.stringBytes()) else { return false }
            skipPlace(&x)
            skipPlace(&y)
            return true
        case .taggedInt:
            guard x.signed() == y.signed() else { return false }
            skipPlace(&x)
            skipPlace(&y)
            return true
        case .list:
            let n = x.varint()
            guard n == y.varint() else { return false }
            for _ in 0..<n where !sameValue(&x, &y) { return false }
            return true
        case .map:
            return samePairs(&x, &y)
        case .env:
            // Name, type, and default (kind and payload), then the place.
            guard sameBytes(x.stringBytes(), y.stringBytes()), x.byte() == y.byte() else { return false }
            let d = x.byte()
            guard d == y.byte() else { return false }
            switch DefaultTag(rawValue: d) ?? .none {
            case .none, .false, .true: break
            case .string: if !sameBytes(x.stringBytes(), y.stringBytes()) { return false }
            case .int: if x.signed() != y.signed() { return false }
            case .double: if x.fixed64() != y.fixed64() { return false }
            }
            skipPlace(&x)
            skipPlace(&y)
            return true
        }
    }

    @inline(__always)
    private static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// The record at `offset` without its dependencies or description: what the checks of an
    /// entry's name, class name and tags read (`DependencyRule.problems(ofEntry:)`).
    static func head(_ arena: DefinitionArena, at offset: Int) -> EntryDefinition {
        var r = DefinitionReader(arena, at: offset + 1)
        let name = r.string()
        let className = r.string()
        return EntryDefinition(
            name: name, className: className, tags: tags(arena, at: offset), location: location(arena, at: offset))
    }

    /// The name of the record at `offset` (read without decoding the rest).
    static func name(_ arena: DefinitionArena, at offset: Int) -> String {
        var r = DefinitionReader(arena, at: offset + 1)
        return r.string()
    }

    /// The name's bytes in the arena (valid while the arena lives; read-only once finished).
    static func nameBytes(_ arena: DefinitionArena, at offset: Int) -> UnsafeBufferPointer<UInt8> {
        var r = DefinitionReader(arena, at: offset + 1)
        return r.stringBytes()
    }

    /// `nameBytes` of the record at `offset` of the arena bytes at `base`.
    @inline(__always)
    static func nameBytes(base: UnsafePointer<UInt8>, at offset: Int) -> UnsafeBufferPointer<UInt8> {
        var p = offset + 1
        let header = DefinitionReader.varint(base, at: &p)
        return UnsafeBufferPointer(start: base + p, count: Int(header >> 1))
    }

    /// The offset of the record whose name (`nameBytes`) is the `length` bytes at `name`: the
    /// name is written inline right after the flags byte, so the record is found from it (the
    /// entry table keeps only the name).
    static func recordOffset(name: UnsafePointer<UInt8>, length: Int, in arena: DefinitionArena) -> Int {
        var header = UInt64(length) << 1
        var headerBytes = 1
        while header >= 0x80 {
            header >>= 7
            headerBytes += 1
        }
        let offset = name - UnsafePointer(arena.base) - headerBytes - 1
        assert(nameBytes(arena, at: offset).baseAddress == name, "the record's name is not inline after its flags")
        return offset
    }

    /// Whether the record at `offset` is an eager singleton.
    static func isEagerSingleton(_ arena: DefinitionArena, at offset: Int) -> Bool {
        let flags = arena.base[offset]
        return flags & Flag.eager != 0 && lifestyle(flags) == .singleton
    }

    /// The lifestyle of the record at `offset`.
    static func lifestyle(_ arena: DefinitionArena, at offset: Int) -> Lifestyle { lifestyle(arena.base[offset]) }

    /// Whether the record at `offset` has tags.
    static func hasTags(_ arena: DefinitionArena, at offset: Int) -> Bool { arena.base[offset] & Flag.tagList != 0 }

    /// The tags of the record at `offset` (read without decoding the dependencies; no work for a
    /// record without tags, the common case).
    static func tags(_ arena: DefinitionArena, at offset: Int) -> [EntryTag] {
        let flags = arena.base[offset]
        guard flags & Flag.tagList != 0 else { return [] }
        var r = DefinitionReader(arena, at: offset + 1)
        _ = r.stringBytes()
        _ = r.stringBytes()
        if flags & Flag.description != 0 { _ = r.stringBytes() }
        switch flags & Flag.tagList {
        case Flag.tagString: return [.string(r.string())]
        case Flag.tagInt: return [.int(r.signed())]
        default:
            let n = Int(r.varint())
            var tags: [EntryTag] = []
            tags.reserveCapacity(n)
            for _ in 0..<n { tags.append(r.byte() == ValueTag.int.rawValue ? .int(r.signed()) : .string(r.string())) }
            return tags
        }
    }

    /// Where the entry at `offset` was defined (nil for entries added from code).
    static func location(_ arena: DefinitionArena, at offset: Int) -> SourceLocation? {
        var r = DefinitionReader(arena, at: offset)
        guard skipHeader(&r) & Flag.location != 0 else { return nil }
        var place = PlaceReader()
        return place.read(&r)
    }

    /// Reads past a record's tags (after its description), as its `flags` say they are written;
    /// returns whether a string tag may be flawed (empty or holding a NUL byte:
    /// `DependencyRule.problems(ofEntry:)` checks it then).
    @discardableResult
    private static func skipTags(_ flags: UInt8, _ r: inout DefinitionReader) -> Bool {
        switch flags & Flag.tagList {
        case Flag.tagString: return DependencyRule.mayBeFlawed(r.stringBytes(), form: false)
        case Flag.tagInt: _ = r.signed()
        case Flag.tagList:
            var flawed = false
            for _ in 0..<Int(r.varint()) {
                if r.byte() == ValueTag.int.rawValue {
                    _ = r.signed()
                } else if DependencyRule.mayBeFlawed(r.stringBytes(), form: false) {
                    flawed = true
                }
            }
            return flawed
        default: break
        }
        return false
    }

    /// Reads past a record's flags, name, class name, description and tags; returns the flags.
    static func skipHeader(_ r: inout DefinitionReader) -> UInt8 {
        let flags = r.byte()
        _ = r.stringBytes()
        _ = r.stringBytes()
        if flags & Flag.description != 0 { _ = r.stringBytes() }
        skipTags(flags, &r)
        return flags
    }

    // MARK: Reading dependencies in place

    /// The position of the dependency count of the record at `offset` (what `dependencies(at:)`
    /// of the plan compiler reads from).
    static func dependenciesPosition(_ arena: DefinitionArena, at offset: Int) -> Int {
        var r = DefinitionReader(arena, at: offset)
        if skipHeader(&r) & Flag.location != 0 { skipPlace(&r) }
        return r.position
    }

    /// Writes `dependencies` alone (count, then each as in a record): the environment-resolved
    /// form of an entry's dependencies, which its plan is compiled from. Returns its position.
    static func encodeDependencies(_ dependencies: [Dependency], into arena: DefinitionArena) -> Int {
        let position = arena.count
        var place = PlaceWriter()
        arena.appendVarint(UInt64(dependencies.count))
        for d in dependencies {
            arena.appendInterned(d.key)
            place.write(d.location, into: arena)
            encodeNested(d.value, into: arena, place: &place)
        }
        return position
    }

    /// Reads past a place.
    @inline(__always)
    static func skipPlace(_ r: inout DefinitionReader) {
        let v = r.varint()
        if v == 0 { return }
        if v & 2 != 0 { skipPlaceFile(v, &r) }
        r.skipVarint()
    }

    /// The file (and for 3 the line) of a place whose first varint `v` names a new file.
    @inline(never)
    private static func skipPlaceFile(_ v: UInt64, _ r: inout DefinitionReader) {
        _ = r.stringBytes()
        if v & 3 == 3 { r.skipVarint() }
    }

    /// Reads past the value whose tag byte `tag` was just read.
    static func skipValue(_ tag: ValueTag, _ r: inout DefinitionReader) {
        switch tag {
        case .null, .false, .true: break
        case .int: _ = r.signed()
        case .double: _ = r.fixed64()
        case .string: _ = r.stringBytes()
        case .reference, .provider, .taggedString, .optional, .template:
            _ = r.stringBytes()
            skipPlace(&r)
        case .taggedInt:
            _ = r.signed()
            skipPlace(&r)
        case .list:
            for _ in 0..<Int(r.varint()) { skipValue(r.tag(), &r) }
        case .map:
            for _ in 0..<Int(r.varint()) {
                _ = r.stringBytes()
                skipPlace(&r)
                skipValue(r.tag(), &r)
            }
        case .env:
            skipEnvBody(&r)
            skipPlace(&r)
        }
    }

    /// Reads past an `Env` value's name, type and default (its place follows).
    static func skipEnvBody(_ r: inout DefinitionReader) {
        _ = r.stringBytes()
        _ = r.byte()
        switch DefaultTag(rawValue: r.byte()) ?? .none {
        case .none, .false, .true: break
        case .string: _ = r.stringBytes()
        case .int: _ = r.signed()
        case .double: _ = r.fixed64()
        }
    }

    /// Whether the list or map whose tag byte `tag` was just read holds a reference, provider,
    /// tagged list or optional reference at any depth (`r` is not moved).
    static func containerHasReference(_ tag: ValueTag, _ r: DefinitionReader) -> Bool {
        var r = r
        let n = Int(r.varint())
        for _ in 0..<n {
            if tag == .map {
                _ = r.stringBytes()
                skipPlace(&r)
            }
            let t = r.tag()
            switch t {
            case .reference, .provider, .taggedString, .taggedInt, .optional: return true
            case .list, .map: if containerHasReference(t, r) { return true }
            default: break
            }
            skipValue(t, &r)
        }
        return false
    }

    // MARK: Writing a record piece by piece

    /// Writes one record in parts, for the entry decoder, which writes straight from a document:
    /// the same bytes `encode` writes for the same definition. `begin`, then `dependencyCount`,
    /// then for each dependency `key` and one value (`value`, or the scalar writers).
    struct RecordWriter {
        let arena: DefinitionArena
        /// The document's file, shared by every place the writer is given as a line and column.
        let file: String
        private var place = PlaceWriter()
        /// The position of the file's interned copy, once written (-1 before).
        private var fileID = -1
        /// The record's summary and uses of other entries, gathered while it is written: what
        /// `summarize` reads back from the record (checked to agree in debug builds).
        private(set) var summary = Summary(
            lifestyle: .transient, classID: 0, tagged: false, usesEnvironment: false, headMayHaveProblems: false)
        /// (A `ScratchArray`: emptied per record by setting its count, where an `Array`'s
        /// `removeLast(_:)` went through the generic `replaceSubrange`, ~70 instructions a record.)
        private(set) var edges = ScratchArray<StagedEdge>(capacity: 16)
        /// Where the record's dependencies start (`DefinitionCoding.dependenciesPosition`).
        private(set) var dependenciesPosition = 0
        /// The keys and referenced names last written at each position of a record's dependencies.
        private let memo = StringMemo()
        /// The position of the dependency being written (-1 inside a nested map).
        private var position = -1

        init(_ arena: DefinitionArena, file: String) {
            self.arena = arena
            self.file = file
        }

        /// The interned copy of `bytes` (written as `DefinitionArena.appendInterned` writes it): the
        /// one `slots[i]` remembers when it holds the same bytes, else the arena's, then remembered.
        @inline(__always)
        private func interned(
            _ bytes: UnsafeBufferPointer<UInt8>, _ slots: UnsafeMutablePointer<StringMemo.Slot>, at i: Int
        )
            -> Int
        {
            rememberedOrInterned(bytes, slots, at: i).id
        }

        /// `interned`, also telling whether the memo had the string (`remembered`: the same bytes
        /// as one written before at this position, so already checked).
        @inline(__always)
        private func rememberedOrInterned(
            _ bytes: UnsafeBufferPointer<UInt8>, _ slots: UnsafeMutablePointer<StringMemo.Slot>, at i: Int
        ) -> (id: Int, remembered: Bool) {
            let n = bytes.count
            guard i >= 0 && i < StringMemo.count && n <= 16 else {
                // The slot no longer holds the string last written at `i` (`StringMemo.key(at:)`).
                if i >= 0 && i < StringMemo.count { slots[i].length = -1 }
                return (arena.appendInterned(bytes: bytes), false)
            }
            let (first, last) = DefinitionArena.words(bytes.baseAddress, n)
            let slot = slots + i
            if slot.pointee.length == n && slot.pointee.first == first && slot.pointee.last == last {
                arena.appendVarint(UInt64(slot.pointee.id) << 1 | 1)
                return (slot.pointee.id, true)
            }
            let id = arena.appendInterned(bytes: bytes)
            slot.pointee = StringMemo.Slot(length: n, first: first, last: last, id: id)
            return (id, false)
        }

        /// Starts a record (its places are relative to each other from here); returns its offset.
        mutating func begin(
            name: UnsafeBufferPointer<UInt8>, className: UnsafeBufferPointer<UInt8>,
            description: UnsafeBufferPointer<UInt8>?, tag: EntryTag?, tags: [EntryTag], lifestyle: Lifestyle, eager: Bool,
            line: Int, column: Int
        ) -> Int {
            place.startRecord()
            position = -1
            edges.removeAll()
            let offset = arena.count
            var flags = code(lifestyle) | Flag.location
            if eager { flags |= Flag.eager }
            if description != nil { flags |= Flag.description }
            let single = tag ?? (tags.count == 1 ? tags[0] : nil)
            flags |= DefinitionCoding.tagFlags(single: single, list: tags)
            arena.append(flags)
            arena.appendInline(bytes: name)
            let classID = arena.appendInterned(bytes: className)
            summary = Summary(
                lifestyle: lifestyle, classID: classID, tagged: single != nil || !tags.isEmpty, usesEnvironment: false,
                headMayHaveProblems: DependencyRule.mayBeFlawed(name, form: false)
                    || DependencyRule.mayBeFlawed(className, form: false)
                    || (tag.map(DependencyRule.mayBeFlawed(tag:)) ?? false)
                    || tags.contains(where: DependencyRule.mayBeFlawed(tag:)))
            if let description { arena.appendInline(bytes: description) }
            DefinitionCoding.writeTags(single: single, list: tags, into: arena)
            place.write(line: line, column: column, file: file, fileID: &fileID, into: arena)
            dependenciesPosition = arena.count
            return offset
        }

        /// How many dependencies follow (or entries of a list, pairs of a map).
        @inline(__always) func count(_ n: Int) { arena.appendVarint(UInt64(n)) }

        /// A dependency's (or map pair's) key, and where it was written; `position` is the
        /// dependency's (-1 for a key of a nested map).
        mutating func key(_ bytes: UnsafeBufferPointer<UInt8>, position: Int, line: Int, column: Int) {
            if position >= 0 { self.position = position }
            if !rememberedOrInterned(bytes, memo.keys, at: position).remembered
                && DependencyRule.mayBeFlawed(key: bytes)
            {
                summary.headMayHaveProblems = true
                summary.dependenciesMayHaveProblems = true
            }
            place.write(line: line, column: column, file: file, fileID: &fileID, into: arena)
        }

        // The scalars: inline (a call each cost more than the bytes written).
        @inline(__always) func null() { arena.append(ValueTag.null.rawValue) }
        @inline(__always) func bool(_ b: Bool) { arena.append(b ? ValueTag.true.rawValue : ValueTag.false.rawValue) }
        @inline(__always) func int(_ i: Int64) {
            arena.append(ValueTag.int.rawValue)
            arena.appendSigned(i)
        }
        @inline(__always) func double(_ d: Double) {
            arena.append(ValueTag.double.rawValue)
            arena.appendFixed64(d.bitPattern)
        }
        /// A literal string (its text, without the `@`).
        func literal(_ bytes: UnsafeBufferPointer<UInt8>) {
            arena.append(ValueTag.string.rawValue)
            arena.appendLiteral(bytes: bytes)
        }
        /// A reference to the entry named by `bytes`.
        mutating func reference(_ bytes: UnsafeBufferPointer<UInt8>, line: Int, column: Int) {
            arena.append(ValueTag.reference.rawValue)
            let id = interned(bytes, memo.references, at: position)
            if DependencyRule.mayBeFlawed(bytes, form: false) { summary.dependenciesMayHaveProblems = true }
            edges.append(
                StagedEdge(kind: .reference, payload: Int64(id), line: line, column: column, key: memo.key(at: position)))
            place.write(line: line, column: column, file: file, fileID: &fileID, into: arena)
        }
        /// `value(DependencyRule.form(form, target:at:))` of a form whose target is the string
        /// `bytes` at `line` and `column` (not `Env`), written from the bytes as `reference` is.
        mutating func form(_ form: DependencyRule.Form, target bytes: UnsafeBufferPointer<UInt8>, line: Int, column: Int) {
            let tag: ValueTag
            let kind: StagedEdge.Kind
            switch form {
            case .provider: (tag, kind) = (.provider, .provider)
            case .optional: (tag, kind) = (.optional, .optional)
            case .tagged, .env: (tag, kind) = (.taggedString, .tagged)
            }
            arena.append(tag.rawValue)
            let id = interned(bytes, memo.references, at: position)
            if DependencyRule.mayBeFlawed(bytes, form: kind != .tagged) { summary.dependenciesMayHaveProblems = true }
            edges.append(StagedEdge(kind: kind, payload: Int64(id), line: line, column: column, key: memo.key(at: position)))
            place.write(line: line, column: column, file: file, fileID: &fileID, into: arena)
        }
        /// The start of a list of `n` values (each written next), at nesting `depth` (a dependency's
        /// own value is at depth 1).
        mutating func list(_ n: Int, depth: Int) {
            arena.append(ValueTag.list.rawValue)
            arena.appendVarint(UInt64(n))
            if depth + 1 >= DependencyValue.maxNesting {
                summary.dependenciesMayHaveProblems = true
                summary.nestsNearCeiling = true
            }
        }
        /// The start of a plain map of `n` pairs (each `key` then a value), at nesting `depth`.
        mutating func map(_ n: Int, depth: Int) {
            arena.append(ValueTag.map.rawValue)
            arena.appendVarint(UInt64(n))
            if depth + 1 >= DependencyValue.maxNesting {
                summary.dependenciesMayHaveProblems = true
                summary.nestsNearCeiling = true
            }
        }
        /// Any value that is not a list or map, as `encode` writes it (forms, templates,
        /// environment values); its summary read back from what was written.
        mutating func value(_ v: DependencyValue) {
            let start = arena.count
            encodeNested(v, into: arena, place: &place)
            var r = DefinitionReader(arena, at: start)
            summarizeValue(r.tag(), &r, depth: 1, edges: &edges, summary: &summary)
        }
    }

    /// The strings a `RecordWriter` wrote last at each of the first `count` positions of a
    /// record's dependencies (its keys, and the names its references give), by their length and
    /// words (`DefinitionArena.words`, strings of up to 16 bytes): entries written alike repeat
    /// them position by position, found here without the arena's cache. A class: the writer is a
    /// value.
    final class StringMemo {
        /// A string and its interned copy's position (`length` -1: none).
        struct Slot {
            var length = -1
            var first: UInt64 = 0
            var last: UInt64 = 0
            var id = 0
        }

        static let count = 16
        let keys: UnsafeMutablePointer<Slot>
        let references: UnsafeMutablePointer<Slot>

        init() {
            keys = .allocate(capacity: 2 * StringMemo.count)
            keys.initialize(repeating: Slot(), count: 2 * StringMemo.count)
            references = keys + StringMemo.count
        }

        deinit { keys.deallocate() }

        /// The interned identity of the key just written at dependency position `position` (what
        /// its uses keep in their `StagedEdge`), or -1 when not remembered (a key of more than 16
        /// bytes, a position past the first `count`): read from the memo, so writing a key costs
        /// nothing more.
        @inline(__always)
        func key(at position: Int) -> Int {
            guard UInt(bitPattern: position) < UInt(StringMemo.count) else { return -1 }
            let slot = keys[position]
            return slot.length >= 0 ? slot.id : -1
        }
    }

    // MARK: What the transaction reads of a record

    /// What `summarize` finds in a record besides its uses of other entries.
    /// (16 bytes: the word first, then the bytes. A load keeps one per entry until it commits.)
    struct Summary: Equatable {
        /// The position of the class name's interned copy (equal for equal class names).
        var classID: Int
        var lifestyle: Lifestyle
        /// Whether the record has tags.
        var tagged: Bool
        /// Whether a dependency holds `${...}` or `{Env: ...}` (resolved at commit).
        var usesEnvironment: Bool
        /// Whether a check of `Transaction.check` or `DependencyRule.problems(ofEntry:)` might fail for its name or class name (empty,
        /// or holding a NUL: `DependencyRule.mayBeFlawed`), or for a key of its dependencies (a NUL:
        /// `DependencyRule.mayBeFlawed(key:)`; then `dependenciesMayHaveProblems` too, so the full
        /// check reads them).
        var headMayHaveProblems: Bool
        /// Whether one might fail for its dependencies: a referenced name or tag that may be
        /// flawed (or a literal where a form wants an entry), a value nesting near the ceiling, or
        /// an environment value.
        var dependenciesMayHaveProblems = false
        /// Whether a list or map nests near the ceiling (`Transaction.check` checks it in full).
        var nestsNearCeiling = false

        /// Whether a check might fail at all: only such records are decoded and validated in full.
        var mayHaveProblems: Bool { headMayHaveProblems || dependenciesMayHaveProblems }

        init(
            lifestyle: Lifestyle, classID: Int, tagged: Bool, usesEnvironment: Bool, headMayHaveProblems: Bool,
            dependenciesMayHaveProblems: Bool = false
        ) {
            self.classID = classID
            self.lifestyle = lifestyle
            self.tagged = tagged
            self.usesEnvironment = usesEnvironment
            self.headMayHaveProblems = headMayHaveProblems
            self.dependenciesMayHaveProblems = dependenciesMayHaveProblems
        }
    }

    /// Reads the record at `offset`: its summary, and every use of other entries in its
    /// dependencies appended to `edges`, depth first in written order (`DependencyValue.forEachEdge`
    /// order).
    static func summarize<Edges: StagedEdgeList>(_ arena: DefinitionArena, at offset: Int, edges: inout Edges) -> Summary {
        var r = DefinitionReader(arena, at: offset)
        let flags = r.byte()
        var flawed = DependencyRule.mayBeFlawed(r.stringBytes(), form: false)
        let cls = r.internedString()
        flawed = flawed || DependencyRule.mayBeFlawed(cls.bytes, form: false)
        if flags & Flag.description != 0 { _ = r.stringBytes() }
        flawed = skipTags(flags, &r) || flawed
        if flags & Flag.location != 0 { skipPlace(&r) }
        var summary = Summary(
            lifestyle: lifestyle(flags), classID: cls.id, tagged: flags & Flag.tagList != 0, usesEnvironment: false,
            headMayHaveProblems: flawed)
        for _ in 0..<Int(r.varint()) {
            if DependencyRule.mayBeFlawed(key: r.stringBytes()) {
                summary.headMayHaveProblems = true
                summary.dependenciesMayHaveProblems = true
            }
            skipPlace(&r)
            // Scalars (most values) read here; the rest by `summarizeValue`.
            let tag = r.tag()
            switch tag {
            case .null, .false, .true: continue
            case .int: _ = r.varint()
            case .double: r.position += 8
            case .string: _ = r.stringBytes()
            case .reference:
                let s = r.internedString()
                skipPlace(&r)
                if DependencyRule.mayBeFlawed(s.bytes, form: false) { summary.dependenciesMayHaveProblems = true }
                edges.append(StagedEdge(kind: .reference, payload: Int64(s.id)))
            default: summarizeValue(tag, &r, depth: 1, edges: &edges, summary: &summary)
            }
        }
        return summary
    }

    private static func summarizeValue<Edges: StagedEdgeList>(
        _ tag: ValueTag, _ r: inout DefinitionReader, depth: Int, edges: inout Edges, summary: inout Summary
    ) {
        switch tag {
        case .reference, .provider, .optional, .taggedString:
            let s = r.internedString()
            skipPlace(&r)
            let kind: StagedEdge.Kind =
                tag == .reference ? .reference : tag == .provider ? .provider : tag == .optional ? .optional : .tagged
            if DependencyRule.mayBeFlawed(s.bytes, form: tag == .provider || tag == .optional) {
                summary.dependenciesMayHaveProblems = true
            }
            edges.append(StagedEdge(kind: kind, payload: Int64(s.id)))
        case .taggedInt:
            let v = r.signed()
            skipPlace(&r)
            edges.append(StagedEdge(kind: .taggedInt, payload: v))
        case .template, .env:
            summary.usesEnvironment = true
            summary.dependenciesMayHaveProblems = true
            skipValue(tag, &r)
        case .list, .map:
            // The ceiling itself is checked in full (`Transaction.check`) near it.
            if depth + 1 >= DependencyValue.maxNesting {
                summary.dependenciesMayHaveProblems = true
                summary.nestsNearCeiling = true
            }
            for _ in 0..<Int(r.varint()) {
                if tag == .map {
                    if DependencyRule.mayBeFlawed(key: r.stringBytes()) {
                        summary.headMayHaveProblems = true
                        summary.dependenciesMayHaveProblems = true
                    }
                    skipPlace(&r)
                }
                summarizeValue(r.tag(), &r, depth: depth + 1, edges: &edges, summary: &summary)
            }
        default:
            skipValue(tag, &r)
        }
    }

    // MARK: Places of uses, for messages

    /// The key and place of the `ordinal`th use of other entries in the record at `offset` (the
    /// order `summarize` lists them in), read in place: what a message about a reference needs,
    /// without decoding the definition. The place is the use's own, else its dependency key's.
    static func place(
        ofEdge ordinal: Int, in arena: DefinitionArena, at offset: Int
    ) -> (
        key: String, location: SourceLocation?
    ) {
        var file = FileName()
        let (key, location) = place(ofEdge: ordinal, in: arena, at: offset, file: &file)
        return (String(decoding: key, as: UTF8.self), location)
    }

    /// The file name of the places read last (one `String` for the problems of one file).
    struct FileName {
        fileprivate var bytes: UnsafePointer<UInt8>?
        fileprivate var count = 0
        fileprivate var text = ""

        /// The name whose bytes are `b` (made once while they are the same bytes).
        fileprivate mutating func text(of b: UnsafeBufferPointer<UInt8>?) -> String {
            guard let b, b.count > 0 else { return "" }
            if b.baseAddress != bytes || b.count != count {
                bytes = b.baseAddress
                count = b.count
                text = String(decoding: b, as: UTF8.self)
            }
            return text
        }
    }

    /// `place(ofEdge:in:at:)` with the key as bytes (in the arena) and the file's name kept in
    /// `file` from one call to the next: no `String` per place read.
    static func place(
        ofEdge ordinal: Int, in arena: DefinitionArena, at offset: Int, file: inout FileName
    ) -> (
        key: UnsafeBufferPointer<UInt8>, location: SourceLocation?
    ) {
        var r = DefinitionReader(arena, at: offset)
        var place = PlaceCursor()
        if skipHeader(&r) & Flag.location != 0 { _ = place.read(&r) }
        var seen = 0
        for _ in 0..<Int(r.varint()) {
            let key = r.stringBytes()
            let keyPlace = place.read(&r) ? place : nil
            let tag = r.tag()
            // Scalars and uses written straight as a dependency's value (most of them) read here;
            // lists, maps and the rest by `findEdge`.
            switch tag {
            case .null, .false, .true: continue
            case .int: r.skipVarint()
            case .double: r.position += 8
            case .string: r.skipString()
            case .reference, .provider, .optional, .taggedString:
                r.skipString()
                let own = place.read(&r)
                if seen == ordinal { return (key, (own ? place : keyPlace).map { $0.location(&file) }) }
                seen += 1
            default:
                var found: PlaceCursor??
                findEdge(tag, &r, &place, ordinal: ordinal, seen: &seen, found: &found)
                if let f = found { return (key, (f ?? keyPlace).map { $0.location(&file) }) }
            }
        }
        return (UnsafeBufferPointer(start: nil, count: 0), nil)
    }

    /// A use of an entry written straight as a dependency's value (`Name`, `{Provider: Name}`,
    /// `{Optional: Name}`), read in place for the flawed-record check: its kind, its dependency's
    /// key, the name, and where it is (its own place, else its key's, else its entry's).
    struct CheckedUse {
        var tag: ValueTag
        var key: UnsafeBufferPointer<UInt8>
        var name: UnsafeBufferPointer<UInt8>
        var location: SourceLocation?
    }

    /// The uses of the record at `offset` that `Transaction.check` would check, appended to `uses`,
    /// when every dependency is a scalar, a literal string, an integer tag or such a use; false
    /// (with `uses` partly filled) when one is anything else (a list, map, string tag, template or
    /// environment value): those records are checked from their decoded values.
    static func simpleCheckedUses(
        _ arena: DefinitionArena, at offset: Int, file: inout FileName, into uses: inout [CheckedUse]
    ) -> Bool {
        var r = DefinitionReader(arena, at: offset)
        var place = PlaceCursor()
        let entryPlace = skipHeader(&r) & Flag.location != 0 && place.read(&r) ? place : nil
        for _ in 0..<Int(r.varint()) {
            let key = r.stringBytes()
            let keyPlace = place.read(&r) ? place : entryPlace
            let tag = r.tag()
            switch tag {
            case .null, .false, .true: continue
            case .int: r.skipVarint()
            case .double: r.position += 8
            case .string: r.skipString()
            case .taggedInt:
                _ = r.signed()
                _ = place.read(&r)
            case .reference, .provider, .optional:
                let name = r.stringBytes()
                let at = place.read(&r) ? place : keyPlace
                uses.append(CheckedUse(tag: tag, key: key, name: name, location: at.map { $0.location(&file) }))
            default:
                return false
            }
        }
        return true
    }

    /// Walks the value whose tag byte `tag` was just read, reading every place in order (they are
    /// relative to each other); sets `found` at the `ordinal`th use.
    private static func findEdge(
        _ tag: ValueTag, _ r: inout DefinitionReader, _ place: inout PlaceCursor, ordinal: Int, seen: inout Int,
        found: inout PlaceCursor??
    ) {
        switch tag {
        case .reference, .provider, .optional, .taggedString:
            _ = r.stringBytes()
            let at = place.read(&r) ? place : nil
            if seen == ordinal && found == nil { found = .some(at) }
            seen += 1
        case .taggedInt:
            _ = r.signed()
            let at = place.read(&r) ? place : nil
            if seen == ordinal && found == nil { found = .some(at) }
            seen += 1
        case .template:
            _ = r.stringBytes()
            _ = place.read(&r)
        case .env:
            skipEnvBody(&r)
            _ = place.read(&r)
        case .list:
            for _ in 0..<Int(r.varint()) {
                findEdge(r.tag(), &r, &place, ordinal: ordinal, seen: &seen, found: &found)
            }
        case .map:
            for _ in 0..<Int(r.varint()) {
                _ = r.stringBytes()
                _ = place.read(&r)
                findEdge(r.tag(), &r, &place, ordinal: ordinal, seen: &seen, found: &found)
            }
        default:
            skipValue(tag, &r)
        }
    }
}
