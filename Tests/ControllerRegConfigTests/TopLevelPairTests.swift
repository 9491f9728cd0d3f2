import Testing

@testable import ControllerRegConfig

/// Takes the pairs a loader hands on while it reads, and writes each down as text (its key, its
/// value's subtree with kinds, places and bytes, and whether the key is a duplicate).
private final class Recorder: TopLevelPairSink {
    var pairs: [String] = []
    /// The most nodes one part held (the document in memory at once).
    var largestPart = 0

    func take(_ part: DocumentView, pairs range: Range<Int>) {
        largestPart = max(largestPart, part.nodes.count)
        var k = range.lowerBound
        while k < range.upperBound {
            pairs.append(Recorder.pair(part, key: k))
            k = part.next(after: k + 1)
        }
        #expect(k == range.upperBound)
    }

    static func pair(_ view: DocumentView, key: Int) -> String {
        "\(view.string(at: key))@\(view.location(of: key))\(view.isDuplicateKey(key) ? " (duplicate)" : "") = "
            + subtree(view, key + 1) + (view.hasDuplicateKey(inside: key + 1) ? " (holds a duplicate)" : "")
    }

    static func subtree(_ view: DocumentView, _ i: Int) -> String {
        let n = view.nodes[i]
        let place = "@\(n.line):\(n.column)"
        switch n.kind {
        case .null: return "null" + place
        case .bool: return "\(n.bool)" + place
        case .int: return "\(n.int)" + place
        case .double: return "\(n.double)" + place
        case .string: return "'\(view.string(at: i))'" + place
        case .list: return "[" + view.elements(of: i).map { subtree(view, $0) }.joined(separator: ", ") + "]" + place
        case .map:
            return "{" + view.pairs(of: i).map { "\(subtree(view, $0.key)): \(subtree(view, $0.value))" }.joined(separator: ", ")
                + "}" + place
        }
    }

    /// The root map's pairs of a whole document, written down the same way.
    static func pairs(of doc: ConfigDocument) -> [String] {
        doc.withView { view in view.pairs(of: 0).map { pair(view, key: $0.key) } }
    }
}

/// A loader given a `TopLevelPairSink` hands it the pairs of the root map as they are read (a few
/// dozen at a time) and reuses their nodes: the same pairs, in the same order, with the same
/// problems and limits as the whole document, while the document in memory stays a few dozen
/// entries.
@Suite struct TopLevelPairTests {
    private func parse(
        _ text: String, _ format: ConfigFormat, limits: ConfigLimits = ConfigLimits(), into sink: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        try ConfigLoader.parse(text, format: format, file: "t", limits: limits, keepingProblems: true, pairs: sink)
    }

    private func parse(
        _ bytes: [UInt8], limits: ConfigLimits = ConfigLimits(), into sink: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        try ConfigLoader.parse(bytes, format: .plist, file: "t", limits: limits, keepingProblems: true, pairs: sink)
    }

    /// `count` entries in YAML: maps with nested values, and every tenth a class name alone.
    static func yaml(_ count: Int, prefix: String = "E") -> String {
        (0..<count).map { i in
            i % 10 == 9
                ? "\(prefix)\(i): C\(i)\n"
                : "\(prefix)\(i):\n  ClassName: C\n  Dependencies:\n    l: [1, 2.5, {k: E0}, [true, null]]\n    s: '@t\(i)'\n"
        }.joined()
    }

    /// The same entries in JSON.
    static func json(_ count: Int) -> String {
        "{\n"
            + (0..<count).map { i in
                i % 10 == 9
                    ? "\"E\(i)\": \"C\(i)\""
                    : "\"E\(i)\": {\"ClassName\": \"C\", \"Dependencies\": {\"l\": [1, 2.5, {\"k\": \"E0\"}, [true, null]], \"s\": \"@t\(i)\"}}"
            }.joined(separator: ",\n") + "\n}"
    }

    /// The same entries (without the lists) in an XML plist.
    static func xml(_ count: Int) -> String {
        "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n"
            + (0..<count).map { i in
                i % 10 == 9
                    ? "<key>E\(i)</key><string>C\(i)</string>\n"
                    : "<key>E\(i)</key>\n<dict><key>ClassName</key><string>C</string><key>Dependencies</key><dict><key>n</key><integer>\(i)</integer></dict></dict>\n"
            }.joined() + "</dict>\n</plist>\n"
    }

