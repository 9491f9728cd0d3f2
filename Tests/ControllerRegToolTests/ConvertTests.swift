import ControllerReg
import ControllerRegTool
import Testing

@Suite struct ConvertTests {
    /// Values that stress quoting and typing in every format.
    static let tricky = """
        Tricky:
          ClassName: Tricky
          Tag: -7
          Description: "line one\\nline two\\ttab \\"quoted\\" back\\\\slash é 日本"
          Dependencies:
            looksTrue: "@true"
            strTrue: "true"
            strNull: "null"
            strYes: "yes"
            strInt: "123"
            strFloat: "1.5"
            strDotInf: ".inf"
            colon: "@a: b"
            hash: "@x #y"
            lead: "@ lead"
            trail: "@trail "
            dash: "- x"
            empty: "@"
            ints: [0, -1, 9223372036854775807, -9223372036854775808]
            doubles: [1.0, -0.0, 1.0e-05, 1.5e+300, 0.1]
            nested: {a: [{b: [true, false]}], c: {}, d: []}
            ref: Other
        Other: OtherClass
        "odd key: #1": {ClassName: "K"}
        "true": T1
        "null": T2
        "yes": T3
        "123": T4
        "1.5": T5
        ".inf": T6
        "- x": T7
        """

    func parse(_ bytes: [UInt8], _ format: ConfigFormat, file: String) throws -> ConfigDocument {
        try ConfigLoader.parse(bytes, format: format, file: file)
    }

    func registryEntries(_ bytes: [UInt8], _ format: ConfigFormat) throws -> [EntryDefinition] {
        let registry = Registry()
        try bytes.withUnsafeBytes { try registry.load(bytes: $0, format: format, file: "converted") }
        return registry.entries
    }

    /// Whether the plist loader is in the core yet (it is written in parallel).
    static let plistLoaderAvailable: Bool = {
        let text = "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>A</key><string>B</string></dict></plist>"
        return (try? ConfigLoader.parse(text, format: .plist)) != nil
    }()

    @Test(arguments: [Paths.example, Paths.graphFixture, "tricky"])
    func yamlJsonYamlKeepsTheDocument(_ source: String) throws {
        let original =
            source == "tricky" ? try ConfigLoader.parse(Self.tricky, format: .yaml) : try ConfigLoader.load(path: source)
        let json = try ConfigWriter.write(original, to: .json)
        let fromJSON = try parse(json, .json, file: "j")
        #expect(sameDocument(original, fromJSON), "\(String(decoding: json, as: UTF8.self))")
        let yaml = try ConfigWriter.write(fromJSON, to: .yaml)
        let fromYAML = try parse(yaml, .yaml, file: "y")
        #expect(sameDocument(original, fromYAML), "\(String(decoding: yaml, as: UTF8.self))")
        #expect(try registryEntries(yaml, .yaml) == registryEntries(json, .json))
    }

    /// YAML -> JSON -> plist -> YAML gives the same registry (needs the plist loader).
    @Test(
        .enabled(if: plistLoaderAvailable, "the plist loader is not in the core yet"),
        arguments: [false, true])
    func yamlJsonPlistYamlRoundTrip(binary: Bool) throws {
        // Plists have no null: use the documents without one.
        for source in [Paths.example, Paths.graphFixture.replacingNull()] {
            let original = try ConfigLoader.load(path: source)
            let json = try ConfigWriter.write(original, to: .json)
            let plist = try ConfigWriter.write(try parse(json, .json, file: "j"), to: .plist, binary: binary)
            let yaml = try ConfigWriter.write(try parse(plist, .plist, file: "p"), to: .yaml)
            let back = try parse(yaml, .yaml, file: "y")
            #expect(sameDocument(original, back))
            let registry = Registry()
            try registry.load(path: source)
            #expect(try registryEntries(yaml, .yaml) == registry.entries)
        }
    }

