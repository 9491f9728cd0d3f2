/// Binary property lists (`bplist00`), read straight from the bytes into a `DocumentBuilder`.
///
/// Everything in the file is untrusted: the trailer, every offset and every reference are checked
/// before use, counts are checked against the bytes that could hold them before anything is read,
/// the object graph is walked with an explicit stack (nesting never grows the call stack), a
/// container that contains itself is an error, and shared objects are emitted once per reference,
/// bounded by the builder's node limit, a budget for expanded string bytes, and (as YAML aliases)
/// `maxAliasExpansion` for the values a container adds each time it is emitted again (a file of a
/// few hundred bytes whose arrays all refer to the next one would otherwise expand to millions).
///
/// Locations: line 0, column = byte offset of the object.
struct BinaryPlistParser {
    let p: UnsafePointer<UInt8>
    let count: Int
    /// The file name for messages.
    let file: String
    var builder: DocumentBuilder

    /// Trailer fields.
    var offsetSize = 0
    var refSize = 0
    var objectCount = 0
    var topObject = 0
    var tableOffset = 0

    /// Bytes of string content still allowed; shared strings count once per reference.
    var stringBudget: Int

    /// Each object's offset (validated), with `openFlag` set while it is an open container being
    /// walked (to catch containers that contain themselves). Offsets are below 2^31.
    var objects: UnsafeMutableBufferPointer<UInt32> = .init(start: nil, count: 0)
    static let openFlag: UInt32 = 1 << 31

    /// One bit per object: set once a container has been emitted (its next emission is a copy).
    var emitted: UnsafeMutableBufferPointer<UInt64> = .init(start: nil, count: 0)
    /// Files of at least this many bytes keep their object offsets in the load's region for
    /// temporaries (a 100k-entry file: 2.4 MB of offsets; a 10k one, 1.5 MB of file and 240 KB
    /// of offsets, keeps them in the allocator's reused pages).
    static let regionFromBytes = 4 << 20
    /// The depth of the frame that began the current copy of a shared container (0: none).
    var copyDepth = 0
    /// Values added by copies of shared containers so far (against `maxAliasExpansion`).
    var expanded = 0

    /// One open array or dict being walked.
    struct Frame {
        var object: Int
        /// Byte offset of the first reference.
        var refs: Int
        /// Elements of an array, pairs of a dict.
        var count: Int
        /// Children emitted so far (a dict emits 2 per pair).
        var next = 0
        var isDict: Bool
    }

    static let headerSize = 8
    static let trailerSize = 32

    static func parse(
        _ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits, pairs sink: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        // Binary plists are dense and share objects: expect about one value per 4 input bytes.
        let count = min(bytes.count, limits.maxInputBytes)
        return try DocumentBuilder.build(
            file: file, limits: limits, expectedBytes: count * 2, expectedNodes: count / 4, sink: sink
        ) {
            builder throws(ConfigError) in
            var parser = BinaryPlistParser(
                p: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count, builder: builder,
                stringBudget: max(limits.maxInputBytes, 1 << 20))
            let region = bytes.count >= Self.regionFromBytes ? builder.scratch : nil
            defer {
                ScratchRegion.deallocate(parser.objects.baseAddress, in: region)
                ScratchRegion.deallocate(parser.emitted.baseAddress, in: region)
            }
            try parser.readTrailer(in: region)
            try parser.walk()
            builder = parser.builder
        }
    }

    init(p: UnsafePointer<UInt8>, count: Int, builder: DocumentBuilder, stringBudget: Int) {
        self.p = p
        self.count = count
        file = builder.file
        self.builder = builder
        self.stringBudget = stringBudget
    }

    // MARK: - Trailer