    /// A binary plist of `count` entries `{ClassName: C}`; entry `count - 1` repeats the key of entry 5.
    static func binary(_ count: Int) -> [UInt8] {
        func ref(_ i: Int) -> [UInt8] { [UInt8(i >> 8), UInt8(i & 0xFF)] }
        var top: [UInt8] = [0xDF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
        for i in 0..<count {
            let key: Int = i == count - 1 ? 3 + 2 * 5 : 3 + 2 * i
            top += ref(key)
        }
        for i in 0..<count { top += ref(4 + 2 * i) }
        var objects: [[UInt8]] = [top, ascii("ClassName"), ascii("C")]
        for i in 0..<count {
            objects.append(ascii("E\(i)"))
            objects.append([0xD1] + ref(1) + ref(2))
        }
        return bplist(objects, offsetSize: 2, refSize: 2)
    }

    @Test(arguments: [ConfigFormat.json, .yaml, .plist])
    func everyPairIsHandedOnOnceInOrder(format: ConfigFormat) throws {
        let text = format == .json ? Self.json(1_000) : format == .yaml ? Self.yaml(1_000) : Self.xml(1_000)
        let whole = try parse(text, format)
        let recorder = Recorder()
        let streamed = try parse(text, format, into: recorder)
        #expect(recorder.pairs.count == 1_000)
        #expect(recorder.pairs == Recorder.pairs(of: whole))
        // The document returned is the root map alone, with its pair count.
        #expect(streamed.nodes.count == 1 && streamed.nodes[0].kind == .map && streamed.nodes[0].count == 1_000)
        #expect(streamed.nodes[0].extent == 1)
        // A few dozen entries in memory at a time, not 1,000.
        #expect(recorder.largestPart < DocumentBuilder.handOnNodes + 40)
        #expect(whole.nodes.count > 3 * DocumentBuilder.handOnNodes)
    }

    @Test func binaryPlistPairsAndTheirRepeatedKeyMatchTheWholeDocument() throws {
        let bytes = Self.binary(1_000)
        let whole = try parse(bytes)
        let recorder = Recorder()
        let streamed = try parse(bytes, into: recorder)
        #expect(recorder.pairs == Recorder.pairs(of: whole))
        #expect(recorder.largestPart < DocumentBuilder.handOnNodes + 10)
        #expect(whole.nodes.count > DocumentBuilder.handOnNodes + 10)
        #expect(streamed.problems == whole.problems)
        #expect(streamed.problems.count == 1)
        #expect(streamed.problems.first?.message.hasPrefix("duplicate key 'E5' (first defined at line 0, column ") == true)
        #expect(recorder.pairs[999].hasPrefix("E5@") && recorder.pairs[999].contains(" (duplicate) = "))
    }

    @Test(arguments: [ConfigFormat.json, .yaml])
    func repeatedKeysAreFoundAcrossPartsAndReportedAsInTheWholeDocument(format: ConfigFormat) throws {
        // Entries repeated far apart (and a repeat of a repeat), beside duplicates inside entries.
        let yaml =
            Self.yaml(200) + "E5: {ClassName: X, ClassName: Y}\nE9: again\nE5: third\n"
            + "F: {ClassName: C, Dependencies: {a: 1, a: 2}}\n"
        let json =
            String(Self.json(200).dropLast(2))
            + ",\n\"E5\": {\"ClassName\": \"X\", \"ClassName\": \"Y\"}, \"E9\": \"again\", \"E5\": \"third\", \"F\": {\"ClassName\": \"C\", \"Dependencies\": {\"a\": 1, \"a\": 2}}\n}"
        let text = format == .json ? json : yaml
        let whole = try parse(text, format)
        let recorder = Recorder()
        let streamed = try parse(text, format, into: recorder)
        #expect(recorder.pairs == Recorder.pairs(of: whole))
        #expect(streamed.problems == whole.problems)
        #expect(streamed.problems.count == 5)
        #expect(streamed.problems.last?.message.hasPrefix("duplicate key 'E5' (first defined at line") == true)
        #expect(recorder.pairs.filter { $0.contains(" (duplicate)") }.count == 3)
    }

    /// The repeated-name check sizes its room from the input (about one entry per 128 bytes):
    /// entries far smaller than that (more names than the room reserved, so it grows; with 40,000
    /// handed on in batches the table is large enough that each batch's cells are read ahead) and
    /// far larger (most of it never used) are checked alike, repeats at either end included.
    @Test(arguments: [1, 4, 3_000])
    func repeatedKeysAreFoundWhateverTheSizeOfTheEntries(valueBytes: Int) throws {
        let count = valueBytes < 2 ? 40_000 : valueBytes < 10 ? 5_000 : 40
        // Lists for the many small entries: a closing container hands the pairs on in batches.
        let value = valueBytes < 2 ? "[1]" : "\"" + String(repeating: "v", count: valueBytes) + "\""
        var json = "{"
        for i in 0..<count { json += "\"k\(i)\":\(value)," }
        json += "\"k0\":1,\"k\(count / 2)\":2,\"k\(count - 1)\":3,\"\":4,\"\":5}"
        let whole = try parse(json, .json)
        let recorder = Recorder()
        let streamed = try parse(json, .json, into: recorder)
        #expect(recorder.pairs == Recorder.pairs(of: whole))
        #expect(streamed.problems == whole.problems)
        // The first place of a key: the column of its first quote (the text is one line).
        func column(_ key: String) -> Int {
            json.utf8.count - json.split(separator: "\"\(key)\":", maxSplits: 1)[1].utf8.count - key.utf8.count - 2
        }
        #expect(
            streamed.problems.map(\.message) == [
                "duplicate key 'k0' (first defined at line 1, column 2); remove one of them",
                "duplicate key 'k\(count / 2)' (first defined at line 1, column \(column("k\(count / 2)"))); remove one of them",
                "duplicate key 'k\(count - 1)' (first defined at line 1, column \(column("k\(count - 1)"))); remove one of them",
                "duplicate key '' (first defined at line 1, column \(column(""))); remove one of them",
            ])
    }

