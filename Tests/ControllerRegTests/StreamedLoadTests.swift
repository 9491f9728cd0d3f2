import ControllerReg
import ControllerRegConfig
import Testing

/// A load decodes each entry as soon as the parser has read it, and the parser then reuses the
/// entry's nodes (the whole document is never in memory). What a user sees is what reading the
/// whole document first gave: a syntax error late in a file fails that file alone, repeated names
/// are found however far apart, the node limit counts the whole document, and YAML aliases reach
/// anchors written many entries before.
@Suite("Entries decoded while the file is read", .serialized)
struct StreamedLoadTests {
    /// `count` entries `E0`, `E1`, … (one line each): every 50th has an unknown key, the others
    /// refer to entry `ref` (a name that may not exist).
    static func entries(_ count: Int, prefix: String = "E", ref: String = "E0") -> String {
        (0..<count).map { i in
            i % 50 == 7
                ? "\(prefix)\(i): {ClassName: C, Bogus: 1}\n" : "\(prefix)\(i): {ClassName: C, Dependencies: {x: \(ref)}}\n"
        }.joined()
    }

    @Test func aSyntaxErrorAfterManyEntriesFailsTheLoadWithItAlone() {
        let r = Registry()
        let error = expectError {
            try r.load(text: Self.entries(1_000, ref: "Missing") + "broken: [\n", format: .yaml, file: "late.yaml")
        }
        #expect(error?.diagnostics.count == 1)
        #expect(error?.code == .syntax)
        #expect((error?.diagnostics.first?.location?.line ?? 0) > 1_000)
        #expect(r.entries.isEmpty)
        // JSON: the same, after a hundred valid entries.
        let json = "{" + (0..<1_000).map { "\"J\($0)\": \"C\"" }.joined(separator: ", ") + ", \"K\": }"
        let jsonError = expectError { try r.load(text: json, format: .json) }
        #expect(jsonError?.diagnostics.count == 1 && jsonError?.code == .syntax)
        #expect(r.entries.isEmpty)
    }

    @Test func aFileThatBreaksLateAddsNothingToTheFilesLoadedWithIt() {
        let dir = ConfigDir()
        let good = dir.write("good.yaml", "G: C\nE3: C\n")
        // Its entries would be invalid, and repeat a name of the good file: none of it is reported.
        let bad = dir.write("bad.yaml", Self.entries(1_000, ref: "Missing") + "broken: [\n")
        for paths in [[good, bad], [bad, good]] {
            let r = Registry()
            let error = expectError { try r.load(paths: paths) }
            #expect(error?.diagnostics.count == 1)
            #expect(error?.diagnostics.first?.code == .syntax)
            #expect(error?.diagnostics.first?.location?.file == bad)
            #expect(r.entries.isEmpty)
        }
        // A file with problems and a file that breaks late: the first file's problems, and the error.
        let flawed = dir.write("flawed.yaml", "A: {ClassName: C, Dependencies: {x: Nowhere}}\n")
        let error = expectError { try Registry().load(paths: [flawed, bad]) }
        #expect(error?.diagnostics.map(\.code) == [.syntax])
        let withGood = expectError { try Registry().load(paths: [flawed, good]) }
        #expect(withGood?.diagnostics.map(\.code) == [.missingReference])
    }

    @Test func aReloadOfAFileThatBrokeLateKeepsTheRegistry() throws {
        let dir = ConfigDir()
        let file = dir.write("app.yaml", "A: {ClassName: C, Dependencies: {n: 1}}\n")
        let r = Registry()
        try r.load(path: file)
        dir.write("app.yaml", Self.entries(1_000) + "A: {ClassName: D}\nbroken: [\n")
        let error = expectError { _ = try r.reload() }
        #expect(error?.diagnostics.count == 1 && error?.code == .syntax)
        #expect(r.entries.map(\.name) == ["A"])
        #expect(r.entry(named: "A")?.className == "C")
        dir.write("app.yaml", "A: {ClassName: D}\n")
        _ = try r.reload()
        #expect(r.entry(named: "A")?.className == "D")
    }

    @Test func aRepeatedNameFarFromTheFirstIsReportedAndSkipped() {
        // E7 is invalid where it is first written; its repeat (valid) is skipped, not checked.
        let text = Self.entries(1_000) + "E7: {ClassName: Again, Bogus: 2}\nE8: Again\n"
        let error = expectError { try Registry().load(text: text, format: .yaml, file: "dup.yaml") }
        let messages = error?.diagnostics.map(\.message) ?? []
        #expect(messages.contains("duplicate key 'E7' (first defined at line 8, column 1); remove one of them"))
        #expect(messages.contains("duplicate key 'E8' (first defined at line 9, column 1); remove one of them"))
        // Twenty unknown keys (E7, E57, …, E957), none from the skipped repeat.
        #expect(messages.filter { $0.hasPrefix("unknown key 'Bogus'") }.count == 20)
        #expect(error?.diagnostics.filter { $0.location?.line == 1_001 }.map(\.code) == [.duplicate])
    }