    /// Reads the trailer and the offset table (into `objects`, its table and `emitted` in
    /// `region` when given, else from `malloc`).
    mutating func readTrailer(in region: ScratchRegion? = nil) throws(ConfigError) {
        guard count >= Self.headerSize + 1 + 1 + Self.trailerSize else {
            throw Self.fail(
                file,
                "binary plist is truncated: \(count) bytes is too short for a header, an object, an offset table and a trailer; write the file whole again",
                at: count)
        }
        let t = count - Self.trailerSize
        offsetSize = Int(p[t + 6])
        refSize = Int(p[t + 7])
        guard (1...8).contains(offsetSize) else {
            throw Self.trailerFail(file, "binary plist trailer: offset size \(offsetSize) is not in 1...8", at: t + 6)
        }
        guard (1...8).contains(refSize) else {
            throw Self.trailerFail(file, "binary plist trailer: object reference size \(refSize) is not in 1...8", at: t + 7)
        }
        let objects = readUInt(t + 8, 8)
        let top = readUInt(t + 16, 8)
        let table = readUInt(t + 24, 8)
        // The offset table lies between the header and the trailer and holds one entry per object.
        guard table >= UInt64(Self.headerSize + 1), table < UInt64(t) else {
            throw Self.trailerFail(file, "binary plist trailer: offset table offset \(table) is outside the file", at: t + 24)
        }
        tableOffset = Int(table)
        guard objects >= 1, objects <= UInt64((t - tableOffset) / offsetSize) else {
            throw Self.trailerFail(
                file,
                "binary plist trailer: \(objects) objects do not fit in the offset table (\(t - tableOffset) bytes at \(tableOffset))",
                at: t + 8)
        }
        objectCount = Int(objects)
        if objectCount > builder.limits.maxNodes {
            throw ConfigError(
                .limit,
                "binary plist has \(objectCount) objects, more than the limit of \(builder.limits.maxNodes) values"
                    + ConfigLimits.fix("CR_LIMIT_NODES"),
                at: builder.location(line: 0, column: t + 8))
        }
        guard tableOffset < Int(Self.openFlag) else {
            throw Self.fail(file, "binary plist: files of 2 GiB or more are not supported", at: t + 24)
        }
        guard top < objects else {
            throw Self.trailerFail(
                file, "binary plist trailer: top object \(top) is not less than the object count \(objectCount)", at: t + 16)
        }
        topObject = Int(top)
        emitted = UnsafeMutableBufferPointer(
            start: ScratchRegion.allocate(UInt64.self, count: (objectCount + 63) >> 6, in: region, zeroed: true),
            count: (objectCount + 63) >> 6)
        let offsets = ScratchRegion.allocate(UInt32.self, count: objectCount, in: region)
        self.objects = UnsafeMutableBufferPointer(start: offsets, count: objectCount)
        for index in 0..<objectCount {
            let offset = readSized(tableOffset + index * offsetSize, offsetSize)
            guard offset >= UInt64(Self.headerSize), offset < UInt64(tableOffset) else {
                throw Self.fail(
                    file,
                    "binary plist: offset \(offset) of object \(index) is outside the object area (\(Self.headerSize)..<\(tableOffset))",
                    at: tableOffset + index * offsetSize)
            }
            offsets[index] = UInt32(offset)
        }
    }

    // MARK: - Objects

    /// Walks the object graph from the top object, emitting every value. Scalars are emitted in
    /// the inner loop; only a nested container touches the (manually managed) stack of frames.
    mutating func walk() throws(ConfigError) {
        let topOffset = offset(of: topObject)
        guard let first = try emit(topObject, at: topOffset, marker: p[topOffset]) else { return }
        try entering(first, depth: 1)
        var capacity = 32
        var stack = UnsafeMutablePointer<Frame>.allocate(capacity: capacity)
        defer { stack.deallocate() }
        stack.initialize(to: first)
        var depth = 1
        objects[topObject] |= Self.openFlag
        let limit = UInt64(objectCount)
        outer: while depth > 0 {
            var frame = stack[depth - 1]
            let children = frame.isDict ? frame.count &* 2 : frame.count
            while frame.next < children {
                let slot: Int
                let isKey: Bool
                if frame.isDict {
                    let pair = frame.next >> 1
                    isKey = frame.next & 1 == 0
                    slot = isKey ? pair : frame.count + pair
                } else {
                    isKey = false
                    slot = frame.next
                }
                frame.next += 1
                let refAt = frame.refs + slot * refSize
                let ref = readRef(refAt)
                guard ref < limit else {
                    throw Self.fail(
                        file,
                        "binary plist: reference \(ref) in object \(frame.object) is not less than the object count \(objectCount)",
                        at: refAt)
                }
                let child = Int(ref)
                let entry = objects[child]
                if entry & Self.openFlag != 0 {
                    // The place is the reference that closes the cycle.
                    throw Self.fail(file, "binary plist: object \(child) contains itself (a reference back to it)", at: refAt)
                }
                let off = Int(entry)
                let marker = p[off]
                let high = marker >> 4
                if isKey, high != 0x5, high != 0x6 {
                    throw Self.fail(file, "binary plist: dict key (object \(child)) is not a string", at: off)
                }
                // The common scalars inline: a string of fewer than 15 ASCII bytes, a small
                // integer, a boolean. Everything else (and every malformed case) goes to `emit`.
                if high == 0x5 && marker & 0x0F != 0x0F {
                    let n = Int(marker & 0x0F)
                    let start = off &+ 1
                    if n <= tableOffset &- start && BinaryPlistParser.isASCII(p + start, n) {
                        try spend(n, at: off)
                        try builder.addString(UnsafeRawBufferPointer(start: p + start, count: n), line: 0, column: off)
                        continue
                    }
                } else if marker == 0x10 && off &+ 2 <= tableOffset {
                    try builder.addInt(Int64(p[off &+ 1]), line: 0, column: off)
                    continue
                } else if marker == 0x08 || marker == 0x09 {
                    try builder.addBool(marker == 0x09, line: 0, column: off)
                    continue
                }
                if let nested = try emit(child, at: off, marker: marker) {
                    try entering(nested, depth: depth + 1)
                    stack[depth - 1] = frame
                    objects[child] |= Self.openFlag
                    if depth == capacity {
                        let grown = UnsafeMutablePointer<Frame>.allocate(capacity: capacity * 2)
                        grown.moveInitialize(from: stack, count: depth)
                        stack.deallocate()
                        stack = grown
                        capacity *= 2
                    }
                    (stack + depth).initialize(to: nested)
                    depth += 1
                    continue outer
                }
            }
            builder.endContainer()
            objects[frame.object] &= ~Self.openFlag
            if depth == copyDepth { copyDepth = 0 }
            depth -= 1
        }
    }

