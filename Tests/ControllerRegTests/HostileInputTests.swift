import ControllerReg
import ControllerRegConfig
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile and broken configs. Every case checks the error code, and that the registry is exactly as
/// it was (same entries, and a create still works). Cases that are legal input check what loads.
@Suite("Hostile input")
struct HostileInputTests {
    /// A registry holding two working entries, to check that nothing of it changes.
    static func baseline(limits: RegistryLimits = RegistryLimits()) throws -> Registry {
        let r = Registry(limits: limits)
        try registerWidgets(r, ["W", "C"])
        try r.load(text: "Base1: W\nBase2: {ClassName: W, Dependencies: {b: Base1, s: \"@text\"}}\n")
        return r
    }

    /// Loads `bytes` and expects `code`; then checks the registry is unchanged and still creates.
    func expectRejected(
        _ bytes: [UInt8], _ format: ConfigFormat, _ code: ErrorCode, limits: RegistryLimits = RegistryLimits(),
        containing text: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let r = try Self.baseline(limits: limits)
        let before = r.entries
        let e = expectError { try bytes.withUnsafeBytes { raw in try r.load(bytes: raw, format: format) } }
        #expect(e?.code == code, "\(String(describing: e))", sourceLocation: sourceLocation)
        if let text { #expect(e?.description.contains(text) == true, "\(String(describing: e))", sourceLocation: sourceLocation) }
        #expect(r.entries == before, sourceLocation: sourceLocation)
        #expect(r.entries.map(\.name) == ["Base1", "Base2"], sourceLocation: sourceLocation)
        let made = try r.create("Base2", as: Widget.self)
        #expect(made.children["b"]?.className == "W", sourceLocation: sourceLocation)
    }

    func expectRejected(
        _ text: String, _ format: ConfigFormat, _ code: ErrorCode, limits: RegistryLimits = RegistryLimits(),
        containing: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        try expectRejected(Array(text.utf8), format, code, limits: limits, containing: containing, sourceLocation: sourceLocation)
    }

    /// Loads `text` (legal) into a fresh registry and returns its entries.
    func accepted(_ text: String, _ format: ConfigFormat) throws -> [EntryDefinition] {
        let r = Registry()
        try r.load(text: text, format: format)
        return r.entries
    }

    // MARK: Encoding

    @Test func invalidUTF8() throws {
        let bad: [UInt8] = [0xC3, 0x28]  // a lead byte followed by a non-continuation byte
        try expectRejected(Array("{\"A\": \"".utf8) + bad + Array("\"}".utf8), .json, .syntax)
        try expectRejected(Array("A: \"".utf8) + bad + Array("\"\n".utf8), .yaml, .syntax)
        try expectRejected(Array("A: ".utf8) + [0xFF, 0xFE] + Array("\n".utf8), .yaml, .syntax)
        try expectRejected(
            Array("<plist><dict><key>A</key><string>".utf8) + bad + Array("</string></dict></plist>".utf8), .plist, .syntax)
        // An overlong encoding of '/' and a UTF-16 surrogate encoded in UTF-8.
        try expectRejected(Array("{\"A\": \"".utf8) + [0xC0, 0xAF] + Array("\"}".utf8), .json, .syntax)
        try expectRejected(Array("{\"A\": \"".utf8) + [0xED, 0xA0, 0x80] + Array("\"}".utf8), .json, .syntax)
    }

    @Test func nulBytes() throws {
        // A raw NUL inside a string is not valid JSON (control character) nor YAML.
        try expectRejected(Array("{\"A\": \"W".utf8) + [0] + Array("\"}".utf8), .json, .syntax)
        try expectRejected(Array("A: \"W".utf8) + [0] + Array("\"\n".utf8), .yaml, .syntax)
        // An escaped NUL is text, but names (entry, class, reference) cannot hold one.
        try expectRejected("{\"A\\u0000B\": \"W\"}", .json, .schema, containing: "entry name 'A\\0B' contains a NUL byte")
        try expectRejected("{\"A\": \"W\\u0000\"}", .json, .schema, containing: "NUL")
        try expectRejected(
            "{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"x\": \"Base1\\u0000\"}}}", .json, .schema, containing: "NUL")
        // A message never holds a NUL byte (C reads it up to the first one): a name quoted in it
        // shows `\0`, and every other problem of the load still follows it.
        let nul = expectError { try Registry().load(text: "{\"A\": \"W\", \"k\\u0000\": \"W\", \"A\": \"W\"}", format: .json) }
        #expect(
            nul?.diagnostics.map(\.message) == [
                "entry name 'k\\0' contains a NUL byte",
                "duplicate key 'A' (first defined at line 1, column 2); remove one of them",
            ])
        #expect(nul?.diagnostics.allSatisfy { !$0.message.utf8.contains(0) } == true)
        // As a literal it is data and loads, whole.
        let e = try accepted("{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"x\": \"@a\\u0000b\"}}}", .json)
        #expect(e.first?.dependencies.first?.value == .string("a\u{0}b"))
    }

