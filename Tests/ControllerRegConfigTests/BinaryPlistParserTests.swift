import Testing

@testable import ControllerRegConfig

/// Assembles a bplist00 file from encoded objects (object i is `objects[i]`), with a correct
/// offset table and trailer unless the caller overrides trailer fields.
func bplist(
    _ objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, refSize: UInt8 = 1,
    objectCount: UInt64? = nil, tableOffset: UInt64? = nil, offsets: [Int]? = nil
) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var computed: [Int] = []
    for o in objects {
        computed.append(bytes.count)
        bytes += o
    }
    let table = bytes.count
    for off in offsets ?? computed {
        for k in (0..<Int(offsetSize)).reversed() { bytes.append(UInt8(truncatingIfNeeded: off >> (8 * k))) }
    }
    func be64(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    bytes += [0, 0, 0, 0, 0, 0, offsetSize, refSize]
    bytes += be64(objectCount ?? UInt64(objects.count))
    bytes += be64(top)
    bytes += be64(tableOffset ?? UInt64(table))
    return bytes
}

/// ASCII string object.
func ascii(_ s: String) -> [UInt8] {
    let b = Array(s.utf8)
    precondition(b.count < 15)
    return [0x50 | UInt8(b.count)] + b
}

func parseBinary(_ bytes: [UInt8], limits: ConfigLimits = ConfigLimits()) throws(ConfigError) -> ConfigDocument {
    try withUnsafeBytesTyped(bytes) { (raw) throws(ConfigError) in
        try ConfigLoader.parse(raw, format: .plist, file: "b.plist", limits: limits)
    }
}