    /// Notes that the container of `frame` is being emitted, as the frame at `depth`: its first
    /// emission is free; a later one (and everything inside it) adds its values to `expanded`,
    /// which may not pass `maxAliasExpansion`.
    @inline(__always)
    mutating func entering(_ frame: Frame, depth: Int) throws(ConfigError) {
        let word = frame.object >> 6, bit = UInt64(1) << UInt64(frame.object & 63)
        if copyDepth == 0 {
            guard emitted[word] & bit != 0 else {
                emitted[word] |= bit
                return
            }
            copyDepth = depth
            expanded += 1
        }
        expanded += frame.isDict ? frame.count &* 2 : frame.count
        if expanded > builder.limits.maxAliasExpansion {
            throw Self.overExpanded(file, limits: builder.limits, at: offset(of: frame.object))
        }
    }

    @inline(never) static func overExpanded(_ file: String, limits: ConfigLimits, at off: Int) -> ConfigError {
        ConfigError(
            .limit,
            "binary plist: shared containers (objects referenced more than once) expand to more than the limit of \(limits.maxAliasExpansion) values"
                + ConfigLimits.fix("CR_LIMIT_ALIAS_EXPANSION"),
            at: SourceLocation(file: file, line: 0, column: off))
    }

    /// Emits object `index` (at offset `off`, starting with `marker`): a scalar is added at once;
    /// a container is begun and returned as a frame.
    @inline(__always)
    mutating func emit(_ index: Int, at off: Int, marker: UInt8) throws(ConfigError) -> Frame? {
        let high = marker >> 4
        let low = marker & 0x0F
        switch high {
        case 0x0:
            switch low {
            case 0x0: try builder.addNull(line: 0, column: off)
            case 0x8: try builder.addBool(false, line: 0, column: off)
            case 0x9: try builder.addBool(true, line: 0, column: off)
            default: throw Self.fail(file, "binary plist: unknown object marker 0x\(Self.hex(marker))", at: off)
            }
            return nil
        case 0x1:
            try builder.addInt(try integer(at: off), line: 0, column: off)
            return nil
        case 0x2:
            let size = low == 2 ? 4 : low == 3 ? 8 : 0
            guard size > 0 else {
                throw Self.fail(file, "binary plist: real of unsupported size (marker 0x\(Self.hex(marker)))", at: off)
            }
            try need(off + 1, size, at: off, what: "real")
            let bits = readUInt(off + 1, size)
            let value = size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
            try builder.addDouble(value, line: 0, column: off)
            return nil
        case 0x3:
            throw Self.unsupported(file, "date", at: off)
        case 0x4:
            throw Self.unsupported(file, "data", at: off)
        case 0x5:
            let (n, start) = try lengthAndStart(at: off, unit: 1, what: "string")
            try spend(n, at: off)
            if !BinaryPlistParser.isASCII(p + start, n) { throw Self.nonASCII(file, p, start) }
            try builder.addString(UnsafeRawBufferPointer(start: p + start, count: n), line: 0, column: off)
            return nil
        case 0x6:
            let (n, start) = try lengthAndStart(at: off, unit: 2, what: "string")
            try spend(n * 3, at: off)
            try utf16String(start, n, at: off)
            return nil
        case 0x8:
            throw Self.unsupported(file, "UID", at: off)
        case 0xA:
            let (n, start) = try lengthAndStart(at: off, unit: refSize, what: "array")
            try builder.beginList(line: 0, column: off)
            return Frame(object: index, refs: start, count: n, isDict: false)
        case 0xC:
            throw Self.unsupported(file, "set", at: off)
        case 0xD:
            let (n, start) = try lengthAndStart(at: off, unit: 2 * refSize, what: "dict")
            try builder.beginMap(line: 0, column: off)
            return Frame(object: index, refs: start, count: n, isDict: true)
        default:
            throw Self.fail(file, "binary plist: unknown object marker 0x\(Self.hex(marker))", at: off)
        }
    }