    @Test(arguments: [ConfigFormat.json, .yaml])
    func theNodeLimitCountsTheWholeDocument(format: ConfigFormat) throws {
        let text = format == .json ? Self.json(300) : Self.yaml(300)
        let total = try parse(text, format).nodes.count
        var limits = ConfigLimits()
        limits.maxNodes = total
        let recorder = Recorder()
        _ = try parse(text, format, limits: limits, into: recorder)
        #expect(recorder.pairs.count == 300)
        // One node fewer: the same error at the same node, although no part comes near the limit.
        limits.maxNodes = total - 1
        var wholeError: ConfigError?
        var streamedError: ConfigError?
        do { _ = try parse(text, format, limits: limits) } catch { wholeError = error }
        do { _ = try parse(text, format, limits: limits, into: Recorder()) } catch { streamedError = error }
        #expect(wholeError != nil)
        #expect(wholeError?.code == .limit)
        #expect(streamedError == wholeError)
    }

    @Test func aYAMLAnchorKeepsTheNodesForLaterAliases() throws {
        let text =
            Self.yaml(300) + "A: &shared {ClassName: S, Dependencies: {deep: &list [1, {k: E1}]}}\n"
            + Self.yaml(300, prefix: "G") + "B: *shared\nC: {ClassName: Q, Dependencies: {l: *list}}\n"
        let whole = try parse(text, .yaml)
        let recorder = Recorder()
        _ = try parse(text, .yaml, into: recorder)
        #expect(recorder.pairs == Recorder.pairs(of: whole))
        #expect(recorder.pairs[601].hasPrefix("B@") && recorder.pairs[601].contains("'S'"))
        // Nodes are reused until the anchor, kept from there on.
        #expect(recorder.largestPart > 300 * 10)
        let before = Recorder()
        _ = try parse(Self.yaml(600), .yaml, into: before)
        #expect(before.largestPart < DocumentBuilder.handOnNodes + 40)
    }

    @Test func aRootThatIsNotAMapIsReturnedWhole() throws {
        for (text, format) in [("[1, {a: b}, [c]]", ConfigFormat.yaml), ("\"text\"", .json), ("# nothing\n", .yaml)] {
            let recorder = Recorder()
            let streamed = try parse(text, format, into: recorder)
            let whole = try parse(text, format)
            #expect(recorder.pairs.isEmpty)
            #expect(streamed.nodes == whole.nodes && streamed.strings == whole.strings)
        }
        let recorder = Recorder()
        let empty = try parse("{}", .json, into: recorder)
        #expect(recorder.pairs.isEmpty && empty.nodes.count == 1 && empty.nodes[0].count == 0)
    }

    @Test func aSyntaxErrorAfterPairsWereHandedOnIsStillThrown() {
        let recorder = Recorder()
        var error: ConfigError?
        do { _ = try parse(Self.yaml(1_000) + "broken: [\n", .yaml, into: recorder) } catch let e { error = e }
        #expect(error?.code == .syntax)
        // Pairs were handed on before the error (the last ones wait for the root map to close).
        #expect(recorder.pairs.count > 500 && recorder.pairs.count < 1_000)
    }
}