func binaryError(
    _ bytes: [UInt8], limits: ConfigLimits = ConfigLimits(), sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ConfigError? {
    do {
        _ = try parseBinary(bytes, limits: limits)
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite struct BinaryPlistTests {
    @Test func fixtureMatchesXML() throws {
        let xml = try ConfigLoader.load(path: fixturePath("example.plist"))
        let bin = try ConfigLoader.load(path: fixturePath("example-binary.plist"))
        #expect(xml.nodes.count == bin.nodes.count)
        #expect(xml.nodes.count == 21)
        for i in 0..<min(xml.nodes.count, bin.nodes.count) {
            let a = xml.nodes[i], b = bin.nodes[i]
            #expect(a.kind == b.kind, "node \(i)")
            #expect(b.line == 0 && a.line > 0)
            if a.kind == .string {
                #expect(xml.string(at: i) == bin.string(at: i), "node \(i)")
            } else {
                #expect(a.payload == b.payload && a.extent == b.extent, "node \(i)")
            }
        }
    }
}

/// Array object referring to `refs` (1-byte refs, count < 15 unless extended).
func arrayObject(_ refs: [UInt8]) -> [UInt8] {
    refs.count < 15 ? [0xA0 | UInt8(refs.count)] + refs : [0xAF, 0x10, UInt8(refs.count)] + refs
}

@Suite struct BinaryPlistValueTests {
    @Test func everyValueKind() throws {
        let long = Array("abcdefghijklmnopqrst".utf8)
        let objects: [[UInt8]] = [
            arrayObject(Array(1...15)),
            [0x00],
            [0x08],
            [0x09],
            [0x10, 0xFF],
            [0x11, 0x01, 0x00],
            [0x12, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x13] + [UInt8](repeating: 0xFF, count: 8),
            [0x14] + [UInt8](repeating: 0, count: 8) + [0x7F] + [UInt8](repeating: 0xFF, count: 7),
            [0x14] + [UInt8](repeating: 0xFF, count: 8) + [0x80] + [UInt8](repeating: 0, count: 7),
            [0x22, 0x3F, 0xC0, 0x00, 0x00],
            [0x23] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: (-2.25).bitPattern >> (8 * UInt64($0))) },
            ascii("hi"),
            [0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00],
            [0xD1, 12, 3],
            [0x5F, 0x10, UInt8(long.count)] + long,
        ]
        let file = bplist(objects)
        let doc = try parseBinary(file)
        let n = doc.nodes
        #expect(n.count == 18)
        #expect(n[0].kind == .list && n[0].count == 15 && n[0].extent == 18)
        #expect(n[1].kind == .null)
        #expect(n[2].kind == .bool && !n[2].bool && n[3].bool)
        #expect(n[4].int == 255 && n[5].int == 256 && n[6].int == 4_294_967_295 && n[7].int == -1)
        #expect(n[8].int == Int64.max && n[9].int == Int64.min)
        #expect(n[10].kind == .double && n[10].double == 1.5 && n[11].double == -2.25)
        #expect(doc.string(at: 12) == "hi")
        #expect(doc.string(at: 13) == "é😀")
        #expect(n[14].kind == .map && n[14].count == 1 && n[14].extent == 17)
        #expect(doc.string(at: 15) == "hi" && n[16].bool)
        #expect(doc.string(at: 17) == "abcdefghijklmnopqrst")
        // Locations are byte offsets of the objects.
        let offsetOfObject12 = 8 + objects[0..<12].reduce(0) { $0 + $1.count }
        #expect(doc.location(of: 12) == ControllerRegConfig.SourceLocation(file: "b.plist", line: 0, column: offsetOfObject12))
        #expect("\(doc.location(of: 0))" == "b.plist:byte 8")
    }

    @Test func sharedObjectsAreEmittedPerReference() throws {
        // [[s], [s]] where both inner references are the same array object.
        let doc = try parseBinary(bplist([arrayObject([1, 1]), arrayObject([2]), ascii("s")]))
        #expect(doc.nodes.map(\.kind) == [.list, .list, .string, .list, .string])
        #expect(doc.nodes[0].extent == 5 && doc.nodes[1].extent == 3 && doc.nodes[3].extent == 5)
        #expect(doc.string(at: 2) == "s" && doc.string(at: 4) == "s")
    }

    @Test func threeAndFourByteReferencesAndOffsets() throws {
        for size in [3, 4] {
            func ref(_ r: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: r >> (8 * $0)) } }
            // [x, 7, true], then a reference past the object count.
            let array: [UInt8] = [0xA3] + ref(1) + ref(2) + ref(3)
            let doc = try parseBinary(
                bplist([array, ascii("x"), [0x10, 7], [0x09]], offsetSize: UInt8(size), refSize: UInt8(size)))
            #expect(doc.nodes.count == 4 && doc.string(at: 1) == "x" && doc.nodes[2].int == 7 && doc.nodes[3].bool)
            let bad: [UInt8] = [0xA1] + ref(0x0102)
            let error = binaryError(bplist([bad, ascii("x")], offsetSize: UInt8(size), refSize: UInt8(size)))
            #expect(
                error?.diagnostics.first?.message.contains("reference 258 in object 0 is not less than the object count 2")
                    == true)
        }
    }

    @Test func wideSizes() throws {
        // 2-byte offsets and refs, top object not 0.
        var objects: [[UInt8]] = [ascii("x"), [0xA2, 0x00, 0x00, 0x00, 0x02], [0x10, 7]]
        objects.append([0x09])
        let doc = try parseBinary(bplist(objects, top: 1, offsetSize: 2, refSize: 2))
        #expect(doc.nodes.count == 3 && doc.string(at: 1) == "x" && doc.nodes[2].int == 7)
    }

    @Test func duplicateKeysAreReported() {
        let error = binaryError(bplist([[0xD2, 1, 1, 2, 2], ascii("k"), [0x09]]))
        #expect(error?.code == .duplicate)
    }
}

