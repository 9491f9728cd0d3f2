import ControllerReg
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What counts as a change, through every door that compares entries: a reload of one file (its
/// entries compared with the registry's and committed once), a reload of a history of two loads
/// (each step committed, then the whole), and `ReloadChanges(from:to:)` on the definitions (what
/// `controllerreg diff` prints). One table of edits, the same answer from each.
@Suite("Reload: what counts as a change", .serialized)
struct ReloadChangeKindsTests {
    struct Case: CustomStringConvertible {
        let what: String
        let old: String
        let new: String
        let expected: ReloadChanges
        var description: String { what }
    }

    static let cases: [Case] = [
        Case(
            what: "only places move", old: "A: {ClassName: W, Dependencies: {b: B, n: 1}}\nB: W\n",
            new: "\n\nB: W\n# moved\nA:\n  ClassName: W\n  Dependencies: {b: B, n: 1}\n", expected: ReloadChanges()),
        Case(
            what: "an integer", old: "A: {ClassName: W, Dependencies: {n: 1}}\n",
            new: "A: {ClassName: W, Dependencies: {n: 2}}\n",
            expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "the same double written otherwise", old: "A: {ClassName: W, Dependencies: {x: 1.5}}\n",
            new: "A: {ClassName: W, Dependencies: {x: 1.50}}\n", expected: ReloadChanges()),
        Case(
            what: "a double", old: "A: {ClassName: W, Dependencies: {x: 1.5}}\n",
            new: "A: {ClassName: W, Dependencies: {x: 2.5}}\n",
            expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a literal string", old: "A: {ClassName: W, Dependencies: {s: '@x'}}\n",
            new: "A: {ClassName: W, Dependencies: {s: '@y'}}\n", expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a literal equal to a name, and the name", old: "A: {ClassName: W, Dependencies: {s: '@B'}}\nB: W\n",
            new: "A: {ClassName: W, Dependencies: {s: B}}\nB: W\n", expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a reference made a provider", old: "A: {ClassName: W, Dependencies: {b: B}}\nB: W\n",
            new: "A: {ClassName: W, Dependencies: {b: {Provider: B}}}\nB: W\n", expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a key renamed", old: "A: {ClassName: W, Dependencies: {n: 1}}\n",
            new: "A: {ClassName: W, Dependencies: {m: 1}}\n",
            expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a nested list element", old: "A: {ClassName: W, Dependencies: {l: [1, {k: [2, 3]}]}}\n",
            new: "A: {ClassName: W, Dependencies: {l: [1, {k: [2, 4]}]}}\n", expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "the class", old: "A: W\n", new: "A: V\n", expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a description added", old: "A: W\n", new: "A: {ClassName: W, Description: the A}\n",
            expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a tag from integer to text", old: "A: {ClassName: W, Tag: 1}\n", new: "A: {ClassName: W, Tag: '1'}\n",
            expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "a tag list reordered", old: "A: {ClassName: W, Tag: [x, y]}\n", new: "A: {ClassName: W, Tag: [y, x]}\n",
            expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "the lifestyle", old: "A: {ClassName: W, Lifestyle: singleton}\n", new: "A: {ClassName: W, Lifestyle: graph}\n",
            expected: ReloadChanges(changed: ["A"])),
        Case(
            what: "added and removed", old: "A: W\nGone: W\n", new: "A: W\nNew: W\n",
            expected: ReloadChanges(added: ["New"], removed: ["Gone"])),
        Case(
            what: "a singleton whose object reaches a changed entry",
            old:
                "S: {ClassName: W, Lifestyle: singleton, Dependencies: {m: M}}\nM: {ClassName: W, Dependencies: {l: L}}\nL: {ClassName: W, Dependencies: {n: 1}}\n",
            new:
                "S: {ClassName: W, Lifestyle: singleton, Dependencies: {m: M}}\nM: {ClassName: W, Dependencies: {l: L}}\nL: {ClassName: W, Dependencies: {n: 2}}\n",
            expected: ReloadChanges(changed: ["L", "S"])),
        Case(
            what: "a singleton that only holds a provider of a changed entry",
            old:
                "S: {ClassName: W, Lifestyle: singleton, Dependencies: {p: {Provider: L}}}\nL: {ClassName: W, Dependencies: {n: 1}}\n",
            new:
                "S: {ClassName: W, Lifestyle: singleton, Dependencies: {p: {Provider: L}}}\nL: {ClassName: W, Dependencies: {n: 2}}\n",
            expected: ReloadChanges(changed: ["L"])),
        Case(
            what: "a singleton whose optional reference's target appears",
            old: "S: {ClassName: W, Lifestyle: singleton, Dependencies: {o: {Optional: X}}}\n",
            new: "S: {ClassName: W, Lifestyle: singleton, Dependencies: {o: {Optional: X}}}\nX: W\n",
            expected: ReloadChanges(added: ["X"], changed: ["S"])),
        Case(
            what: "a singleton whose tagged list gains a member",
            old: "S: {ClassName: W, Lifestyle: singleton, Dependencies: {all: {Tagged: 7}}}\nA: {ClassName: W, Tag: 7}\n",
            new:
                "S: {ClassName: W, Lifestyle: singleton, Dependencies: {all: {Tagged: 7}}}\nA: {ClassName: W, Tag: 7}\nB: {ClassName: W, Tag: [7, x]}\n",
            expected: ReloadChanges(added: ["B"], changed: ["S"])),
    ]

    private func loaded(_ text: String) throws -> [EntryDefinition] {
        let r = Registry()
        try r.load(text: text, format: .yaml)
        return r.entries
    }

    @Test(arguments: cases) func oneFileReloaded(_ c: Case) throws {
        let dir = ConfigDir()
        dir.write("a.yaml", c.old)
        let r = Registry()
        try registerWidgets(r, ["W", "V"])
        try r.load(path: dir.file("a.yaml"))
        dir.write("a.yaml", c.new)
        #expect(try r.reload() == c.expected)
        // The reloaded registry holds the new definitions, and nothing changes again.
        #expect(r.entries.sorted { $0.name < $1.name } == (try loaded(c.new)).sorted { $0.name < $1.name })
        #expect(try r.reload().isEmpty)
    }

    @Test(arguments: cases) func aHistoryOfTwoLoadsReloaded(_ c: Case) throws {
        let dir = ConfigDir()
        dir.write("a.yaml", c.old)
        dir.write("other.yaml", "Other: {ClassName: W, Dependencies: {n: 1}}\n")
        let r = Registry()
        try registerWidgets(r, ["W", "V"])
        try r.load(path: dir.file("a.yaml"))
        try r.load(path: dir.file("other.yaml"))
        dir.write("a.yaml", c.new)
        #expect(try r.reload() == c.expected)
        #expect(try r.reload().isEmpty)
    }

    @Test(arguments: cases) func definitionsCompared(_ c: Case) throws {
        #expect(ReloadChanges(from: try loaded(c.old), to: try loaded(c.new)) == c.expected)
    }

    /// Environment values compare by what they resolve to: the same text is a change when the
    /// process variable it reads changed (read again by the reload), and no change when not.
    @Test func environmentValuesCompareByTheirValues() throws {
        let variable = "CR_RELOAD_KIND_\(getpid())"
        setenv(variable, "1", 1)
        defer { unsetenv(variable) }
        let dir = ConfigDir()
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {n: {Env: \(variable), Type: int}}}\nB: W\n")
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(path: dir.file("a.yaml"))
        #expect(try r.reload().isEmpty)
        setenv(variable, "2", 1)
        #expect(try r.reload() == ReloadChanges(changed: ["A"]))
        #expect(try r.create("A", as: Widget.self).args["n"] == .int(2))
    }
}