    /// Names and keys of up to 16 bytes are checked for a NUL byte a word at a time
    /// (`DependencyRule.hasNul`), longer ones by `memchr`: one at the start, middle or end of a
    /// name of any length is found, for every kind of name.
    @Test func nulByteAtEveryPlaceOfEveryLength() throws {
        for length in [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24] {
            for at in Set([0, length / 2, length - 1]) {
                let name = (0..<length).map { $0 == at ? "\\u0000" : "n" }.joined()
                try expectRejected("{\"\(name)\": \"W\"}", .json, .schema, containing: "contains a NUL byte")
                try expectRejected(
                    "{\"A\": \"\(name)\"}", .json, .schema, containing: "class name of entry 'A' contains a NUL byte")
                try expectRejected(
                    "{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"x\": \"\(name)\"}}}", .json, .schema,
                    containing: "contains a NUL byte")
                try expectRejected(
                    "{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"\(name)\": 1}}}", .json, .schema,
                    containing: "must not contain a NUL byte")
            }
        }
    }

    @Test func byteOrderMark() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        // YAML allows a BOM; JSON (RFC 8259: must not add one; may ignore) is strict here.
        let r = Registry()
        try (bom + Array("A: W\n".utf8)).withUnsafeBytes { try r.load(bytes: $0, format: .yaml) }
        #expect(r.entries.map(\.name) == ["A"])
        try expectRejected(bom + Array("{\"A\": \"W\"}".utf8), .json, .syntax)
        // A UTF-16 BOM is not UTF-8.
        try expectRejected([0xFF, 0xFE] + Array("{\"A\": \"W\"}".utf8), .json, .syntax)
    }

    @Test func lineEndingsAndTabs() throws {
        #expect(try accepted("A: W\r\nB: {ClassName: W, Dependencies: {a: A}}\r\n", .yaml).map(\.name) == ["A", "B"])
        #expect(try accepted("{\r\n\"A\": \"W\"\r\n}\r\n", .json).map(\.name) == ["A"])
        // A tab in YAML indentation is a syntax error that says so.
        try expectRejected("A:\n\tClassName: W\n", .yaml, .syntax, containing: "tab")
        // A bare CR inside a JSON string is a control character.
        try expectRejected("{\"A\": \"W\rX\"}", .json, .syntax)
    }

    // MARK: Sizes and depths

    @Test func oneMegabyteKey() throws {
        let key = String(repeating: "k", count: 1 << 20)
        // Legal text, but not an entry key: a schema error (the registry is unchanged).
        try expectRejected("{\"A\": {\"ClassName\": \"W\", \"\(key)\": 1}}", .json, .schema)
        // libyaml allows implicit (simple) keys of at most 1024 characters: a syntax error.
        try expectRejected("A: {ClassName: W, \(key): 1}\n", .yaml, .syntax)
        // As an entry name it loads (names have no length limit beyond the string limit) ...
        #expect(try accepted("{\"\(key)\": \"W\"}", .json).first?.name.utf8.count == 1 << 20)
        // ... unless the string limit is lower: CR_ERR_LIMIT.
        var limits = RegistryLimits()
        limits.config.maxStringBytes = 64 << 10
        try expectRejected("{\"\(key)\": \"W\"}", .json, .limit, limits: limits)
        try expectRejected("\(key): W\n", .yaml, .limit, limits: limits)
        try expectRejected("<plist><dict><key>\(key)</key><string>W</string></dict></plist>", .plist, .limit, limits: limits)
    }

    static func deepJSON(_ depth: Int) -> String {
        "{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"x\": " + String(repeating: "[", count: depth)
            + String(repeating: "]", count: depth) + "}}}"
    }

    static func deepYAML(_ depth: Int) -> String {
        "A: {ClassName: W, Dependencies: {x: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            + "}}\n"
    }

    static func deepPlist(_ depth: Int) -> String {
        "<plist><dict><key>A</key><dict><key>ClassName</key><string>W</string><key>Dependencies</key><dict><key>x</key>"
            + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            + "</dict></dict></dict></plist>"
    }

    @Test func tenThousandDeepNesting() throws {
        // Default limits: the document depth limit (128).
        try expectRejected(Self.deepJSON(10_000), .json, .limit, containing: "nesting deeper than the limit of 128")
        try expectRejected(Self.deepYAML(10_000), .yaml, .limit, containing: "128")
        try expectRejected(Self.deepPlist(10_000), .plist, .limit, containing: "128")
        // Every limit raised as far as it goes: still CR_ERR_LIMIT (the dependency value ceiling), no overflow.
        var huge = RegistryLimits()
        huge.config.maxDepth = .max
        huge.maxCreateDepth = .max
        try expectRejected(
            Self.deepJSON(10_000), .json, .limit, limits: huge,
            containing: "deeper than \(DependencyValue.maxNesting) levels \(DependencyValue.tooDeepFix)")
        try expectRejected(Self.deepYAML(10_000), .yaml, .limit, limits: huge)
        try expectRejected(Self.deepPlist(10_000), .plist, .limit, limits: huge)
        // Just under the ceiling loads and creates.
        let r = try Self.baseline(limits: huge)
        try r.load(text: Self.deepJSON(DependencyValue.maxNesting - 1), format: .json)
        _ = try r.create("A", as: Widget.self)
    }

    @Test func deepValuesFromCodeAreRefused() throws {
        var v = DependencyValue.reference("Base1", at: nil)
        for _ in 0..<1_000 { v = .list([v]) }
        let r = try Self.baseline()
        let before = r.entries
        let e = expectError {
            try r.add([EntryDefinition(name: "Deep", className: "W", dependencies: [Dependency(key: "x", value: v)])])
        }
        #expect(e?.code == .limit)
        #expect(r.entries == before)
    }

    @Test func deepReferenceChains() throws {
        // Over the create depth limit: CR_ERR_LIMIT naming it; with the limit raised as far as it goes,
        // the stack guard stops a chain that would not fit the thread's stack.
        let chain =
            (0..<20_000).map { "E\($0): {ClassName: W, Dependencies: {n: E\($0 + 1)}}" }.joined(separator: "\n") + "\nE20000: W\n"
        let r = try Self.baseline()
        try r.load(text: chain)
        #expect(expectError { _ = try r.create("E0") }?.code == .limit)
        try r.setLimits(
            {
                var l = r.limits
                l.maxCreateDepth = .max
                return l
            }())
        let e = expectError { _ = try r.create("E0") }
        #expect(e?.code == .limit)
        #expect(e?.description.contains("stack (at depth ") == true)
        #expect(e?.description.contains(StackGuard.fix("shorten the chain of references")) == true)
        _ = try r.create("E19900", as: Widget.self)
        _ = try r.create("Base2", as: Widget.self)
    }

    @Test func entryCountLimit() throws {
        var limits = RegistryLimits()
        limits.maxEntries = 3
        try expectRejected("X1: W\nX2: W\n", .yaml, .limit, limits: limits, containing: "3 entries")
        // Lowered below what the registry holds: removals and overrides of defined names still
        // work (the registry can be cut down), adds do not.
        let r = try Self.baseline()
        try r.load(text: "X1: W\nX2: W\n")
        limits.maxEntries = 2
        try r.setLimits(limits)
        try r.load(text: "X1: C\n", mode: .override)
        try r.remove(entriesNamed: ["X2"])
        #expect(expectError { try r.load(text: "X3: W\n") }?.code == .limit)
        try r.remove(entriesNamed: ["X1", "Base2"])
        try r.load(text: "X3: W\n", mode: .override)
        #expect(r.entries.map(\.name).sorted() == ["Base1", "X3"])
    }

    @Test func inputSizeLimit() throws {
        var limits = RegistryLimits()
        limits.config.maxInputBytes = 1000
        try expectRejected("A: W\n" + String(repeating: "#", count: 1000), .yaml, .limit, limits: limits)
    }

    @Test func nodeCountLimit() throws {
        var limits = RegistryLimits()
        limits.config.maxNodes = 50
        try expectRejected(
            "A: {ClassName: W, Dependencies: {x: [" + Array(repeating: "1", count: 100).joined(separator: ",") + "]}}", .yaml,
            .limit, limits: limits)
    }

    // MARK: Numbers

    @Test func integersBeyondInt64() throws {
        for text in ["99999999999999999999", "-9223372036854775809", "18446744073709551616"] {
            try expectRejected("{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"x\": \(text)}}}", .json, .syntax)
            try expectRejected("A: {ClassName: W, Dependencies: {x: \(text)}}\n", .yaml, .syntax)
            try expectRejected(
                "<plist><dict><key>A</key><dict><key>ClassName</key><string>W</string><key>Dependencies</key><dict><key>x</key><integer>\(text)</integer></dict></dict></dict></plist>",
                .plist, .syntax)
        }
        // The extremes themselves load exactly.
        let e = try accepted(
            "{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"a\": 9223372036854775807, \"b\": -9223372036854775808}}}", .json)
        #expect(e.first?.dependencies.map(\.value) == [.int(.max), .int(.min)])
    }

    @Test func jsonNumberSyntax() throws {
        for text in ["NaN", "Infinity", "-Infinity", "01", "-01", "00", "+1", ".5", "1.", "1e", "0x10", "1_000"] {
            try expectRejected("{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"x\": \(text)}}}", .json, .syntax)
        }
        try expectRejected("{\"A\": {\"ClassName\": \"W\", \"Dependencies\": {\"x\": 1e999}}}", .json, .syntax)
    }

    // MARK: Structure

    @Test func duplicateKeys() throws {
        try expectRejected("{\"A\": \"W\", \"A\": \"W\"}", .json, .duplicate)
        try expectRejected("A: W\nA: W\n", .yaml, .duplicate)
        try expectRejected(
            "<plist><dict><key>A</key><string>W</string><key>A</key><string>W</string></dict></plist>", .plist, .duplicate)
        try expectRejected("{\"A\": {\"ClassName\": \"W\", \"ClassName\": \"V\"}}", .json, .duplicate)
        // A name the registry already has.
        try expectRejected("Base1: W\n", .yaml, .duplicate)
    }

    @Test func emptyInput() throws {
        try expectRejected("", .yaml, .schema, containing: "empty")
        try expectRejected("   \n# only a comment\n", .yaml, .schema, containing: "empty")
        try expectRejected("", .json, .syntax)
        try expectRejected("", .plist, .syntax)
        try expectRejected("", .auto, .schema)
    }

    // MARK: YAML features

    @Test func yamlAnchorsAndAliases() throws {
        // Aliases expand to copies (legal).
        let e = try accepted("A: &cls W\nB: {ClassName: *cls, Dependencies: {l: &l [1, 2], m: *l}}\n", .yaml)
        #expect(e.last?.dependencies.map(\.value) == [.list([.int(1), .int(2)]), .list([.int(1), .int(2)])])
        // An undefined alias is a syntax error.
        try expectRejected("A: *nope\n", .yaml, .syntax)
        // Billion laughs: CR_ERR_LIMIT (alias expansion), long before memory or time run out.
        try expectRejected(Self.billionLaughs, .yaml, .limit, containing: "alias")
    }

    static let billionLaughs: String = {
        var s = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        let names = ["b", "c", "d", "e", "f", "g", "h", "i"]
        var previous = "a"
        for n in names {
            s += "\(n): &\(n) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
            previous = n
        }
        return s
    }()

    @Test func yamlMergeKeysAndTags() throws {
        // YAML 1.2 has no merge key: '<<' is an ordinary key, so an unknown entry key.
        try expectRejected("base: &b {ClassName: W}\nA:\n  <<: *b\n", .yaml, .schema, containing: "'<<'")
        // Custom tags are refused (well-formed YAML, so a schema error); standard ones agree with the value.
        try expectRejected("A: !custom W\n", .yaml, .schema, containing: "tag")
        try expectRejected("A: !!python/object:os.system W\n", .yaml, .schema)
        #expect(try accepted("A: !!str W\n", .yaml).first?.className == "W")
    }

    @Test func yamlMultipleDocuments() throws {
        try expectRejected("A: W\n---\nB: W\n", .yaml, .schema, containing: "one YAML document")
        #expect(try accepted("---\nA: W\n...\n", .yaml).map(\.name) == ["A"])
    }

    // MARK: Plists

    /// A binary plist: one dict {"A": "W"} by hand, with the offset table and trailer to mangle.
    static func binaryPlist(
        offsetOf object: Int? = nil, to value: UInt8 = 0, topObject: UInt8 = 0, selfRef: Bool = false
    ) -> [UInt8] {
        var b = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        offsets.append(UInt8(b.count))  // object 0: dict with 1 pair: key ref 1, value ref selfRef ? 0 : 2
        b += [0xD1, 0x01, selfRef ? 0x00 : 0x02]
        offsets.append(UInt8(b.count))  // object 1: "A"
        b += [0x51, 0x41]
        offsets.append(UInt8(b.count))  // object 2: "W"
        b += [0x51, 0x57]
        if let object { offsets[object] = value }
        let tableOffset = b.count
        b += offsets
        // Trailer: 6 unused, offset int size 1, ref size 1, 3 objects, top object, table offset.
        b +=
            [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 3] + [0, 0, 0, 0, 0, 0, 0, topObject]
            + [0, 0, 0, 0, 0, 0, 0, UInt8(tableOffset)]
        return b
    }

    @Test func binaryPlists() throws {
        // The well-formed one loads.
        let r = Registry()
        try Self.binaryPlist().withUnsafeBytes { try r.load(bytes: $0, format: .plist) }
        #expect(r.entries.map(\.className) == ["W"])
        // Offsets past the end, into the trailer, or into the header; a top object out of range; a
        // dict containing itself; every truncation.
        try expectRejected(Self.binaryPlist(offsetOf: 2, to: 250), .plist, .syntax)
        try expectRejected(Self.binaryPlist(offsetOf: 1, to: 3), .plist, .syntax)
        try expectRejected(Self.binaryPlist(topObject: 7), .plist, .syntax)
        try expectRejected(Self.binaryPlist(selfRef: true), .plist, .syntax)
        let whole = Self.binaryPlist()
        for n in 0..<whole.count {
            let r = try Self.baseline()
            let e = expectError { try Array(whole[..<n]).withUnsafeBytes { try r.load(bytes: $0, format: .plist) } }
            #expect(e != nil, "truncated to \(n) bytes")
            #expect(r.entries.map(\.name) == ["Base1", "Base2"])
        }
    }

    @Test func xmlPlistEntities() throws {
        // An external entity is never read: DOCTYPE internal subsets are refused outright.
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <plist><dict><key>A</key><string>&x;</string></dict></plist>
            """
        try expectRejected(external, .plist, .syntax)
        let r = Registry()
        let e = expectError { try r.load(text: external, format: .plist) }
        #expect(e?.description.contains("root:") == false)
        // Entity expansion ("billion laughs" in XML) is refused the same way.
        try expectRejected(
            """
            <?xml version="1.0"?>
            <!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <plist><dict><key>A</key><string>&b;</string></dict></plist>
            """, .plist, .syntax)
        // An undefined entity reference, and a parameter entity.
        try expectRejected("<plist><dict><key>A</key><string>&x;</string></dict></plist>", .plist, .syntax)
        try expectRejected(
            "<!DOCTYPE plist [<!ENTITY % p SYSTEM \"http://example.invalid/\"> %p;]><plist><dict/></plist>", .plist, .syntax)
        // The standard public DOCTYPE (no internal subset) and predefined/char entities are fine.
        let ok = try accepted(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>A&amp;&#66;</key><string>W</string></dict></plist>
            """, .plist)
        #expect(ok.map(\.name) == ["A&B"])
    }

    // MARK: Paths

    @Test func pathsThatAreNotRegularFiles() throws {
        let dir = "/tmp/controllerreg-hostile-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        mkdir(dir, 0o755)
        defer {
            unlink("\(dir)/fifo.yaml")
            unlink("\(dir)/dangling.yaml")
            unlink("\(dir)/loop.yaml")
            unlink("\(dir)/secret.yaml")
            rmdir("\(dir)/sub.yaml")
            rmdir(dir)
        }
        mkdir("\(dir)/sub.yaml", 0o755)
        #expect(mkfifo("\(dir)/fifo.yaml", 0o644) == 0)
        symlink("\(dir)/missing.yaml", "\(dir)/dangling.yaml")
        symlink("\(dir)/loop.yaml", "\(dir)/loop.yaml")
        try writeFile("\(dir)/secret.yaml", "A: W\n")
        chmod("\(dir)/secret.yaml", 0)
        let r = try Self.baseline()
        let before = r.entries
        // A directory, a FIFO (no writer: must not block), a missing file, a dangling symlink, a
        // symlink loop, /dev/null (a device), an empty path.
        for path in [
            "\(dir)/sub.yaml", "\(dir)/fifo.yaml", "\(dir)/missing.yaml", "\(dir)/dangling.yaml", "\(dir)/loop.yaml",
            "/dev/null", "",
        ] {
            let e = expectError { try r.load(path: path) }
            #expect(e?.code == .io, "\(path): \(String(describing: e))")
            #expect(r.entries == before)
        }
        // chmod 000: unreadable unless we are root (root reads anything; then it simply loads).
        let e = expectError { try r.load(path: "\(dir)/secret.yaml") }
        if geteuid() == 0 {
            #expect(e == nil)
            #expect(r.entries.map(\.name) == ["Base1", "Base2", "A"])
        } else {
            #expect(e?.code == .io)
            #expect(r.entries == before)
        }
        _ = try r.create("Base2", as: Widget.self)
    }
}
