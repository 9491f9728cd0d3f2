import Testing
@testable import ControllerRegConfig

/// Parses `text` with the plist loader.
func plist(_ text: String, file: String = "t.plist", limits: ConfigLimits = ConfigLimits()) throws(ConfigError) -> ConfigDocument {
    try withUnsafeBytesTyped(Array(text.utf8)) { (raw) throws(ConfigError) in
        try PlistParser.parse(raw, file: file, limits: limits)
    }
}

/// Wraps a value in the usual plist envelope.
func wrap(_ value: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(value)
    </plist>

    """
}

/// The error thrown by parsing `text` (fails the test if none is thrown).
func plistError(_ text: String, limits: ConfigLimits = ConfigLimits(), sourceLocation: Testing.SourceLocation = #_sourceLocation) -> ConfigError? {
    do {
        _ = try plist(text, limits: limits)
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The directory holding the fixtures, found from this file's path.
func fixturePath(_ name: String, filePath: String = #filePath) -> String {
    var parts = filePath.split(separator: "/", omittingEmptySubsequences: false)
    while let last = parts.last, last != "Tests" { parts.removeLast() }
    return parts.joined(separator: "/") + "/Fixtures/" + name
}

@Suite struct XMLPlistTests {
    @Test func scalars() throws {
        let doc = try plist(wrap("""
        <array>
          <string>hello</string>
          <integer>42</integer>
          <integer>-7</integer>
          <integer>+0x1F</integer>
          <integer>-9223372036854775808</integer>
          <real>1.5</real>
          <real>-2.5e3</real>
          <true/>
          <false/>
          <string/>
          <dict/>
          <array/>
          <key>k</key>
          <real>nan</real>
          <real>+infinity</real>
          <real>-infinity</real>
          <true></true>
        </array>
        """))
        let n = doc.nodes
        #expect(n[0].kind == .list && n[0].count == 17 && Int(n[0].extent) == n.count)
        #expect(doc.string(at: 1) == "hello")
        #expect(n[2].int == 42 && n[3].int == -7 && n[4].int == 31 && n[5].int == Int64.min)
        #expect(n[6].double == 1.5 && n[7].double == -2500)
        #expect(n[8].kind == .bool && n[8].bool && !n[9].bool)
        #expect(n[10].kind == .string && doc.string(at: 10) == "")
        #expect(n[11].kind == .map && n[11].count == 0 && n[11].extent == 12)
        #expect(n[12].kind == .list && n[12].count == 0 && n[12].extent == 13)
        #expect(doc.string(at: 13) == "k")
        #expect(n[14].double.isNaN && n[15].double == .infinity && n[16].double == -.infinity)
        #expect(n[17].bool)
    }

    @Test func exampleFixture() throws {
        let doc = try ConfigLoader.load(path: fixturePath("example.plist"))
        #expect(doc.nodes[0].kind == .map && doc.nodes[0].count == 2)
        #expect(doc.string(at: 1) == "Test1")
    }
}
