import ControllerRegConfig
import Testing

@testable import ControllerReg

/// Issue 12 items 2, 3 and 11: suggestions are bounded and sensible, every problem of a load is
/// reported at once, and the code of a many-problem load does not depend on the order of lines.
@Suite("Error reporting: suggestions, every problem at once, bounded messages")
struct ErrorReportingTests {
    // MARK: Suggestions

    @Test func distanceCountsEditsAndTranspositions() {
        func d(_ a: String, _ b: String, cap: Int = 8) -> Int { Suggestions.distance(Array(a.utf8), Array(b.utf8), cap: cap) }
        #expect(d("kitten", "sitting") == 3)
        #expect(d("Tset1", "Test1") == 1)
        #expect(d("provider", "Provider") == 0)
        #expect(d("", "abc") == 3)
        #expect(d("abcdef", "uvwxyz", cap: 2) == 3)  // stops at the cap
        let long = String(repeating: "A", count: 64_000)
        #expect(d(long + "1", long + "2", cap: 8) == 1)
    }

    @Test func theWordAtATimeDistanceIsTheTables() {
        // `Suggestions.Pattern` (a word of up to 64 bytes, one bit per byte) against the banded
        // table, on random words over a small alphabet (so close pairs are common), every cap.
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("abAB01_".utf8)
        func word(_ n: Int) -> [UInt8] { (0..<n).map { _ in alphabet.randomElement(using: &rng)! } }
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 256) { table in
            for _ in 0..<4_000 {
                let a = word(Int.random(in: 0...12, using: &rng))
                var b = a
                for _ in 0..<Int.random(in: 0...4, using: &rng) {
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0 where !b.isEmpty: b.remove(at: Int.random(in: 0..<b.count, using: &rng))
                    case 1: b.insert(alphabet.randomElement(using: &rng)!, at: Int.random(in: 0...b.count, using: &rng))
                    case 2 where b.count > 1:
                        let i = Int.random(in: 0..<b.count - 1, using: &rng)
                        b.swapAt(i, i + 1)
                    default: if !b.isEmpty { b[Int.random(in: 0..<b.count, using: &rng)] = alphabet.randomElement(using: &rng)! }
                    }
                }
                if Bool.random(using: &rng) { b = word(Int.random(in: 0...12, using: &rng)) }
                let cap = Int.random(in: 0...8, using: &rng)
                let banded = Suggestions.distance(a, b, cap: cap)
                let parallel = a.withUnsafeBufferPointer { x in
                    b.withUnsafeBufferPointer { y in Suggestions.Pattern(x, table: table).distance(to: y, cap: cap) }
                }
                #expect(
                    parallel == banded, "\(String(decoding: a, as: UTF8.self)) / \(String(decoding: b, as: UTF8.self)) cap \(cap)"
                )
            }
        }
        // The longest word it takes, and a case-insensitive match.
        let long = Array(String(repeating: "ab", count: 32).utf8)
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 256) { table in
            long.withUnsafeBufferPointer { x in
                let p = Suggestions.Pattern(x, table: table)
                #expect(
                    Array(String(repeating: "AB", count: 32).utf8).withUnsafeBufferPointer { p.distance(to: $0, cap: 0) } == 0)
                #expect(
                    Array(("b" + String(repeating: "ab", count: 31) + "a").utf8).withUnsafeBufferPointer {
                        p.distance(to: $0, cap: 8)
                    } == 2)
            }
        }
    }

    @Test func shortNamesAreNotSuggestedFarAway() {
        // 'N1' -> 'M' is two edits in a two-letter name: not a typo.
        #expect(Suggestions.closest(to: "N1", in: ["M"]) == nil)
        #expect(Suggestions.closest(to: "Tst2", in: ["Test1", "Test2"]) == "Test2")
        // The nearer length wins a tie in distance.
        #expect(Suggestions.closest(to: "Servic", in: ["Servce", "Service"]) == "Service")
    }

    @Test func theReferringEntryIsNeverSuggested() {
        let r = Registry()
        let e = expectError { try r.load(text: "N1: {ClassName: C, Dependencies: {x: N2}}") }
        #expect(e?.code == .missingReference)
        #expect(e?.diagnostics.first?.suggestion == nil)
        #expect(e?.description.contains("did you mean") == false)
    }

    @Test func suggestionsFillTheDiagnosticField() throws {
        let r = Registry()
        var e = expectError { try r.load(text: "Test2: W\nTest1: {ClassName: C, Dependencies: {x: Tset2}}") }
        #expect(e?.diagnostics.first?.suggestion == "Test2")
        e = expectError { try r.load(text: "A: {ClassName: C, Dependencies: {x: B}, Lifestyle: singelton}") }
        #expect(e?.diagnostics.first?.suggestion == "singleton")
        e = expectError { try r.load(text: "A: {ClassName: C, Dependnecies: {}}") }
        #expect(e?.diagnostics.first?.suggestion == "Dependencies")
        try r.load(text: "Test2: W")
        e = expectError { _ = try r.create("Tset2") }
        #expect(e?.diagnostics.first?.suggestion == "Test2")
        e = expectError { try r.remove(entriesNamed: ["Tets2"]) }
        #expect(e?.diagnostics.first?.suggestion == "Test2")
    }

    @Test func eachUnknownKeyGetsItsOwnSuggestion() {
        // The decoder remembers the last unknown key's suggestion: a different key is looked up.
        let text = ["Descripton", "Descripton", "Dependencis", "Descripton", "Lifestlye", "Zzzzzzzz"].enumerated()
            .map { "E\($0.offset): {ClassName: C, \($0.element): x}" }.joined(separator: "\n")
        let e = expectError { try Registry().load(text: text) }
        #expect(
            e?.diagnostics.map(\.suggestion) == ["Description", "Description", "Dependencies", "Description", "Lifestyle", nil])
    }

    @Test func onlyTheFirstProblemsGetSuggestions() {
        let lines = (0..<100).map { "E\($0)x: {ClassName: C, Dependencies: {a: T\($0)x}}\nT\($0)y: C" }
        let e = expectError { try Registry().load(text: lines.joined(separator: "\n")) }
        #expect(e?.diagnostics.count == 100)
        #expect(e?.diagnostics.filter { $0.suggestion != nil }.count == Suggestions.maxSuggestedProblems)
    }

    @Test func aLargeRegistryBoundsTheSuggestionWork() {
        // 100 misspelt references among 5,100 entries: each suggestion scans every name, so fewer
        // problems get one (the total work is bounded), the first ones still do.
        let targets = (0..<5_000).map { "T\($0)y: C" }
        let refs = (0..<100).map { "E\($0)x: {ClassName: C, Dependencies: {a: T\($0)x}}" }
        let e = expectError { try Registry().load(text: (refs + targets).joined(separator: "\n")) }
        #expect(e?.diagnostics.count == 100)
        let suggested = e?.diagnostics.filter { $0.suggestion != nil } ?? []
        #expect(suggested.count == Suggestions.suggestedProblems(candidates: 5_100))
        #expect(suggested.count < Suggestions.maxSuggestedProblems)
        #expect(e?.diagnostics.first?.suggestion == "T0y")
    }

    @Test func suggestedProblemsShrinkWithTheRegistryButNeverToNone() {
        #expect(Suggestions.suggestedProblems(candidates: 0) == Suggestions.maxSuggestedProblems)
        #expect(Suggestions.suggestedProblems(candidates: 2_048) == Suggestions.maxSuggestedProblems)
        #expect(Suggestions.suggestedProblems(candidates: 10_000) == 6)
        #expect(Suggestions.suggestedProblems(candidates: 1_000_000) == 1)
    }

    // MARK: Bounded messages

    @Test func aLongCycleNamesItsFirstAndLastParts() {
        let n = 2_000
        var text = (0..<n - 1).map { "E\($0): {ClassName: C, Dependencies: {next: E\($0 + 1)}}" }
        text.append("E\(n - 1): {ClassName: C, Dependencies: {next: E0}}")
        let e = expectError { try Registry().load(text: text.joined(separator: "\n")) }
        #expect(e?.code == .cycle)
        let message = e?.diagnostics.first?.message ?? ""
        #expect(message.hasPrefix("dependency cycle: E0 -> E1 -> "))
        #expect(message.contains("-> E7 -> ... (\(n + 1 - 16) more entries) ... -> E\(n - 7) -> "))
        #expect(message.contains("-> E\(n - 1) -> E0 (via key 'next' of 'E0')"))
        #expect(message.utf8.count < 300)
        // The path a tool draws keeps the cycle's first `maxPathNames` names, in order.
        let path = e?.diagnostics.first?.path ?? []
        #expect(path.count == Diagnostic.maxPathNames)
        #expect(path.first == "E0" && path[1] == "E1" && path.last == "E\(Diagnostic.maxPathNames - 1)")
    }

    @Test func aCycleThroughANestedMapNamesItsKeyAndIsPlacedAtTheReference() {
        // B's reference to A sits in a list inside a map, after a provider of A (not an object
        // edge) and a literal: the message names the entry's own key and is placed at the
        // reference itself; the path is the cycle closed on its first entry.
        let text = """
            A: {ClassName: C, Dependencies: {b: B}}
            B:
              ClassName: C
              Dependencies:
                title: "@x"
                make: {Provider: A}
                settings:
                  n: 1
                  parts: [X, A]
            X: C
            """
        let e = expectError { try Registry().load(text: text) }
        let d = e?.diagnostics.first
        #expect(d?.message == "dependency cycle: A -> B -> A (via key 'b' of 'A')")
        #expect(d?.location?.line == 1)
        #expect(d?.path == ["A", "B", "A"])
        // A cycle of one entry through the same nesting: placed at the reference in the list.
        let own = """
            B:
              ClassName: C
              Dependencies:
                title: "@x"
                make: {Provider: B}
                settings:
                  n: 1
                  parts: [X, B]
            X: C
            """
        let g = expectError { try Registry().load(text: own) }?.diagnostics.first
        #expect(g?.message == "dependency cycle: B -> B (via key 'settings' of 'B')")
        #expect(g?.location?.line == 8 && g?.location?.column == 18)
        #expect(g?.path == ["B", "B"])
    }

    @Test func aMessageQuotingAHugeNameIsCapped() throws {
        let r = Registry()
        try r.load(text: "A: C")
        let e = expectError { _ = try r.create(String(repeating: "N", count: 1_000_000)) }
        #expect(e?.code == .notFound)
        let message = e?.diagnostics.first?.message ?? ""
        #expect(message.utf8.count <= Diagnostic.maxMessageBytes)
        #expect(message.hasPrefix("no entry named 'NNN"))
        #expect(message.contains("bytes left out"))
        #expect(message.hasSuffix("NNNN'"))
    }

    // MARK: Messages written in one buffer

    @Test func numbersAndPlacesAreWrittenAsStringsWriteThem() {
        let text = TextBuffer(capacity: 1)  // grows
        for n in [0, 7, -1, 10, 99, 100, 65_535, -40_000, Int.max, Int.min] {
            text.clear()
            text.append(n)
            #expect(text.string == String(n))
        }
        for place in [
            SourceLocation(file: "a.yaml", line: 3, column: 14), SourceLocation(file: "b.plist", line: 0, column: 812),
            SourceLocation(file: "", line: 1, column: 1), SourceLocation(file: "ünï.json", line: 123_456, column: 0),
        ] {
            text.clear()
            text.append(place)
            #expect(text.string == place.description)
        }
    }

    @Test func aKeptMessageReadsEqualsAndHashesAsItsString() {
        let text = TextBuffer()
        text.append("entry 'E', key 'k': no entry named 'N'")
        let kept = Diagnostic(.missingReference, written: text, at: SourceLocation(file: "f", line: 1, column: 2))
        let plain = Diagnostic(
            .missingReference, "entry 'E', key 'k': no entry named 'N'", at: SourceLocation(file: "f", line: 1, column: 2))
        text.clear()
        text.append("something else entirely")  // the buffer is reused; the kept message is not
        #expect(kept.message == "entry 'E', key 'k': no entry named 'N'")
        #expect(kept == plain)
        #expect(kept.hashValue == plain.hashValue)
        #expect(Set([kept, plain]).count == 1)
        #expect(kept.description == plain.description)
        var changed = kept
        changed.message = "another message"
        #expect(changed.message == "another message" && changed != kept)
        // Bytes that are not well-formed UTF-8 are repaired as `String(decoding:)` does; a message
        // over the cap is shortened as a `String` one is.
        text.clear()
        [UInt8(0x61), 0xFF, 0x62].withUnsafeBytes { text.append($0) }
        #expect(Diagnostic(.schema, written: text).message == "a\u{FFFD}b")
        text.clear()
        [UInt8(0x61), 0, 0x62].withUnsafeBytes { text.append($0) }
        #expect(Diagnostic(.schema, written: text).message == "a\\0b")
        text.clear()
        text.append(String(repeating: "x", count: Diagnostic.maxMessageBytes + 10))
        #expect(Diagnostic(.schema, written: text).message == Diagnostic(.schema, text.string).message)
    }

    @Test func messagesKeptByTheThousandStayIntactAcrossChunks() {
        let text = TextBuffer()
        var kept: [Diagnostic] = []
        for i in 0..<3_000 {  // more than one 64 KiB chunk
            text.clear()
            text.append("problem number ")
            text.append(i)
            text.append(String(repeating: "-", count: i % 50))
            kept.append(Diagnostic(.schema, written: text))
        }
        for (i, d) in kept.enumerated() {
            #expect(d.message == "problem number \(i)" + String(repeating: "-", count: i % 50))
        }
    }

    @Test func candidatesWithSignaturesSuggestWhatAPlainScanSuggests() {
        var rng = SystemRandomNumberGenerator()
        let letters = Array("abcdeEXYZ019._")
        func word() -> String {
            String((0..<Int.random(in: 1...12, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
        }
        let names = (0..<300).map { _ in word() }
        let bytes = names.map { Array($0.utf8) }
        let pointers = bytes.map { b -> UnsafeBufferPointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(b.count, 1))
            p.initialize(from: b, count: b.count)
            return UnsafeBufferPointer(start: p, count: b.count)
        }
        defer { for p in pointers { p.baseAddress?.deallocate() } }
        let candidates = Suggestions.Candidates(pointers)
        for _ in 0..<400 {
            let w = Bool.random(using: &rng) ? word() : names.randomElement(using: &rng)! + "x"
            let excluding = names.randomElement(using: &rng)
            #expect(
                Suggestions.closest(to: w, in: candidates, excluding: excluding)
                    == Suggestions.closest(to: w, in: names, excluding: excluding))
        }
    }

    @Test func aRememberedSuggestionIsWhatASearchFinds() {
        // Runs of one word with a different excluded candidate each time (the entries that all
        // misspell one name): the memo's answer is the search's, ties and the excluded name
        // winning again included.
        var rng = SystemRandomNumberGenerator()
        let letters = Array("abAB01")
        func word() -> String {
            String((0..<Int.random(in: 2...6, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
        }
        let names = (0..<60).map { _ in word() }
        let pointers = names.map { n -> UnsafeBufferPointer<UInt8> in
            let b = Array(n.utf8)
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(b.count, 1))
            p.initialize(from: b, count: b.count)
            return UnsafeBufferPointer(start: p, count: b.count)
        }
        defer { for p in pointers { p.baseAddress?.deallocate() } }
        let candidates = Suggestions.Candidates(pointers)
        var memo = Suggestions.Memo()
        for _ in 0..<200 {
            let w = word()
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let excluding = Bool.random(using: &rng) ? names.randomElement(using: &rng)! : nil
                #expect(
                    Suggestions.closest(to: w, in: candidates, excluding: excluding, memo: &memo)
                        == Suggestions.closest(to: w, in: names, excluding: excluding))
            }
        }
        // The name excluded last is nearer than the last answer: it is the answer now.
        let two = ["Entry1", "Entry12"]
        let twoPointers = two.map { n -> UnsafeBufferPointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: n.utf8.count)
            p.initialize(from: Array(n.utf8), count: n.utf8.count)
            return UnsafeBufferPointer(start: p, count: n.utf8.count)
        }
        defer { for p in twoPointers { p.baseAddress?.deallocate() } }
        var memo2 = Suggestions.Memo()
        let pair = Suggestions.Candidates(twoPointers)
        #expect(Suggestions.closest(to: "Entri1", in: pair, excluding: "Entry1", memo: &memo2) == "Entry12")
        #expect(Suggestions.closest(to: "Entri1", in: pair, excluding: "Entry12", memo: &memo2) == "Entry1")
    }

    @Test func missingReferencesAreReportedAtTheirOwnPlacesWhereverTheyAre() {
        // The places the entry decoder keeps with each use, and those read from the record
        // (a key of more than 16 bytes, a dependency past the 16th, a use in a list, JSON on one line).
        let manyKeys = (0..<20).map { "k\($0): \"@x\"" }.joined(separator: ", ")
        let yaml = """
            A:
              ClassName: C
              Dependencies:
                a_dependency_key_longer_than_16: Missing1
                list: [Present, Missing2]
            B: {ClassName: C, Dependencies: {\(manyKeys), late: Missing3}}
            Present: C
            """
        let e = expectError { try Registry().load(text: yaml, file: "m.yaml") }
        let found = e?.diagnostics.map { "\($0.location.map(String.init(describing:)) ?? "-") \($0.message)" } ?? []
        #expect(found.count == 3)
        #expect(found[0].hasPrefix("m.yaml:4:38 entry 'A', key 'a_dependency_key_longer_than_16': no entry named 'Missing1'"))
        #expect(found[1].hasPrefix("m.yaml:5:21 entry 'A', key 'list': no entry named 'Missing2'"))
        #expect(found[2].contains("entry 'B', key 'late': no entry named 'Missing3'"))
        let padding = String(repeating: " ", count: 70_000)
        let json = "{\(padding)\"A\": {\"ClassName\": \"C\", \"Dependencies\": {\"first\": \"Nope\"}}}"
        let j = expectError { try Registry().load(text: json, format: .json, file: "one.json") }
        #expect(j?.diagnostics.first?.location == SourceLocation(file: "one.json", line: 1, column: 70_052))
        #expect(j?.diagnostics.first?.message.hasPrefix("entry 'A', key 'first': no entry named 'Nope'") == true)
    }

    @Test func oneKeyFormsReadFromTheirBytesMeanWhatTheRuleSays() throws {
        // Forms of one key are read from the key's bytes (no pairs array): the same values,
        // places and mistakes as the rule's reading of a whole map.
        let yaml = """
            A:
              ClassName: C
              Dependencies:
                p: {Provider: B}
                o: {Optional: Nope}
                t: {Tagged: x}
                n: {Tagged: 5}
                e: {Env: HOME}
                plain: {provider: "@aws", region: "@eu"}
                uni: {Prövider: B}
            B: C
            """
        let r = Registry()
        try r.load(text: yaml, file: "f.yaml", environment: ["HOME": "/h"])
        let deps = try #require(r.entry(named: "A")?.dependencies)
        func at(_ line: Int, _ column: Int) -> ControllerRegConfig.SourceLocation {
            SourceLocation(file: "f.yaml", line: line, column: column)
        }
        #expect(deps[0].value == .provider("B", at: at(4, 19)))
        #expect(deps[1].value == .optional("Nope", at: at(5, 19)))
        #expect(deps[2].value == .tagged(.string("x"), at: at(6, 17)))
        #expect(deps[3].value == .tagged(.int(5), at: at(7, 17)))
        if case .env = deps[4].value {} else { Issue.record("not an Env form: \(deps[4].value)") }
        if case .map = deps[5].value {} else { Issue.record("not a plain map: \(deps[5].value)") }
        if case .map = deps[6].value {} else { Issue.record("not a plain map: \(deps[6].value)") }
        // A form's key in another case is a mistake; a flawed target is reported where it is,
        // in a list as at the top.
        let bad = """
            D: {ClassName: C, Dependencies: {bad: {PROVIDER: B}}}
            E: {ClassName: C, Dependencies: {list: [B, {Provider: "@lit"}], opt: {Optional: ""}}}
            B: C
            """
        let e = expectError { try Registry().load(text: bad, file: "g.yaml") }
        let found = e?.diagnostics.map { "\($0.location.map(String.init(describing:)) ?? "-") \($0.message)" } ?? []
        #expect(
            found == [
                "g.yaml:1:40 entry 'D', key 'bad': 'PROVIDER' is not a dependency form: forms are case-sensitive; write {Provider: EntryName}",
                "g.yaml:2:55 entry 'E', key 'list': Provider must name an entry, not a literal ('@lit')",
                "g.yaml:2:81 entry 'E', key 'opt': Optional must name an entry (a non-empty string), found an empty string",
            ])
        #expect(e?.diagnostics.first?.suggestion == "Provider")
    }

    @Test func aFlawedUseIsReportedOnceInTheWordsOfEveryDoor() {
        // Checked where it lies in the record (the quick check) and from code (the decoded one).
        let e = expectError {
            try Registry().load(
                text:
                    "E1: {ClassName: C, Dependencies: {p: {Provider: \"@X\"}, o: {Optional: \"\"}}}\nE2: {ClassName: C, Dependencies: {r: E1}}"
            )
        }
        #expect(
            e?.diagnostics.map(\.message) == [
                "entry 'E1', key 'p': Provider must name an entry, not a literal ('@X')",
                "entry 'E1', key 'o': Optional must name an entry (a non-empty string), found an empty string",
            ])
        let registry = Registry()
        let fromCode = expectError {
            try registry.add([
                EntryDefinition(
                    name: "E1", className: "C",
                    dependencies: [Dependency(key: "p", value: .provider("@X", at: nil))])
            ])
        }
        #expect(
            fromCode?.diagnostics.map(\.message) == ["entry 'E1', key 'p': Provider must name an entry, not a literal ('@X')"])
    }

    @Test func aManyProblemDescriptionListsTheFirstHundredEachOnItsLine() {
        var lines = (0..<300).map { "E\($0): {ClassName: C, Dependencies: {a: Nowhere\($0)}}" }
        lines[7] = "E7: {ClassName: C, Bogus: 1}"
        let e = expectError { try Registry().load(text: lines.joined(separator: "\n")) }
        let diagnostics = e?.diagnostics ?? []
        #expect(diagnostics.count == 300)
        let expected =
            "300 problems:\n" + diagnostics.prefix(100).map { "  " + $0.description }.joined(separator: "\n")
            + "\n  200 more problems not listed (the first 100 are; the error's list of problems holds every one)"
        #expect(e?.description == expected)
        #expect(diagnostics[0].message == "entry 'E0', key 'a': no entry named 'Nowhere0'; if this is text, write \"@Nowhere0\"")
        #expect(diagnostics[0].description.hasPrefix("<string>:1:"))
        #expect(diagnostics[7].code == .schema)
        // In the order of their places, whichever step found them.
        let lines2 = diagnostics.compactMap { $0.location?.line }
        #expect(lines2 == lines2.sorted())
    }

    @Test func aLoadsProblemsAreRecordsThatChangeOneByOne() {
        // The problems of one load are records of one store; changing one changes no other, and
        // each reads, compares and hashes as a diagnostic made from its parts.
        let text = "A: {ClassName: C, Dependencies: {r: Nowhere}}\nB: {ClassName: C, Dependencies: {r: Elsewhere}}\n"
        let e = expectError { try Registry().load(text: text, file: "f.yaml") }
        var d = e?.diagnostics ?? []
        #expect(d.count == 2)
        guard d.count == 2 else { return }
        let made = Diagnostic(
            .missingReference, "entry 'A', key 'r': no entry named 'Nowhere'; if this is text, write \"@Nowhere\"",
            at: SourceLocation(file: "f.yaml", line: 1, column: 37))
        #expect(d[0] == made && d[0].hashValue == made.hashValue && d[0].description == made.description)
        let second = d[1]
        d[0].message = "changed"
        d[0].suggestion = "Somewhere"
        d[0].location = SourceLocation(file: "g.yaml", line: 9, column: 3)
        d[0].code = .notFound
        #expect(d[0].message == "changed" && d[0].suggestion == "Somewhere" && d[0].code == .notFound)
        #expect(d[0].description == "g.yaml:9:3: changed")
        #expect(d[1] == second && d[1].location == SourceLocation(file: "f.yaml", line: 2, column: 37))
        #expect(d[1].message == "entry 'B', key 'r': no entry named 'Elsewhere'; if this is text, write \"@Elsewhere\"")
        let pathed = d[1].withPath(["B", "A", "B"])
        #expect(pathed.path == ["B", "A", "B"] && d[1].path.isEmpty && pathed.message == d[1].message)
        #expect(pathed != d[1])
        // A place whose line and column do not fit 32 bits reads back as given.
        let far = Diagnostic(.schema, "far", at: SourceLocation(file: "big", line: 1 << 40, column: (1 << 33) + 5))
        #expect(far.location == SourceLocation(file: "big", line: 1 << 40, column: (1 << 33) + 5))
        #expect(Diagnostic(.schema, "nowhere").location == nil)
    }

    @Test func problemsOutOfOrderAreSortedByPlace() {
        let a = SourceLocation(file: "a", line: 2, column: 1), b = SourceLocation(file: "a", line: 1, column: 5)
        let c = SourceLocation(file: "0", line: 9, column: 9)
        let e = ConfigError([
            Diagnostic(.schema, "no place"), Diagnostic(.schema, "second", at: a), Diagnostic(.cycle, "first", at: b),
            Diagnostic(.schema, "first too", at: b), Diagnostic(.schema, "zeroth", at: c),
        ])
        #expect(e.diagnostics.map(\.message) == ["zeroth", "first", "first too", "second", "no place"])
        let kept = ConfigError([Diagnostic(.schema, "x", at: c), Diagnostic(.schema, "y", at: b), Diagnostic(.schema, "z")])
        #expect(kept.diagnostics.map(\.message) == ["x", "y", "z"])
    }

    // MARK: Every problem at once

    @Test func cyclesAreReportedBesideOtherProblems() {
        let text = """
            A: {ClassName: C, Dependencies: {x: B}}
            B: {ClassName: C, Dependencies: {y: A}}
            D: {ClassName: C, Dependencies: {z: Missing}}
            S: {ClassName: C, Dependencies: {me: S}}
            """
        let e = expectError { try Registry().load(text: text) }
        let codes = e?.diagnostics.map(\.code) ?? []
        #expect(codes.filter { $0 == .cycle }.count == 2, "\(String(describing: e))")
        #expect(codes.contains(.missingReference))
        #expect(e?.description.contains("A -> B -> A") == true)
        #expect(e?.description.contains("S -> S") == true)
    }

    @Test func theCodeOfAManyProblemLoadDoesNotDependOnLineOrder() {
        let lines = [
            "A: {ClassName: C, Dependencies: {x: A}}",  // cycle
            "B: {ClassName: C, Dependencies: {y: Nowhere}}",  // missing reference
            "D: {ClassName: C, Unknown: 1}",  // schema
        ]
        var codes = Set<ErrorCode>()
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [1, 0, 2]] {
            let text = order.map { lines[$0] }.joined(separator: "\n")
            if let e = expectError({ try Registry().load(text: text) }) { codes.insert(e.code) }
        }
        #expect(codes == [.schema])
    }

    @Test func aDuplicateKeyIsOneProblemAmongOthers() {
        let text = """
            A: {ClassName: C, Dependencies: {x: Missing}}
            B: {ClassName: C, Bogus: 1}
            A: D
            E: {ClassName: C, Dependencies: {k: 1, k: 2}}
            S: {ClassName: C, Dependencies: {me: S}}
            """
        let e = expectError { try Registry().load(text: text) }
        let codes = (e?.diagnostics ?? []).map(\.code)
        #expect(codes.filter { $0 == .duplicate }.count == 2, "\(String(describing: e))")
        #expect(codes.contains(.missingReference))
        #expect(codes.contains(.schema))
        #expect(codes.contains(.cycle))
        #expect(e?.code == .schema)
    }

    @Test func aBrokenFileDoesNotHideTheOthersProblems() throws {
        let dir = "/tmp/controllerreg-every-problem-\(UInt32.random(in: 0 ... .max))"
        let good =
            "A: {ClassName: C, Dependencies: {x: A}}\nB: {ClassName: C, Bogus: 1}\nR: {ClassName: C, Dependencies: {y: DefinedInBad}}\n"
        try writeFile(dir + "/good.yaml", good)
        try writeFile(dir + "/bad.yaml", "X: [unclosed\n")
        for paths in [["good.yaml", "bad.yaml", "missing.yaml"], ["missing.yaml", "bad.yaml", "good.yaml"]] {
            let e = expectError { try Registry().load(paths: paths.map { dir + "/" + $0 }) }
            let codes = (e?.diagnostics ?? []).map(\.code)
            #expect(
                codes.contains(.syntax) && codes.contains(.io) && codes.contains(.schema) && codes.contains(.cycle),
                "\(String(describing: e))")
            // The unreadable files may define 'DefinedInBad': not reported as missing.
            #expect(!codes.contains(.missingReference))
            #expect(e?.code == .io)
        }
    }

    @Test func rootAndChildRegistriesReportDuplicatesAlike() throws {
        let root = Registry()
        let child = Registry(parent: root)
        let twice = [EntryDefinition(name: "A", className: "C"), EntryDefinition(name: "A", className: "D")]
        let fromRoot = expectError { try root.add(twice) }
        let fromChild = expectError { try child.add(twice) }
        #expect(fromRoot?.diagnostics.map(\.message) == fromChild?.diagnostics.map(\.message))
        try root.add([EntryDefinition(name: "P", className: "C")])
        try child.add([EntryDefinition(name: "P", className: "D")])  // a child may override its parent's entry
        try child.add([EntryDefinition(name: "Q", className: "C")])
        let again = expectError { try child.add([EntryDefinition(name: "Q", className: "C")]) }
        let againRoot = expectError { try root.add([EntryDefinition(name: "P", className: "C")]) }
        #expect(
            again?.diagnostics.first?.message
                == "entry 'Q' is already defined (added from code); rename it, or load it as an override (CR_LOAD_OVERRIDE) to replace that one"
        )
        #expect(
            againRoot?.diagnostics.first?.message
                == "entry 'P' is already defined (added from code); rename it, or load it as an override (CR_LOAD_OVERRIDE) to replace that one"
        )
        // Removing the override brings the parent's entry back.
        try child.remove(entriesNamed: ["P"])
        #expect(child.entry(named: "P")?.className == "C")
        #expect(expectError { try child.remove(entriesNamed: ["P"]) }?.code == .invalidArgument)
    }

    // MARK: Listing: the first hundred in the message, every problem in the list

    /// Tests/Fixtures/many-problems.yaml (the case every door runs: C `test_errors.c`, C++, Python,
    /// the tool's `check`): 300 entries, a reference to no entry, an unknown key and a provider of a
    /// literal in turn.
    @Test func theMessageListsTheFirstHundredAndEveryProblemIsInTheList() throws {
        let e = expectError { try Registry().load(path: fixturePath("many-problems.yaml")) }
        let error = try #require(e)
        #expect(error.code == .schema)
        #expect(error.diagnostics.count == 300)
        let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 102)
        #expect(lines.first == "300 problems:")
        #expect(lines[1] == "  " + error.diagnostics[0].description)
        #expect(lines[100] == "  " + error.diagnostics[99].description)
        #expect(lines.last == "  200 more problems not listed (the first 100 are; the error's list of problems holds every one)")
        // Past the hundredth, each message is written as it is read, in the words of the first ones.
        let last = error.diagnostics[299]
        #expect(last.message == "entry 'E299', key 'p': Provider must name an entry, not a literal ('@E299')")
        #expect(last.location?.line == 300)
        #expect(
            error.diagnostics[297].message
                == "entry 'E297', key 'ref': no entry named 'Nowhere297'; if this is text, write \"@Nowhere297\"")
        #expect(error.diagnostics[297].suggestion == nil)
        #expect(error.diagnostics[298].message.hasPrefix("unknown key 'Descripton' in entry 'E298'"))
        #expect(
            error.diagnostics[0].message
                == "entry 'E0', key 'ref': no entry named 'Nowhere0'; if this is text, write \"@Nowhere0\"")
        // Read twice, the same words; equal to a diagnostic made with them.
        #expect(last.message == last.message)
        #expect(last == Diagnostic(.schema, last.message, at: last.location))
    }

    /// A count line takes the place of two or more problems, never of one: 101 problems are all
    /// listed, 102 list 100 and count 2.
    @Test func aHundredAndOneProblemsAreAllListed() throws {
        func text(_ n: Int) -> String {
            (0..<n).map { "E\($0): {ClassName: C, Dependencies: {ref: Nowhere\($0)}}" }.joined(separator: "\n")
        }
        let all = try #require(expectError { try Registry().load(text: text(101)) })
        let allLines = all.description.split(separator: "\n").map(String.init)
        #expect(allLines.count == 102)
        #expect(allLines.last?.contains("entry 'E100', key 'ref': no entry named 'Nowhere100'") == true)
        let more = try #require(expectError { try Registry().load(text: text(102)) })
        let moreLines = more.description.split(separator: "\n").map(String.init)
        #expect(moreLines.count == 102)
        #expect(
            moreLines.last == "  2 more problems not listed (the first 100 are; the error's list of problems holds every one)")
        #expect(more.diagnostics.count == 102)
        #expect(more.diagnostics[101].message.hasPrefix("entry 'E101', key 'ref': no entry named 'Nowhere101'"))
    }

    /// A message written when it is read gets the checks of one written at once: a NUL byte in a
    /// name it quotes is written `\0`, a long one is cut in the middle.
    @Test func aMessageWrittenWhenReadIsCheckedAsOneWrittenAtOnce() throws {
        let long = String(repeating: "x", count: 9_000)
        let e = try #require(
            expectError {
                try Registry().load(
                    text: "{\"A\": {\"ClassName\": \"C\", \"Dependencies\": {\"r\": \"G\\u0000one\"}},"
                        + " \"L\": {\"ClassName\": \"C\", \"Dependencies\": {\"r\": \"\(long)\"}}}", format: .json)
            })
        let messages = e.diagnostics.map(\.message)
        #expect(messages.contains("entry 'A', key 'r': reference 'G\\0one' contains a NUL byte"))
        let cut = try #require(messages.first { $0.hasPrefix("entry 'L', key 'r': no entry named 'xxx") })
        #expect(cut.utf8.count <= Diagnostic.maxMessageBytes)
        #expect(cut.contains("bytes left out"))
        #expect(cut.hasSuffix("xxx\""))
    }
}