    /// A document of `names` in `format`: each entry a map with `ClassName` (an integer for names
    /// in `invalid`: not staged), and a repeated key inside entry `E2`.
    static func document(_ names: [String], invalid: Set<String>, format: ConfigFormat) -> String {
        func value(_ name: String) -> [(String, String)] {
            let cls = invalid.contains(name) ? ("ClassName", "1") : ("ClassName", "C")
            return name == "E2" ? [cls, ("Description", "a"), ("Description", "b")] : [cls]
        }
        switch format {
        case .json:
            let entries = names.map { name in
                "\"\(name)\": {" + value(name).map { "\"\($0.0)\": \($0.1 == "1" ? "1" : "\"\($0.1)\"")" }.joined(separator: ", ")
                    + "}"
            }
            return "{\n" + entries.joined(separator: ",\n") + "\n}\n"
        case .plist:
            let entries = names.map { name in
                "<key>\(name)</key><dict>"
                    + value(name).map {
                        "<key>\($0.0)</key>" + ($0.1 == "1" ? "<integer>1</integer>" : "<string>\($0.1)</string>")
                    }
                    .joined() + "</dict>"
            }
            return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>\n" + entries.joined(separator: "\n")
                + "\n</dict></plist>\n"
        default:
            return names.map { name in "\(name): {" + value(name).map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}\n" }
                .joined()
        }
    }

    @Test(arguments: zip([ConfigFormat.yaml, .json, .plist, .json, .yaml], [600, 600, 600, 40_000, 40_000]))
    func repeatedNamesAreReportedAsTheWholeDocumentsCheckReportsThem(format: ConfigFormat, count: Int) throws {
        // Names repeated near and far (past several hand-overs), a repeat of a repeat, an invalid
        // entry repeated, beside a repeated key inside an entry: what the load reports is what
        // the loader's check of the whole document (no entries decoded while it reads) reports.
        // With 40,000 names the staged names' index is large enough that the decoder reads the
        // cells of each hand-over's names before looking them up (a repeat among them too).
        var names = (0..<count).map { "E\($0)" }
        names.insert("E1", at: 3)
        names.insert("E\(count / 2)", at: count - count / 8)
        names += ["E5", "E\(count - 1)", "E5", "E9", "E2"]
        let text = Self.document(names, invalid: ["E9"], format: format)
        let whole = try ConfigLoader.parse(text, format: format, file: "t", keepingProblems: true)
        let error = expectError { try Registry().load(text: text, format: format, file: "t") }
        func places(_ problems: [Diagnostic]) -> [String] {
            problems.filter { $0.message.hasPrefix("duplicate key") }.map {
                "\($0.location.map { "\($0)" } ?? "-") \($0.message)"
            }
            .sorted()
        }
        #expect(places(whole.problems).count == 9)  // seven repeated names, two repeated keys in E2s
        #expect(places(error?.diagnostics ?? []) == places(whole.problems))
        // The repeats are skipped: E9's one problem (its first, invalid definition), none from E2's repeat.
        #expect(error?.diagnostics.filter { $0.message.contains("'E9'") }.count == 2)
    }

    @Test func theNodeLimitCountsEveryEntryNotOneAtATime() throws {
        // 1,000 entries of 4 values each (name, map, ClassName, C), and the root.
        let text = (0..<1_000).map { "E\($0): {ClassName: C}\n" }.joined()
        var limits = RegistryLimits()
        limits.config.maxNodes = 1 + 1_000 * 4
        try Registry(limits: limits).load(text: text, format: .yaml)
        limits.config.maxNodes -= 1
        let error = expectError { try Registry(limits: limits).load(text: text, format: .yaml) }
        #expect(error?.code == .limit)
        #expect(
            error?.diagnostics.first?.message
                == "the document has more than 4000 values (CR_LIMIT_NODES: raise it with cr_registry_set_limit if the config is trusted)"
        )
        #expect(error?.diagnostics.first?.location?.line == 1_000)
    }

    @Test func anAliasReachesAnAnchorWrittenManyEntriesBefore() throws {
        let text =
            "First: &first {ClassName: Leaf, Dependencies: {n: 5, l: ['@a', '@b']}}\n" + Self.entries(1_000, ref: "First")
            + "Late: &late {ClassName: Node, Dependencies: {x: First}}\n" + Self.entries(100, prefix: "F", ref: "Late")
            + "CopyOfFirst: *first\nCopyOfLate: *late\n"
        let r = Registry()
        let error = expectError { try r.load(text: text, format: .yaml) }
        // Only the unknown keys (E7, …, F57): the copies are whole entries.
        #expect(error?.diagnostics.allSatisfy { $0.message.hasPrefix("unknown key 'Bogus'") } == true)
        let good = text.split(separator: "\n").filter { !$0.contains("Bogus") }.joined(separator: "\n") + "\n"
        try r.load(text: good, format: .yaml)
        let first = try #require(r.entry(named: "First")), copy = try #require(r.entry(named: "CopyOfFirst"))
        #expect(copy.className == first.className && copy.dependencies == first.dependencies)
        #expect(r.entry(named: "CopyOfLate")?.className == "Node")
        #expect(r.entries.count == 2 + 980 + 98 + 2)
    }
}