    /// Reads the integer object at `off` (1, 2, 4 or 8 bytes; 16 bytes when it fits in `Int64`).
    @inline(__always)
    func integer(at off: Int) throws(ConfigError) -> Int64 {
        let low = p[off] & 0x0F
        guard low <= 4 else {
            throw Self.fail(file, "binary plist: integer of unsupported size (marker 0x\(Self.hex(p[off])))", at: off)
        }
        let size = 1 << Int(low)
        try need(off + 1, size, at: off, what: "integer")
        if size == 16 {
            let high = readUInt(off + 1, 8)
            let lowBits = readUInt(off + 9, 8)
            let value = Int64(bitPattern: lowBits)
            guard (high == 0 && value >= 0) || (high == UInt64.max && value < 0) else {
                throw Self.fail(file, "binary plist: 128-bit integer does not fit in 64 bits", at: off)
            }
            return value
        }
        let bits = readUInt(off + 1, size)
        // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are two's complement.
        return size == 8 ? Int64(bitPattern: bits) : Int64(bits)
    }

    /// The element count of the string/array/dict at `off` (with the 0xF count extension) and the
    /// offset of its content, checked so that `count * unit` bytes lie inside the object area.
    @inline(__always)
    func lengthAndStart(at off: Int, unit: Int, what: StaticString) throws(ConfigError) -> (Int, Int) {
        let low = p[off] & 0x0F
        var n = Int(low)
        var start = off + 1
        if low == 0x0F {
            guard start < tableOffset else { throw Self.fail(file, "binary plist: \(what) count is truncated", at: start) }
            let intMarker = p[start]
            guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                throw Self.fail(
                    file, "binary plist: \(what) count is not an integer object (marker 0x\(Self.hex(intMarker)))", at: start)
            }
            let size = 1 << Int(intMarker & 0x0F)
            guard start + 1 + size <= tableOffset else { throw Self.pastObjectArea(file, "\(what) count", at: start) }
            let value = readUInt(start + 1, size)
            guard value <= UInt64(tableOffset) else {
                throw Self.fail(file, "binary plist: \(what) count \(value) is larger than the file", at: start)
            }
            n = Int(value)
            start += 1 + size
        }
        guard n <= (tableOffset - start) / unit else {
            throw Self.fail(file, "binary plist: \(what) of \(n) elements at byte \(off) runs past the object area", at: off)
        }
        return (n, start)
    }

    /// Converts `n` UTF-16BE code units at `start` to UTF-8 into a new string node.
    mutating func utf16String(_ start: Int, _ n: Int, at off: Int) throws(ConfigError) {
        builder.beginString()
        var i = 0
        while i < n {
            let unit = UInt32(p[start + 2 * i]) << 8 | UInt32(p[start + 2 * i + 1])
            i += 1
            var scalar = unit
            if unit >= 0xD800, unit <= 0xDBFF {
                guard i < n else {
                    throw Self.fail(file, "binary plist: UTF-16 string ends with an unpaired surrogate", at: start + 2 * (i - 1))
                }
                let next = UInt32(p[start + 2 * i]) << 8 | UInt32(p[start + 2 * i + 1])
                guard next >= 0xDC00, next <= 0xDFFF else {
                    throw Self.fail(file, "binary plist: UTF-16 string has an unpaired high surrogate", at: start + 2 * (i - 1))
                }
                i += 1
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (next - 0xDC00)
            } else if unit >= 0xDC00, unit <= 0xDFFF {
                throw Self.fail(file, "binary plist: UTF-16 string has an unpaired low surrogate", at: start + 2 * (i - 1))
            }
            if scalar < 0x80 {
                builder.appendStringByte(UInt8(scalar))
            } else {
                builder.appendScalar(Unicode.Scalar(scalar)!)
            }
        }
        try builder.endString(line: 0, column: off)
    }

    // MARK: - Helpers

    /// The offset of object `index` (validated by `readTrailer`).
    @inline(__always)
    func offset(of index: Int) -> Int {
        Int(objects[index] & ~Self.openFlag)
    }

    /// The object reference at `at`.
    @inline(__always)
    func readRef(_ at: Int) -> UInt64 { readSized(at, refSize) }

    /// A big-endian unsigned integer of `size` (1...8) bytes at `at`; the sizes of references and
    /// offsets in files up to 4 GiB without a loop.
    @inline(__always)
    func readSized(_ at: Int, _ size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(p[at])
        case 2: return UInt64(p[at]) << 8 | UInt64(p[at + 1])
        case 3: return UInt64(p[at]) << 16 | UInt64(p[at + 1]) << 8 | UInt64(p[at + 2])
        case 4: return UInt64(UInt32(bigEndian: UnsafeRawPointer(p + at).loadUnaligned(as: UInt32.self)))
        default: return readUInt(at, size)
        }
    }

    /// A big-endian unsigned integer of `size` (1...8) bytes at `at`.
    @inline(__always)
    func readUInt(_ at: Int, _ size: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<size { v = v << 8 | UInt64(p[at + k]) }
        return v
    }

    /// Checks that `size` bytes at `start` lie inside the object area.
    @inline(__always)
    func need(_ start: Int, _ size: Int, at off: Int, what: StaticString) throws(ConfigError) {
        guard start + size <= tableOffset else { throw Self.pastObjectArea(file, "\(what)", at: off) }
    }

    @inline(never) static func pastObjectArea(_ file: String, _ what: String, at off: Int) -> ConfigError {
        fail(file, "binary plist: \(what) at byte \(off) runs past the object area", at: off)
    }

    /// Counts `bytes` of string output against the expansion budget.
    @inline(__always) mutating func spend(_ bytes: Int, at off: Int) throws(ConfigError) {
        stringBudget -= bytes
        if stringBudget < 0 { throw Self.overBudget(file, limits: builder.limits, at: off) }
    }

    @inline(never) static func overBudget(_ file: String, limits: ConfigLimits, at off: Int) -> ConfigError {
        ConfigError(
            .limit,
            "binary plist strings expand to more than \(max(limits.maxInputBytes, 1 << 20)) bytes (shared objects referenced too often)"
                + ConfigLimits.fix("CR_LIMIT_INPUT_BYTES"),
            at: SourceLocation(file: file, line: 0, column: off))
    }

    /// Whether the `n` bytes at `q` are all ASCII (read a word at a time, never past the last one).
    @inline(__always) static func isASCII(_ q: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let raw = UnsafeRawPointer(q)
        var any: UInt64 = 0
        if n >= 8 {
            var k = 0
            while k < n &- 8 {
                any |= raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                k &+= 8
            }
            any |= raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 {
            any = UInt64(raw.loadUnaligned(as: UInt32.self) | raw.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
        } else {
            for k in 0..<n { any |= UInt64(q[k]) }
        }
        return any & 0x8080_8080_8080_8080 == 0
    }

    @inline(never) static func nonASCII(_ file: String, _ p: UnsafePointer<UInt8>, _ start: Int) -> ConfigError {
        var bad = start
        while p[bad] < 0x80 { bad += 1 }
        return fail(file, "binary plist: ASCII string contains the non-ASCII byte 0x\(Self.hex(p[bad]))", at: bad)
    }

    @inline(never) static func unsupported(_ file: String, _ kind: String, at off: Int) -> ConfigError {
        ConfigError(
            .schema, PlistUnsupportedValue.message(kind), at: SourceLocation(file: file, line: 0, column: off))
    }

    @inline(never) static func fail(_ file: String, _ message: String, at off: Int) -> ConfigError {
        ConfigError(.syntax, message, at: SourceLocation(file: file, line: 0, column: off))
    }

    /// `fail` for a trailer that is not one, naming the likeliest cause (`TruncatedInput`).
    @inline(never) static func trailerFail(_ file: String, _ message: String, at off: Int) -> ConfigError {
        fail(file, message + TruncatedInput.binaryFix, at: off)
    }

    static func hex(_ b: UInt8) -> String { HexDigits.text(UInt32(b), digits: 2) }
}
