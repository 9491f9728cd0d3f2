import ControllerReg
import Testing

@Suite("Loading and validation")
struct LoadingTests {
    @Test func theThreeFormatsGiveTheSameRegistry() throws {
        let yaml = Registry()
        try yaml.load(path: fixturePath("example.yaml"))
        #expect(yaml.entries.map(\.name) == ["Test1", "Test2"])
        for file in ["example.json", "example.plist", "example-binary.plist"] {
            let other = Registry()
            try other.load(path: fixturePath(file))
            #expect(other.entries == yaml.entries, "\(file)")
        }
        let test1 = try #require(yaml.entry(named: "Test1"))
        #expect(
            test1.dependencies.map(\.value) == [
                .string("Yes, you can inject a string using the config file"), .int(1000), .bool(true),
                .reference("Test2", at: nil),
            ])
        #expect(test1.location == SourceLocation(file: fixturePath("example.yaml"), line: 2, column: 1))
    }

    @Test func missingReferenceNamesEverythingAndSuggests() {
        let r = Registry()
        let e = expectError {
            try r.load(text: "Test1: {ClassName: C, Dependencies: {test2ViewController: Tset2}}\nTest2: D", file: "cfg.yaml")
        }
        #expect(e?.code == .missingReference)
        let d = e?.diagnostics.first
        #expect(d?.message.contains("entry 'Test1'") == true)
        #expect(d?.message.contains("key 'test2ViewController'") == true)
        #expect(d?.message.contains("no entry named 'Tset2'") == true)
        #expect(d?.message.contains("did you mean 'Test2'?") == true)
        #expect(d?.location == SourceLocation(file: "cfg.yaml", line: 1, column: 59))
    }

    @Test(arguments: [
        ("A: {ClassName: C, Dependencies: {x: A}}", "A -> A"),
        ("A: {ClassName: C, Dependencies: {x: B}}\nB: {ClassName: C, Dependencies: {y: A}}", "A -> B -> A"),
        (
            "A: {ClassName: C, Dependencies: {x: B}}\nB: {ClassName: C, Dependencies: {y: C}}\nC: {ClassName: C, Dependencies: {z: [A]}}",
            "A -> B -> C -> A"
        ),
        (
            "B: {ClassName: C, Dependencies: {y: [{k: C}]}}\nC: {ClassName: C, Dependencies: {z: B}}\nA: {ClassName: C, Dependencies: {x: B}}",
            "B -> C -> B"
        ),
    ])
    func cyclesAreFoundWithTheirPath(text: String, path: String) {
        let r = Registry()
        let e = expectError { try r.load(text: text) }
        #expect(e?.code == .cycle)
        #expect(e?.description.contains("dependency cycle: \(path)") == true, "\(String(describing: e))")
        #expect(r.entries.isEmpty)
    }

    @Test func cycleThroughAnEarlierLoadIsFound() throws {
        // A later load can only close a cycle through its own entries.
        let r = Registry()
        try r.load(text: "A: {ClassName: C}")
        #expect(expectError { try r.load(text: "B: {ClassName: C, Dependencies: {x: B}}") }?.code == .cycle)
    }

    @Test func aFailedLoadLeavesTheRegistryExactlyAsItWas() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "A: W\nB: {ClassName: W, Dependencies: {a: A}}")
        let before = r.entries
        let e = expectError {
            try r.load(text: "C: W\nD: {ClassName: W, Dependencies: {x: Nope}}\nE: {ClassName: W, Bad: 1}")
        }
        #expect(e?.diagnostics.count == 2)
        #expect(r.entries == before)
        #expect(r.entry(named: "C") == nil)
        #expect(try r.create("B", as: Widget.self).children["a"]?.className == "W")
    }

    @Test func everyProblemOfOneLoadIsReported() {
        let r = Registry()
        let e = expectError {
            try r.load(
                text: """
                    A: {ClassName: C, Dependencies: {x: Missing1}}
                    B: {ClassName: C, Dependencies: {y: Missing2, z: [Missing3]}}
                    """)
        }
        #expect(e?.diagnostics.count == 3)
        #expect(e?.diagnostics.allSatisfy { $0.code == .missingReference } == true)
        #expect(e?.description.hasPrefix("3 problems:") == true)
    }

    @Test func aReferenceToAnInvalidEntryIsNotReportedTwice() {
        let r = Registry()
        let e = expectError { try r.load(text: "A: {ClassName: C, Dependencies: {b: B}}\nB: {ClassNam: C}") }
        #expect(e?.diagnostics.count == 1)
        #expect(e?.code == .schema)
    }

    @Test func laterLoadsAddAndMayReferToEarlierEntries() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "A: W")
        try r.load(text: "{\"B\": {\"ClassName\": \"W\", \"Dependencies\": {\"a\": \"A\"}}}", format: .json)
        #expect(try r.create("B", as: Widget.self).children["a"] != nil)
    }

    @Test func redefiningANameNamesBothPlaces() throws {
        let r = Registry()
        try r.load(text: "A: W", file: "one.yaml")
        let e = expectError { try r.load(text: "\nA: V", file: "two.yaml") }
        #expect(e?.code == .duplicate)
        #expect(
            e?.description
                == "two.yaml:2:1: entry 'A' is already defined at one.yaml:1:1; rename it, or load it as an override (CR_LOAD_OVERRIDE) to replace that one"
        )
        #expect(r.entry(named: "A")?.className == "W")
    }

    @Test func filesLoadedTogetherMayReferToEachOther() throws {
        let dir = "/tmp/controllerreg-tests-\(UInt32.random(in: 0 ... .max))"
        try writeFile("\(dir)/a.yaml", "A: {ClassName: W, Dependencies: {b: B}}\n")
        try writeFile("\(dir)/b.json", "{\"B\": {\"ClassName\": \"W\", \"Dependencies\": {\"a2\": \"A2\"}}}")
        try writeFile("\(dir)/c.yaml", "A2: W\n")
        let r = Registry()
        try registerWidgets(r, ["W"])
        #expect(expectError { try r.load(path: "\(dir)/a.yaml") }?.code == .missingReference)
        try r.load(paths: ["\(dir)/a.yaml", "\(dir)/b.json", "\(dir)/c.yaml"])
        #expect(try r.create("A", as: Widget.self).children["b"]?.children["a2"] != nil)
    }

    @Test func unreadablePathsAreIOErrors() {
        let r = Registry()
        #expect(expectError { try r.load(path: "/nonexistent/x.yaml") }?.code == .io)
        let dir = expectError { try r.load(path: "/tmp") }
        #expect(dir?.code == .io)
        #expect(dir?.description.contains("directory") == true)
        #expect(expectError { try r.load(path: "") }?.code == .io)
    }

    @Test func formatIsSniffedForAuto() throws {
        let r = Registry()
        try r.load(text: "{\"A\": \"W\"}")
        try r.load(text: "B: W")
        try r.load(text: "<?xml version=\"1.0\"?><plist><dict><key>C</key><string>W</string></dict></plist>")
        #expect(r.entries.map(\.name) == ["A", "B", "C"])
    }

    @Test func malformedInputIsASyntaxErrorWithLocation() {
        let r = Registry()
        let e = expectError { try r.load(text: "{\"A\": \"W\",}", format: .json, file: "bad.json") }
        #expect(e?.code == .syntax)
        #expect(e?.diagnostics.first?.location?.file == "bad.json")
        let bytes: [UInt8] = [0x41, 0x3A, 0x20, 0xFF, 0xFE]
        let utf8 = expectError { try bytes.withUnsafeBytes { try r.load(bytes: $0, format: .yaml) } }
        #expect(utf8?.code == .syntax)
        #expect(expectError { try r.load(text: "", format: .json) }?.code == .syntax)
        #expect(expectError { try r.load(text: "", format: .yaml) }?.code == .schema)
        #expect(expectError { try r.load(text: "A: 99999999999999999999999") }?.code == .syntax)
    }
}

#if canImport(Glibc)
import Glibc
#endif

func writeFile(_ path: String, _ text: String) throws {
    let dir = String(path[..<path.lastIndex(of: "/")!])
    mkdir(dir, 0o755)
    guard let f = fopen(path, "w") else { throw TestFailure(message: "cannot write \(path)") }
    fputs(text, f)
    fclose(f)
}