@Suite struct BinaryPlistErrorTests {
    func check(
        _ bytes: [UInt8], _ code: ErrorCode, _ message: String, at column: Int? = nil,
        limits: ConfigLimits = ConfigLimits(), sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let error = binaryError(bytes, limits: limits, sourceLocation: sourceLocation) else { return }
        let d = error.diagnostics[0]
        #expect(d.code == code, sourceLocation: sourceLocation)
        #expect(d.message == message, sourceLocation: sourceLocation)
        #expect(d.location?.line == 0, sourceLocation: sourceLocation)
        if let column { #expect(d.location?.column == column, "column", sourceLocation: sourceLocation) }
    }

    @Test func truncatedAndBadTrailer() {
        check(
            Array("bplist00".utf8) + [0x09], .syntax,
            "binary plist is truncated: 9 bytes is too short for a header, an object, an offset table and a trailer; write the file whole again"
        )
        let one = [ascii("hello")]
        let good = bplist(one)
        check(Array(good.dropLast()), .syntax, "binary plist trailer: offset size 0 is not in 1...8" + TruncatedInput.binaryFix)
        check(
            bplist(one, offsetSize: 0), .syntax, "binary plist trailer: offset size 0 is not in 1...8" + TruncatedInput.binaryFix,
            at: good.count - 1 - 26)
        check(
            bplist(one, refSize: 9), .syntax,
            "binary plist trailer: object reference size 9 is not in 1...8" + TruncatedInput.binaryFix, at: good.count - 25
        )
        check(
            bplist([[0x09]], tableOffset: 1 << 40), .syntax,
            "binary plist trailer: offset table offset 1099511627776 is outside the file" + TruncatedInput.binaryFix)
        check(
            bplist([[0x09]], tableOffset: 4), .syntax,
            "binary plist trailer: offset table offset 4 is outside the file" + TruncatedInput.binaryFix)
        check(
            bplist([[0x09]], objectCount: 0), .syntax,
            "binary plist trailer: 0 objects do not fit in the offset table (1 bytes at 9)" + TruncatedInput.binaryFix)
        check(
            bplist([[0x09]], objectCount: UInt64.max), .syntax,
            "binary plist trailer: 18446744073709551615 objects do not fit in the offset table (1 bytes at 9)"
                + TruncatedInput.binaryFix)
        check(
            bplist([[0x09]], top: 1), .syntax,
            "binary plist trailer: top object 1 is not less than the object count 1" + TruncatedInput.binaryFix)
        check(
            Array("bplist01".utf8) + good.dropFirst(8), .syntax,
            "unsupported binary plist version 'bplist01' (only bplist00 is supported): write the file as bplist00 (plutil -convert binary1) or as XML",
            at: 6)
        // The place is the version's bytes (after the magic) also when they are missing.
        check(
            Array("bplist".utf8), .syntax,
            "unsupported binary plist version 'bplist' (only bplist00 is supported): write the file as bplist00 (plutil -convert binary1) or as XML",
            at: 6)
    }

    @Test func offsetsAndReferences() {
        check(
            bplist([[0x09]], offsets: [200]), .syntax, "binary plist: offset 200 of object 0 is outside the object area (8..<9)",
            at: 9)
        check(bplist([[0x09]], offsets: [3]), .syntax, "binary plist: offset 3 of object 0 is outside the object area (8..<9)")
        check(
            bplist([arrayObject([5])]), .syntax, "binary plist: reference 5 in object 0 is not less than the object count 1",
            at: 9)
        check(
            bplist([[0x5F, 0x13] + [UInt8](repeating: 0xFF, count: 8)]), .syntax,
            "binary plist: string count 18446744073709551615 is larger than the file", at: 9)
        check(
            bplist([[0xAF, 0x12, 0x00, 0x01, 0x00, 0x00, 0x00]]), .syntax,
            "binary plist: array count 65536 is larger than the file", at: 9)
        check(bplist([[0xA3, 0x00]]), .syntax, "binary plist: array of 3 elements at byte 8 runs past the object area", at: 8)
        check(bplist([[0x5E, 0x41]]), .syntax, "binary plist: string of 14 elements at byte 8 runs past the object area")
        check(bplist([[0x13, 0x00]]), .syntax, "binary plist: integer at byte 8 runs past the object area")
        check(bplist([[0x5F, 0x50]]), .syntax, "binary plist: string count is not an integer object (marker 0x50)", at: 9)
        // A count's problems are placed at the count (after the marker), where the byte at fault is.
        check(bplist([[0x5F]]), .syntax, "binary plist: string count is truncated", at: 9)
        check(bplist([[0x5F, 0x11, 0x00]]), .syntax, "binary plist: string count at byte 9 runs past the object area", at: 9)
    }

    @Test func cyclesAreErrors() {
        // The place is the reference that closes the cycle (the byte at fault).
        check(bplist([arrayObject([0])]), .syntax, "binary plist: object 0 contains itself (a reference back to it)", at: 9)
        // dict {k: [dict]}: obj0 dict, obj1 "k", obj2 array containing obj0.
        check(
            bplist([[0xD1, 1, 2], ascii("k"), arrayObject([0])]), .syntax,
            "binary plist: object 0 contains itself (a reference back to it)", at: 14)
        // A cycle not through the top: [[x] where x contains itself].
        check(
            bplist([arrayObject([1]), arrayObject([2]), arrayObject([1])]), .syntax,
            "binary plist: object 1 contains itself (a reference back to it)", at: 13)
    }

    @Test func unsupportedAndMalformedObjects() {
        check(
            bplist([[0x33] + [UInt8](repeating: 0, count: 8)]), .schema,
            "plist date values are not supported in configs: write the date as a literal string (<string>@2001-12-14T00:00:00Z</string>) and parse it in the class",
            at: 8)
        check(
            bplist([[0x42, 0x01, 0x02]]), .schema,
            "plist data values are not supported in configs: write the bytes as a literal string (<string>@aGVsbG8=</string>, base64) and decode them in the class",
            at: 8)
        check(
            bplist([[0x80, 0x01]]), .schema,
            "plist UID values are not supported in configs: a config holds strings, numbers, booleans, arrays and dictionaries only (an NSKeyedArchiver archive is not a config)"
        )
        check(
            bplist([[0xC0]]), .schema,
            "plist set values are not supported in configs: a config holds strings, numbers, booleans, arrays and dictionaries only (an NSKeyedArchiver archive is not a config)"
        )
        check(bplist([[0x70]]), .syntax, "binary plist: unknown object marker 0x70")
        check(bplist([[0x0F]]), .syntax, "binary plist: unknown object marker 0x0F")
        check(bplist([[0x21, 0, 0]]), .syntax, "binary plist: real of unsupported size (marker 0x21)")
        check(
            bplist([[0x15] + [UInt8](repeating: 0, count: 32)]), .syntax,
            "binary plist: integer of unsupported size (marker 0x15)")
        check(
            bplist([[0x14] + [UInt8](repeating: 0, count: 7) + [1] + [UInt8](repeating: 0, count: 8)]), .syntax,
            "binary plist: 128-bit integer does not fit in 64 bits")
        check(
            bplist([[0x14] + [UInt8](repeating: 0, count: 8) + [0x80] + [UInt8](repeating: 0, count: 7)]), .syntax,
            "binary plist: 128-bit integer does not fit in 64 bits")
        check(bplist([[0xD1, 1, 1], [0x10, 1]]), .syntax, "binary plist: dict key (object 1) is not a string", at: 11)
        check(bplist([[0x52, 0x41, 0xC3]]), .syntax, "binary plist: ASCII string contains the non-ASCII byte 0xC3", at: 10)
        check(bplist([[0x61, 0xD8, 0x00]]), .syntax, "binary plist: UTF-16 string ends with an unpaired surrogate", at: 9)
        check(
            bplist([[0x62, 0xD8, 0x00, 0x00, 0x41]]), .syntax, "binary plist: UTF-16 string has an unpaired high surrogate", at: 9
        )
        check(bplist([[0x61, 0xDC, 0x00]]), .syntax, "binary plist: UTF-16 string has an unpaired low surrogate", at: 9)
    }

    @Test func deepNestingHitsTheDepthLimit() {
        // 10,000 nested arrays, each referring to the next (2-byte refs and offsets).
        let depth = 10_000
        var objects: [[UInt8]] = []
        for i in 0..<depth { objects.append([0xA1, UInt8((i + 1) >> 8), UInt8((i + 1) & 0xFF)]) }
        objects.append([0xA0])
        let file = bplist(objects, offsetSize: 2, refSize: 2)
        guard let error = binaryError(file) else { return }
        #expect(error.code == .limit)
        #expect(
            error.diagnostics[0].message
                == "nesting deeper than the limit of 128 levels (CR_LIMIT_DEPTH: raise it with cr_registry_set_limit if the config is trusted)"
        )
    }

