import Testing

@testable import ControllerRegConfig

/// Parses `text` with the plist loader.
func plist(_ text: String, file: String = "t.plist", limits: ConfigLimits = ConfigLimits()) throws(ConfigError) -> ConfigDocument
{
    try withUnsafeBytesTyped(Array(text.utf8)) { (raw) throws(ConfigError) in
        try ConfigLoader.parse(raw, format: .plist, file: file, limits: limits)
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
func plistError(
    _ text: String, limits: ConfigLimits = ConfigLimits(), sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ConfigError? {
    do {
        _ = try plist(text, limits: limits)
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite struct XMLPlistTests {
    @Test func scalars() throws {
        let doc = try plist(
            wrap(
                """
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

@Suite struct XMLPlistStructureTests {
    @Test func nestingCountsAndExtents() throws {
        let doc = try plist(
            wrap(
                """
                <dict>
                  <key>a</key>
                  <array>
                    <integer>1</integer>
                    <dict><key>x</key><string>y</string></dict>
                    <array><array/></array>
                  </array>
                  <key>b</key>
                  <dict/>
                </dict>
                """))
        let n = doc.nodes
        #expect(n.count == 11)
        #expect(n[0].kind == .map && n[0].count == 2 && n[0].extent == 11)
        #expect(doc.string(at: 1) == "a")
        #expect(n[2].kind == .list && n[2].count == 3 && n[2].extent == 9)
        #expect(n[3].int == 1)
        #expect(n[4].kind == .map && n[4].count == 1 && n[4].extent == 7)
        #expect(n[7].kind == .list && n[7].count == 1 && n[7].extent == 9)
        #expect(n[8].kind == .list && n[8].count == 0 && n[8].extent == 9)
        #expect(doc.string(at: 9) == "b")
        #expect(n[10].kind == .map && n[10].count == 0 && n[10].extent == 11)
        #expect(doc.pairs(of: 0).map { doc.string(at: $0.key) } == ["a", "b"])
        #expect(doc.elements(of: 2) == [3, 4, 7])
    }

    @Test func textEntitiesCDATAAndWhitespace() throws {
        let doc = try plist(
            wrap(
                """
                <array>
                <string>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;</string>
                <string>&#65;&#x42;&#x1F600;&#233;</string>
                <string><![CDATA[<not> &markup;]]>!</string>
                <string>  two\n  lines\t</string>
                <string>x<!-- hidden -->y</string>
                <string>héllo wörld ✓ 😀</string>
                <key>as value</key>
                </array>
                """))
        #expect(doc.string(at: 1) == "a <b> & \"c\" 'd'")
        #expect(doc.string(at: 2) == "AB😀é")
        #expect(doc.string(at: 3) == "<not> &markup;!")
        #expect(doc.string(at: 4) == "  two\n  lines\t")
        #expect(doc.string(at: 5) == "xy")
        #expect(doc.string(at: 6) == "héllo wörld ✓ 😀")
        #expect(doc.string(at: 7) == "as value")
    }

    @Test func numbers() throws {
        let doc = try plist(
            wrap(
                """
                <array>
                <integer> 9223372036854775807 </integer>
                <integer>0x7FFFFFFFFFFFFFFF</integer>
                <integer>-0x10</integer>
                <integer>0</integer>
                <real>0.1</real>
                <real>1e-300</real>
                <real>12345678901234567890.5</real>
                <real>.5</real>
                <real>5.</real>
                <real>-0</real>
                <real>inf</real>
                <real>3</real>
                <real>2.2250738585072014E-308</real>
                </array>
                """))
        let n = doc.nodes
        #expect(n[1].int == Int64.max && n[2].int == Int64.max && n[3].int == -16 && n[4].int == 0)
        #expect(n[5].double == 0.1)
        #expect(n[6].double == 1e-300)
        #expect(n[7].double == 12345678901234567890.5)
        #expect(n[8].double == 0.5 && n[9].double == 5)
        #expect(n[10].double == 0 && n[10].double.sign == .minus)
        #expect(n[11].double == .infinity && n[12].double == 3)
        #expect(n[13].double == 2.2250738585072014E-308)
    }

    @Test func locations() throws {
        let text =
            "<plist>\n<dict>\n  <key>a</key>\n\t<string>b</string>\n  <key>c</key> <integer>1</integer>\n</dict>\n</plist>\n"
        let doc = try plist(text)
        #expect(doc.location(of: 0) == ControllerRegConfig.SourceLocation(file: "t.plist", line: 2, column: 1))
        #expect(doc.location(of: 1).line == 3 && doc.location(of: 1).column == 3)
        #expect(doc.location(of: 2).line == 4 && doc.location(of: 2).column == 2)
        #expect(doc.location(of: 3).line == 5 && doc.location(of: 3).column == 3)
        #expect(doc.location(of: 4).line == 5 && doc.location(of: 4).column == 16)
        #expect("\(doc.location(of: 4))" == "t.plist:5:16")
    }

    @Test func prologVariants() throws {
        // BOM, comments everywhere, DOCTYPE, no XML declaration, no version attribute.
        let text =
            "\u{FEFF}<!-- top -->\n<!DOCTYPE plist SYSTEM \"file:///etc/passwd\">\n<!-- c -->\n<plist>\n<!-- c --><array><!-- c --><true/><!-- c --></array><!-- c -->\n</plist>\n<!-- trailing -->\n  "
        let doc = try plist(text)
        #expect(doc.nodes.count == 2 && doc.nodes[1].bool)
        let attr = try plist("<?xml version='1.0'?><plist version='1.0' a=\"b\"><string attr = 'x'>v</string ></plist>")
        #expect(attr.string(at: 0) == "v")
    }

    @Test func duplicateKeysAreReported() {
        let error = plistError(wrap("<dict><key>a</key><true/><key>a</key><false/></dict>"))
        #expect(error?.code == .duplicate)
    }

    @Test func exampleFixtureMatchesJSONContent() throws {
        let doc = try ConfigLoader.load(path: fixturePath("example.plist"))
        #expect(doc.nodes[0].kind == .map && doc.nodes[0].count == 2)
        let pairs = doc.pairs(of: 0)
        #expect(doc.string(at: pairs[0].key) == "Test1" && doc.string(at: pairs[1].key) == "Test2")
        #expect(doc.string(at: pairs[1].value) == "Test2ViewController")
        let test1 = doc.pairs(of: pairs[0].value)
        #expect(test1.map { doc.string(at: $0.key) } == ["ClassName", "Description", "Tag", "Dependencies"])
        #expect(doc.nodes[test1[2].value].int == 1)
        let deps = doc.pairs(of: test1[3].value)
        #expect(doc.string(at: deps[0].value) == "@Yes, you can inject a string using the config file")
        #expect(doc.nodes[deps[1].value].int == 1000)
        #expect(doc.nodes[deps[2].value].kind == .bool && doc.nodes[deps[2].value].bool)
        #expect(doc.string(at: deps[3].value) == "Test2")
    }
}

@Suite struct XMLPlistErrorTests {
    /// Checks code, message and (when given) line:column of the error from `text`.
    func check(
        _ text: String, _ code: ErrorCode, _ message: String, line: Int? = nil, column: Int? = nil,
        limits: ConfigLimits = ConfigLimits(), sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let error = plistError(text, limits: limits, sourceLocation: sourceLocation) else { return }
        let d = error.diagnostics[0]
        #expect(d.code == code, sourceLocation: sourceLocation)
        #expect(d.message == message, sourceLocation: sourceLocation)
        if let line { #expect(d.location?.line == line, "line", sourceLocation: sourceLocation) }
        if let column { #expect(d.location?.column == column, "column", sourceLocation: sourceLocation) }
        #expect(d.location?.file == "t.plist", sourceLocation: sourceLocation)
    }

    @Test func mismatchedEndTag() {
        check("<plist>\n  <string>x</strin>\n</plist>", .syntax, "expected </string>, found </strin>", line: 2, column: 12)
        check("<plist><array><true/></dict></plist>", .syntax, "expected </array>, found </dict>", line: 1, column: 22)
        check("<plist><string>x", .syntax, "expected </string>, found end of input" + TruncatedInput.textFix, line: 1, column: 17)
        check("<plist><array><true/>", .syntax, "expected </array>, found end of input" + TruncatedInput.textFix)
        check("<plist><true>x</true></plist>", .syntax, "expected </true>, found text", line: 1, column: 14)
        check("<plist><string>a<b/></string></plist>", .syntax, "unexpected <b> in <string>", line: 1, column: 17)
    }

    @Test func unknownElementAndStructure() {
        check("<plist>\n<foo/></plist>", .syntax, "unknown element <foo>", line: 2, column: 1)
        check("<plist><array>text</array></plist>", .syntax, "unexpected text in <array>", line: 1, column: 15)
        check("<array/>", .syntax, "expected <plist> as the root element, found <array>", line: 1, column: 1)
        check("", .syntax, "expected <plist>, found end of input", line: 1, column: 1)
        check("hello", .syntax, "expected <plist>, found text", line: 1, column: 1)
        check("<plist/>", .syntax, "<plist> is empty; it must contain exactly one value")
        check("<plist></plist>", .syntax, "<plist> is empty; it must contain exactly one value")
        check(
            "<plist><true/><false/></plist>", .syntax, "<plist> must contain exactly one value, found a second <false>", line: 1,
            column: 15)
        check("<plist><plist/></plist>", .syntax, "unexpected <plist> inside <plist>")
        check("<plist><true/></plist>\n<x/>", .syntax, "unexpected content after </plist>", line: 2, column: 1)
        check("<plist><true/></plist>junk", .syntax, "unexpected content after </plist>", line: 1, column: 23)
        check(
            "<plist><!-- never closed <true/></plist>", .syntax, "unterminated comment (expected '-->')" + TruncatedInput.textFix,
            line: 1, column: 8)
    }

    @Test func dictPairs() {
        check(
            "<plist><dict>\n<string>v</string></dict></plist>", .syntax, "expected <key> in <dict>, found <string>", line: 2,
            column: 1)
        check(
            "<plist><dict><key>lonely</key>\n</dict></plist>", .syntax, "key 'lonely' in <dict> has no value", line: 1, column: 14
        )
        check(
            "<plist><dict><key>a</key><key>b</key></dict></plist>", .syntax, "key 'a' in <dict> has no value", line: 1, column: 14
        )
    }

    @Test func dtdSubsetsAndEntitiesRejected() {
        let msg = "DTD subsets and entity declarations are not supported"
        check(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [ <!ENTITY x \"boom\"> ]>\n<plist><string>&x;</string></plist>", .syntax,
            msg, line: 2, column: 1)
        check("<!DOCTYPE plist SYSTEM \"http://example.com/x.dtd\" [ ]><plist><true/></plist>", .syntax, msg)
        check("<!ENTITY x SYSTEM \"file:///etc/passwd\"><plist><true/></plist>", .syntax, msg, line: 1, column: 1)
        check("<plist><array><!ENTITY x \"y\"></array></plist>", .syntax, msg, line: 1, column: 15)
    }

    /// The place, the value and the fix: a literal string the class converts.
    @Test func dataAndDateRejected() {
        check(
            "<plist>\n<array>\n  <data>AAAA</data></array></plist>", .schema,
            "plist <data> values are not supported in configs: write the bytes as a literal string (<string>@aGVsbG8=</string>, base64) and decode them in the class",
            line: 3, column: 3)
        check(
            "<plist><date>2020-01-01T00:00:00Z</date></plist>", .schema,
            "plist <date> values are not supported in configs: write the date as a literal string (<string>@2001-12-14T00:00:00Z</string>) and parse it in the class",
            line: 1, column: 8)
    }

    @Test func entityErrors() {
        check(
            "<plist><string>a &nbsp; b</string></plist>", .syntax,
            "unknown entity '&nbsp;' (only &lt; &gt; &amp; &quot; &apos; and character references are supported)", line: 1,
            column: 18)
        check("<plist><string>&#xD800;</string></plist>", .syntax, "invalid character reference '&#xD800;'", line: 1, column: 16)
        check("<plist><string>&#x110000;</string></plist>", .syntax, "invalid character reference '&#x110000;'")
        check("<plist><string>&#0;</string></plist>", .syntax, "invalid character reference '&#0;'")
        check("<plist><string>&#12a;</string></plist>", .syntax, "invalid character reference '&#12a;'")
        check("<plist><string>a & b</string></plist>", .syntax, "unterminated entity reference (expected ';')")
        check(
            "<plist><string><![CDATA[x</string></plist>", .syntax,
            "unterminated CDATA section (expected ']]>')" + TruncatedInput.textFix)
    }

    @Test func invalidUTF8() {
        for bad: [UInt8] in [[0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80]] {
            var bytes = Array("<plist>\n<string>ab".utf8)
            bytes += bad
            bytes += Array("</string></plist>".utf8)
            do {
                _ = try withUnsafeBytesTyped(bytes) { (raw) throws(ConfigError) in
                    try PlistParser.parse(raw, file: "t.plist", limits: ConfigLimits())
                }
                Issue.record("accepted invalid UTF-8 \(bad)")
            } catch {
                #expect(error.code == .syntax)
                #expect(error.diagnostics[0].message.hasPrefix("invalid UTF-8 byte 0x"))
                #expect(error.diagnostics[0].location?.line == 2 && error.diagnostics[0].location?.column == 11)
            }
        }
    }

    @Test func numberErrors() {
        check(
            "<plist><integer>9223372036854775808</integer></plist>", .syntax,
            "integer '9223372036854775808' is out of the 64-bit range", line: 1, column: 8)
        check(
            "<plist><integer>-9223372036854775809</integer></plist>", .syntax,
            "integer '-9223372036854775809' is out of the 64-bit range")
        check(
            "<plist><integer>0x10000000000000000</integer></plist>", .syntax,
            "integer '0x10000000000000000' is out of the 64-bit range")
        check("<plist><integer>12abc</integer></plist>", .syntax, "invalid integer '12abc'")
        check("<plist><integer>1.5</integer></plist>", .syntax, "invalid integer '1.5'")
        check("<plist><integer/></plist>", .syntax, "invalid integer ''")
        check("<plist><real>1.2.3</real></plist>", .syntax, "invalid real '1.2.3'")
        check("<plist><real>e5</real></plist>", .syntax, "invalid real 'e5'")
        check("<plist><real>1e</real></plist>", .syntax, "invalid real '1e'")
        check("<plist><real>nope</real></plist>", .syntax, "invalid real 'nope'")
    }

    @Test func everyTruncationOfTheFixtureIsAnError() throws {
        let good = try ConfigLoader.readFile(fixturePath("example.plist"))
        let end = good.lastIndex(of: UInt8(ascii: ">"))!
        for length in 0...end {
            #expect(throws: ConfigError.self) {
                _ = try withUnsafeBytesTyped(Array(good[0..<length])) { (raw) throws(ConfigError) in
                    try PlistParser.parse(raw, file: "t.plist", limits: ConfigLimits())
                }
            }
        }
    }

    @Test func limitsPropagate() {
        let deep = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
        guard let error = plistError("<plist>" + deep + "</plist>") else { return }
        #expect(error.code == .limit)
        var small = ConfigLimits()
        small.maxNodes = 3
        #expect(plistError(wrap("<array><true/><true/><true/></array>"), limits: small)?.code == .limit)
        small = ConfigLimits()
        small.maxStringBytes = 4
        #expect(plistError(wrap("<string>12345</string>"), limits: small)?.code == .limit)
    }
}

/// XML 1.0 text rules (issue 12 item 10): line ends normalised, forbidden characters rejected.
@Suite struct XMLPlistCharacterTests {
    @Test func lineEndsBecomeLF() throws {
        let doc = try plist(
            wrap("<dict><key>a\r\nb</key><string>x\r\ny\rz\r\n</string><key>c</key><string><![CDATA[p\r\nq\rr]]></string></dict>")
        )
        #expect(doc.string(at: 1) == "a\nb")
        #expect(doc.string(at: 2) == "x\ny\nz\n")
        #expect(doc.string(at: 4) == "p\nq\nr")
        // A character reference keeps its CR.
        #expect(try plist(wrap("<string>a&#13;&#x0D;b</string>")).string(at: 0) == "a\r\rb")
    }

    @Test func aCRLFPlistGivesTheSameStringsAsACRLFYAMLFile() throws {
        let yaml = try ConfigLoader.parse("A: |\r\n  x\r\n  y\r\n", format: .yaml)
        let xml = try plist(wrap("<dict><key>A</key><string>x\ny\n</string></dict>").replacingLineEnds())
        #expect(yaml.string(at: 2) == "x\ny\n")
        #expect(xml.string(at: 2) == yaml.string(at: 2))
    }

    @Test(arguments: [
        "a\u{1}b", "a\u{1B}b", "a\u{FFFE}b", "a\u{FFFF}b", "a&#1;b", "a&#x1F;b", "a&#xFFFE;b", "a&#65535;b",
        "<![CDATA[a\u{7}b]]>",
    ])
    func charactersXMLForbidsAreSyntaxErrors(content: String) {
        let error = plistError(wrap("<string>\(content)</string>"))
        #expect(error?.code == .syntax)
        #expect(
            error?.description.contains("XML") == true || error?.description.contains("character reference") == true,
            "\(String(describing: error))")
    }

    @Test func tabsAndLineFeedsStay() throws {
        #expect(try plist(wrap("<string>a\tb\nc&#9;&#10;</string>")).string(at: 0) == "a\tb\nc\t\n")
    }
}

extension String {
    /// The text with every LF written CRLF (as a file saved on Windows).
    func replacingLineEnds() -> String {
        var out = ""
        for c in unicodeScalars { if c == "\n" { out += "\r\n" } else { out.unicodeScalars.append(c) } }
        return out
    }
}

/// Text and places read eight bytes at a time: every special byte at every offset within a word.
@Suite struct XMLPlistScanTests {
    @Test func specialBytesAtEveryOffset() throws {
        for k in 0..<20 {
            let pad = String(repeating: "a", count: k)
            let doc = try plist(wrap("<array><string>\(pad)&amp;é\t\nb</string><string>\(pad)\r\nc</string></array>"))
            #expect(doc.string(at: 1) == pad + "&é\t\nb")
            #expect(doc.string(at: 2) == pad + "\nc")
            let control = plistError(wrap("<string>\(pad)\u{1}</string>"))
            #expect(control?.diagnostics.first?.location?.column == 9 + k, "\(String(describing: control))")
        }
    }

    @Test func placesAfterManyLinesOfEveryLength() throws {
        // Lines of 0 to 40 bytes before the value, then an error on the next line at a known column.
        var lines = ["<plist>", "<dict>"]
        for i in 0..<200 {
            lines.append(String(repeating: " ", count: i % 41) + "<key>k\(i)</key><integer>\(i)</integer>")
        }
        lines.append("   <bogus/>")
        lines.append("</dict></plist>")
        let error = plistError(lines.joined(separator: "\n"))
        #expect(error?.diagnostics.first?.message.contains("expected <key> in <dict>, found <bogus>") == true)
        #expect(error?.diagnostics.first?.location?.line == 203)
        #expect(error?.diagnostics.first?.location?.column == 4)
        // Each value's place is right too.
        lines.removeLast(2)
        lines.append("</dict></plist>")
        let doc = try plist(lines.joined(separator: "\n"))
        for i in 0..<200 {
            #expect(doc.location(of: 1 + 2 * i).line == 3 + i)
            #expect(doc.location(of: 1 + 2 * i).column == 1 + i % 41)
        }
    }
}
