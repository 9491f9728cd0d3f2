import Testing

@testable import ControllerRegConfig

/// What the document builder promises every loader: documents denser than its first buffers come
/// out whole, and duplicate keys are found exactly (the key fingerprints only skip maps that
/// cannot have one).
@Suite struct DocumentBuilderTests {
    private func json(_ text: String) throws(ConfigError) -> ConfigDocument {
        try ConfigLoader.parse(text, format: .json, file: "t.json")
    }

    @Test func denseJSONOutgrowsTheFirstNodeBuffer() throws {
        // Two input bytes per value: four times the nodes the builder sizes for at first.
        let count = 20_000
        let doc = try json("[" + (0..<count).map { "\($0 % 10)" }.joined(separator: ",") + "]")
        #expect(doc.nodes.count == count + 1)
        #expect(doc.nodes[0].kind == .list && doc.nodes[0].count == count && doc.nodes[0].extent == UInt32(count + 1))
        #expect((1...count).allSatisfy { doc.nodes[$0].kind == .int && doc.nodes[$0].int == Int64(($0 - 1) % 10) })
        // Empty containers and strings, nested: extents still point past each subtree.
        let nested = try json("[" + Array(repeating: #"[{},"",[]]"#, count: 5_000).joined(separator: ",") + "]")
        #expect(nested.nodes.count == 1 + 5_000 * 4)
        for k in 0..<5_000 {
            let i = 1 + 4 * k
            #expect(nested.nodes[i].kind == .list && nested.nodes[i].extent == UInt32(i + 4))
            #expect(nested.nodes[i + 1].kind == .map && nested.nodes[i + 1].extent == UInt32(i + 2))
            #expect(nested.nodes[i + 2].kind == .string && nested.string(at: i + 2) == "")
        }
    }

    @Test func sharedBinaryStringsOutgrowTheFirstStringBuffer() throws {
        // One 100-byte string referenced 3,000 times: 300 KB of strings from a 6 KB file.
        let text = String(repeating: "abcdefghij", count: 10)
        let string = [0x5F, 0x10, 100] + Array(text.utf8)
        let refs = [UInt8](repeating: 1, count: 3_000)
        let array: [UInt8] = [0xAF, 0x11, 0x0B, 0xB8] + refs
        let doc = try parseBinary(bplist([array, string], offsetSize: 2))
        #expect(doc.nodes.count == 3_001)
        #expect(doc.strings.count == 3_000 * 101)
        #expect((1...3_000).allSatisfy { doc.string(at: $0) == text })
    }

    @Test func duplicateKeysMatchAPairwiseCheck() throws {
        // Random maps of 1 to 80 keys drawn from few names (so some repeat), in JSON and YAML.
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        let names = ["a", "b", "ab", "ba", "title", "count", "ratio", "x1", "x2", "x10", "", "é", "k", "kk", "key", "yek"]
        for round in 0..<300 {
            let size = 1 + next(round % 3 == 0 ? 80 : 9)
            let pool = 1 + next(names.count)
            var keys: [String] = []
            for _ in 0..<size { keys.append(names[next(pool)] + (round % 2 == 0 ? "" : "\(next(size * 2))")) }
            var expected: [Int] = []
            var seen = Set<String>()
            for (i, k) in keys.enumerated() where !seen.insert(k).inserted { expected.append(i) }
            let text = "{" + keys.enumerated().map { "\"\($1)\": \($0)" }.joined(separator: ", ") + "}"
            let doc = try ConfigLoader.parse(text, format: .json, file: "t.json", keepingProblems: true)
            // Key i is node 1 + 2i; its value is the number i.
            #expect(doc.duplicateKeys == expected.map { 1 + 2 * $0 }, "\(keys)")
            let yaml = keys.enumerated().map { "\"\($1)\": \($0)" }.joined(separator: "\n")
            let yamlDoc = try ConfigLoader.parse(yaml, format: .yaml, file: "t.yaml", keepingProblems: true)
            #expect(yamlDoc.duplicateKeys == expected.map { 1 + 2 * $0 }, "\(keys)")
        }
    }

    @Test func aliasKeysAreCheckedForDuplicates() {
        // A key copied by an alias is a key like any other.
        let yaml = "k: &name a\nm:\n  a: 1\n  *name : 2\n"
        #expect(throws: ConfigError.self) { try ConfigLoader.parse(yaml, format: .yaml, file: "t.yaml") }
        do {
            _ = try ConfigLoader.parse(yaml, format: .yaml, file: "t.yaml")
        } catch {
            #expect(error.code == .duplicate)
            #expect(error.diagnostics.first?.message.contains("duplicate key 'a'") == true)
        }
    }
}