    @Test func sharedObjectBlowUpIsBounded() {
        // 40 levels of [x, x]: 2^40 values if expanded; the node limit stops it.
        var objects: [[UInt8]] = []
        for i in 0..<40 { objects.append(arrayObject([UInt8(i + 1), UInt8(i + 1)])) }
        objects.append([0x09])
        var limits = ConfigLimits()
        limits.maxNodes = 100_000
        #expect(binaryError(bplist(objects), limits: limits)?.code == .limit)
        // One 1,000-byte string referenced 1,100 times expands past the 1 MiB string budget.
        let big = [UInt8](repeating: 0x61, count: 1000)
        var refs: [UInt8] = [0xAF, 0x11, 0x04, 0x4C]
        for _ in 0..<1100 { refs += [0x00, 0x01] }
        let file = bplist([refs, [0x5F, 0x11, 0x03, 0xE8] + big], offsetSize: 2, refSize: 2)
        limits = ConfigLimits()
        limits.maxInputBytes = 8192
        let error = binaryError(file, limits: limits)
        #expect(error?.code == .limit)
        #expect(error?.diagnostics[0].message.contains("strings expand") == true)
        // The budget is the input limit (at least 1 MiB): the message names it and the fix.
        #expect(
            error?.diagnostics[0].message.hasSuffix(
                " (CR_LIMIT_INPUT_BYTES: raise it with cr_registry_set_limit if the config is trusted)") == true)
    }

    @Test func sharedContainersCountAgainstTheAliasExpansionLimit() throws {
        // 40 levels of [x, x] in 300 bytes: with the default limits it used to expand to the 16 Mi
        // node limit (seconds and ~0.5 GB); each copy of a shared container now counts, as a YAML
        // alias does, against maxAliasExpansion.
        var objects: [[UInt8]] = []
        for i in 0..<40 { objects.append(arrayObject([UInt8(i + 1), UInt8(i + 1)])) }
        objects.append([0x09])
        let error = binaryError(bplist(objects))
        #expect(error?.code == .limit)
        #expect(
            error?.diagnostics[0].message
                == "binary plist: shared containers (objects referenced more than once) expand to more than the limit of 100000 values"
                + " (CR_LIMIT_ALIAS_EXPANSION: raise it with cr_registry_set_limit if the config is trusted)"
        )
        // [[s], [s]] with one shared inner array: its copy adds 2 values (the list and "s").
        let shared = bplist([arrayObject([1, 1]), arrayObject([2]), ascii("s")])
        var limits = ConfigLimits()
        limits.maxAliasExpansion = 2
        #expect(try parseBinary(shared, limits: limits).nodes.count == 5)
        limits.maxAliasExpansion = 1
        #expect(binaryError(shared, limits: limits)?.code == .limit)
    }

    @Test func objectCountIsBoundedByTheNodeLimit() {
        var limits = ConfigLimits()
        limits.maxNodes = 2
        check(
            bplist([arrayObject([1, 2]), [0x09], [0x08]]), .limit,
            "binary plist has 3 objects, more than the limit of 2 values (CR_LIMIT_NODES: raise it with cr_registry_set_limit if the config is trusted)",
            limits: limits)
    }

    @Test func scalarTopObject() throws {
        let doc = try parseBinary(bplist([[0x10, 5]]))
        #expect(doc.nodes.count == 1 && doc.nodes[0].int == 5 && doc.location(of: 0).column == 8)
    }

    @Test func mangledFixturesNeverCrash() throws {
        let good = try ConfigLoader.readFile(fixturePath("example-binary.plist"))
        _ = try parseBinary(good)
        // Every truncation.
        for length in 8..<good.count {
            #expect(throws: ConfigError.self) { _ = try parseBinary(Array(good[0..<length])) }
        }
        // Every single-byte corruption parses or fails cleanly.
        for i in 8..<good.count {
            for value: UInt8 in [0x00, 0x01, 0x0F, 0x7F, 0x80, 0xFF] {
                var bad = good
                bad[i] = value
                _ = try? parseBinary(bad)
            }
        }
    }
}
