import Testing
@testable import ControllerRegConfig

/// Assembles a bplist00 file from encoded objects (object i is `objects[i]`), with a correct
/// offset table and trailer unless the caller overrides trailer fields.
func bplist(_ objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, refSize: UInt8 = 1,
            objectCount: UInt64? = nil, tableOffset: UInt64? = nil, offsets: [Int]? = nil) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var computed: [Int] = []
    for o in objects {
        computed.append(bytes.count)
        bytes += o
    }
    let table = bytes.count
    for off in offsets ?? computed {
        for k in (0 ..< Int(offsetSize)).reversed() { bytes.append(UInt8(truncatingIfNeeded: off >> (8 * k))) }
    }
    func be64(_ v: UInt64) -> [UInt8] { (0 ..< 8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
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
        try PlistParser.parse(raw, file: "b.plist", limits: limits)
    }
}

func binaryError(_ bytes: [UInt8], limits: ConfigLimits = ConfigLimits(), sourceLocation: Testing.SourceLocation = #_sourceLocation) -> ConfigError? {
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
        for i in 0 ..< min(xml.nodes.count, bin.nodes.count) {
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