    /// Until then, an independent reader checks the plists: Python's plistlib.
    @Test(arguments: [false, true])
    func plistsReadByPlistlib(binary: Bool) throws {
        guard let python = Subprocess.find("python3") else { return }
        let dir = temporaryDirectory()
        let doc = try ConfigLoader.parse(Self.tricky, format: .yaml)
        let plist = try ConfigWriter.write(doc, to: .plist, binary: binary)
        writeBytes(dir + "/t.plist", plist)
        writeBytes(dir + "/t.json", try ConfigWriter.write(doc, to: .json))
        let script = """
            import json, plistlib, math
            p = plistlib.load(open('\(dir)/t.plist', 'rb'))
            j = json.load(open('\(dir)/t.json'))
            def same(a, b):
                if isinstance(a, float) or isinstance(b, float):
                    return type(a) is type(b) and (a == b and math.copysign(1, a) == math.copysign(1, b))
                if isinstance(a, dict):
                    return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
                if isinstance(a, list):
                    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
                return type(a) is type(b) and a == b
            assert same(p, j), (p, j)
            """
        let r = try Subprocess.run(python, ["-c", script], input: [])
        #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
    }

    @Test func whatAFormatCannotHoldIsAnError() throws {
        let doc = try ConfigLoader.parse(
            "A:\n  ClassName: X\n  Dependencies: {n: null, f: .inf, c: \"\\x01\"}\n", format: .yaml, file: "in.yaml")
        #expect(throws: ToolError.self) { try ConfigWriter.write(doc, to: .plist) }
        do { _ = try ConfigWriter.write(doc, to: .plist, binary: true) } catch {
            #expect(
                error.description
                    == "in.yaml:3:21: null cannot be written in a property list (plists have no null); remove the value or use a string"
            )
        }
        do { _ = try ConfigWriter.write(doc, to: .json) } catch {
            #expect(error.description == "in.yaml:3:30: inf cannot be written in JSON (it has no NaN or infinity)")
        }
        let control = try ConfigLoader.parse("A: \"\\x01\"\n", format: .yaml, file: "c.yaml")
        #expect(throws: ToolError.self) { try ConfigWriter.write(control, to: .plist) }
        #expect(try ConfigWriter.write(control, to: .plist, binary: true).starts(with: Array("bplist00".utf8)))
        // YAML holds them all.
        let yaml = try ConfigWriter.write(doc, to: .yaml)
        #expect(sameDocument(doc, try parse(yaml, .yaml, file: "y")))
    }

    @Test func commandLine() throws {
        let dir = temporaryDirectory()
        #expect(try runTool(["convert", Paths.example, "--to", "json", "-o", dir + "/e.json"]).status == 0)
        #expect(try runTool(["check", dir + "/e.json"]).status == 0)
        #expect(try runTool(["convert", Paths.example, "--to", "plist", "--binary", "-o", dir + "/e.plist"]).status == 0)
        #expect(readText(dir + "/e.plist")?.hasPrefix("bplist00") == true)
        #expect(try runTool(["convert", Paths.example, "--to", "json", "--binary"]).status == 2)
        #expect(try runTool(["convert", Paths.example, "--to", "toml"]).status == 2)
        writeFile(dir + "/n.yaml", "A: {ClassName: X, Dependencies: {n: null}}\n")
        let r = try runTool(["convert", dir + "/n.yaml", "--to", "plist", "-o", dir + "/n.plist"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("n.yaml:1:37: error: null cannot be written in a property list"))
        #expect(readText(dir + "/n.plist") == nil)
    }
}

extension String {
    /// A copy of the fixture at this path without its null value (written next to it in /tmp).
    func replacingNull() -> String {
        let text = readText(self)!.replacingOccurrences("nothing: null", "nothing: \"@none\"")
        let path = temporaryDirectory() + "/nonull.yaml"
        writeFile(path, text)
        return path
    }

    func replacingOccurrences(_ a: String, _ b: String) -> String {
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: a) {
            out += rest[..<r.lowerBound] + b
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
