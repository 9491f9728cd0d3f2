import ControllerReg
import Testing

/// A registry keeps each committed definition in a compact form and decodes it on demand: what
/// `entries` and `entry(named:)` give back must be exactly what was committed, places included.
@Suite("Definitions as committed")
struct RetainedDefinitionTests {
    /// Every place in a definition, in a fixed order (`==` on definitions ignores places).
    private func places(_ d: EntryDefinition) -> [ControllerReg.SourceLocation?] {
        var out: [ControllerReg.SourceLocation?] = [d.location]
        func walk(_ v: DependencyValue) {
            switch v {
            case .reference(_, let at), .provider(_, let at), .template(_, let at), .tagged(_, let at), .optional(_, let at):
                out.append(at)
            case .env(let e): out.append(e.location)
            case .list(let items): items.forEach(walk)
            case .map(let deps):
                for dep in deps {
                    out.append(dep.location)
                    walk(dep.value)
                }
            default: break
            }
        }
        for dep in d.dependencies {
            out.append(dep.location)
            walk(dep.value)
        }
        return out
    }

    private func definitions() -> [EntryDefinition] {
        let a = SourceLocation(file: "a.yaml", line: 100_000, column: 3)
        let b = SourceLocation(file: "b/ü.json", line: 7, column: 12)
        let bin = SourceLocation(file: "c.plist", line: 0, column: 4_000_000_000)
        return [
            EntryDefinition(name: "Leaf", className: "LeafClass", location: a),
            EntryDefinition(
                name: "Ünïcode ✓", className: "C", description: "", tag: .string("t ✓"),
                dependencies: [
                    Dependency(key: "null", value: .null, location: b),
                    Dependency(key: "t", value: .bool(true), location: SourceLocation(file: "b/ü.json", line: 3, column: 1)),
                    Dependency(key: "f", value: .bool(false)),
                    Dependency(key: "min", value: .int(Int64.min), location: a),
                    Dependency(key: "max", value: .int(Int64.max), location: bin),
                    Dependency(key: "neg", value: .int(-1)),
                    Dependency(key: "nan", value: .double(.nan)),
                    Dependency(key: "-0", value: .double(-0.0)),
                    Dependency(key: "d", value: .double(1e300)),
                    Dependency(key: "", value: .string("")),
                    Dependency(key: "long", value: .string(String(repeating: "x✓", count: 300))),
                    Dependency(key: "ref", value: .reference("Leaf", at: b), location: b),
                    Dependency(key: "prov", value: .provider("Leaf", at: nil)),
                    Dependency(key: "tpl", value: .template("a ${A:-x} $${b}", at: b)),
                    Dependency(key: "env", value: .env(EnvValue(name: "A", location: a))),
                    Dependency(
                        key: "envs",
                        value: .list([
                            .env(EnvValue(name: "P", type: .int, defaultValue: .int(Int64.min), location: bin)),
                            .env(EnvValue(name: "D", type: .double, defaultValue: .double(-0.5))),
                            .env(EnvValue(name: "B", type: .bool, defaultValue: .bool(true), location: b)),
                            .env(EnvValue(name: "F", type: .bool, defaultValue: .bool(false))),
                            .env(EnvValue(name: "S", type: .string, defaultValue: .string("✓ text"))),
                        ])),
                    Dependency(
                        key: "nested",
                        value: .list([
                            .int(1), .reference("Leaf", at: a), .list([]), .map([]),
                            .map([
                                Dependency(key: "k", value: .provider("Leaf", at: bin), location: a),
                                Dependency(key: "l", value: .list([.string("@x"), .double(2.5)])),
                            ]),
                        ]), location: a),
                ], lifestyle: .singleton, eager: true, location: b),
            EntryDefinition(
                name: "G", className: "C", tag: .int(-42),
                dependencies: [
                    Dependency(key: "far", value: .int(0), location: SourceLocation(file: "a.yaml", line: 1, column: -1)),
                    Dependency(
                        key: "near", value: .int(0), location: SourceLocation(file: "a.yaml", line: Int.min, column: Int.max)),
                    Dependency(key: "back", value: .int(0), location: SourceLocation(file: "a.yaml", line: 2, column: 0)),
                ], lifestyle: .graph, location: SourceLocation(file: "a.yaml", line: Int.max, column: Int.min)),
            EntryDefinition(
                name: "Forms", className: "C", description: "d", tags: [.string("screen"), .int(-5), .string(" ")],
                dependencies: [
                    Dependency(key: "all", value: .tagged(.string("other ✓"), at: a), location: a),
                    Dependency(key: "num", value: .tagged(.int(Int64.min), at: nil)),
                    Dependency(key: "opt", value: .optional("Leaf", at: bin)),
                    Dependency(key: "absent", value: .list([.optional("Nope", at: b), .tagged(.string("x"), at: nil)])),
                ], location: a),
            EntryDefinition(name: "NoTags", className: "C", tags: [], location: a),
            EntryDefinition(name: "S", className: "C", tag: .int(Int64.max), lifestyle: .singleton),
        ]
    }

    @Test func entriesGiveBackExactlyWhatWasCommitted() throws {
        let r = Registry()
        let defs = definitions()
        try r.add(defs, environment: ["A": "set", "D": "1"])
        #expect(r.entries == defs)
        #expect(r.entries.map(places) == defs.map(places))
        for d in defs {
            let back = try #require(r.entry(named: d.name))
            #expect(back == d)
            #expect(back.description == d.description)
            #expect(back.tag == d.tag)
            #expect(back.tags == d.tags)
            #expect(back.eager == d.eager)
            #expect(places(back) == places(d))
        }
    }

    @Test func entriesOfSeveralCommitsAndAChildDecode() throws {
        let r = Registry()
        let defs = definitions()
        try r.add([defs[0]])
        // The child below compiles these again against the environment they were committed with.
        try r.add(Array(defs[1...]), environment: ["A": "set", "D": "1"])
        try r.load(text: "Y:\n  ClassName: K\n  Dependencies:\n    a: Leaf\n    b: \"@Leaf\"\n", file: "y.yaml")
        let child = Registry(parent: r)
        try child.load(text: "Z: {ClassName: K, Dependencies: {y: Y}}", file: "z.yaml")
        #expect(child.entries.map(\.name) == ["Leaf", "Ünïcode ✓", "G", "Forms", "NoTags", "S", "Y", "Z"])
        #expect(child.entries.prefix(defs.count).map(places) == defs.map(places))
        let y = try #require(child.entry(named: "Y"))
        #expect(y.dependencies.map(\.value) == [.reference("Leaf", at: nil), .string("Leaf")])
        #expect(y.location == SourceLocation(file: "y.yaml", line: 1, column: 1))
        #expect(y.dependencies[0].location == SourceLocation(file: "y.yaml", line: 4, column: 5))
        #expect(y.dependencies[0].value == .reference("Leaf", at: nil))
        if case .reference(_, let at) = y.dependencies[0].value {
            #expect(at == SourceLocation(file: "y.yaml", line: 4, column: 8))
        }
        #expect(child.entry(named: "Z")?.location == SourceLocation(file: "z.yaml", line: 1, column: 1))
    }

    /// The entry table keeps only each entry's name; its record is found from the name's bytes in
    /// whichever change's arena holds it. Names of every header length (a name of 64 bytes or more
    /// has a longer length prefix), many changes (many arenas), removals and replacements.
    @Test func recordsAreFoundFromNamesAcrossManyChanges() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        func name(_ i: Int) -> String { i % 3 == 0 ? "E\(i)" + String(repeating: "n", count: 60 + i) : "E\(i)" }
        for i in 0..<40 {
            try r.add([
                EntryDefinition(
                    name: name(i), className: "W", description: "entry \(i)",
                    dependencies: [Dependency(key: "i", value: .int(Int64(i)))]
                        + (i > 0 ? [Dependency(key: "prev", value: .reference(name(i - 1), at: nil))] : []),
                    location: SourceLocation(file: "f\(i).yaml", line: i + 1, column: 2))
            ])
        }
        try r.remove(entriesNamed: [name(39), name(38)])
        try r.add(
            [EntryDefinition(name: name(5), className: "W", description: "replaced", dependencies: [], location: nil)],
            mode: .override)
        #expect(r.entries.count == 38)
        for i in 0..<38 {
            let d = try #require(r.entry(named: name(i)))
            #expect(d.name == name(i))
            if i == 5 {
                #expect(d.description == "replaced")
                #expect(d.location == nil)
            } else {
                #expect(d.description == "entry \(i)")
                #expect(d.location == SourceLocation(file: "f\(i).yaml", line: i + 1, column: 2))
            }
            let made = try r.create(name(i), as: Widget.self)
            #expect(made.args["i"] == (i == 5 ? nil : .int(Int64(i))))
        }
        #expect(r.entry(named: name(39)) == nil)
        #expect(expectError { _ = try r.create(name(39)) }?.code == .notFound)
    }

    /// A change's table is built in place over its base's rows: a removed entry's name stays in
    /// the name table's cells but matches nothing, and every other name (probed past it) is still
    /// found, in the same change and the next. Removals, overrides and new names in one load.
    @Test func namesAreFoundPastRemovedOnesInTheTableAChangeBuilds() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        let first = (0..<600).map { "E\($0): W" }.joined(separator: "\n")
        try r.load(text: first, format: .yaml)
        try r.remove(entriesNamed: (0..<600).filter { $0 % 3 == 0 }.map { "E\($0)" })
        for i in 0..<600 { #expect((r.entry(named: "E\(i)") == nil) == (i % 3 == 0), "E\(i)") }
        let second = (590..<900).map { "E\($0): {ClassName: W, Dependencies: {i: \($0)}}" }.joined(separator: "\n")
        try r.load(text: second, format: .yaml, mode: .override)
        for i in 0..<900 {
            let removed = i < 590 && i % 3 == 0
            #expect((r.entry(named: "E\(i)") == nil) == removed, "E\(i)")
            if removed {
                #expect(expectError { _ = try r.create("E\(i)") }?.code == .notFound)
            } else {
                let made = try r.create("E\(i)", as: Widget.self)
                #expect(made.args["i"] == (i >= 590 ? .int(Int64(i)) : nil))
            }
        }
        #expect(r.entries.count == 900 - 197)
    }

    /// Places on one line of one file (a binary plist's are byte offsets on line 0) keep their
    /// columns as deltas from the previous place; any column comes back, extremes included, and a
    /// place on another line or file in between starts from its own column again.
    @Test func placesOnOneLineComeBackExactly() throws {
        let r = Registry()
        func at(_ line: Int, _ column: Int, _ file: String = "c.plist") -> ControllerReg.SourceLocation {
            SourceLocation(file: file, line: line, column: column)
        }
        let columns = [19_700_000, 19_700_010, 19_699_990, 0, -5, Int.max, Int.min, Int.max, 4_000_000_000, 4_000_000_001]
        var deps: [Dependency] = []
        for (i, c) in columns.enumerated() {
            deps.append(Dependency(key: "k\(i)", value: .reference("Leaf", at: at(0, c &+ 3)), location: at(0, c)))
        }
        deps.append(Dependency(key: "other", value: .int(1), location: at(0, 7, "d.plist")))
        deps.append(Dependency(key: "back", value: .int(2), location: at(0, 19_700_020)))
        deps.append(Dependency(key: "line", value: .int(3), location: at(5, 19_700_030)))
        deps.append(Dependency(key: "same", value: .int(4), location: at(5, 19_700_031)))
        let d = EntryDefinition(name: "P", className: "C", dependencies: deps, location: at(0, 19_699_999))
        try r.add([EntryDefinition(name: "Leaf", className: "C", location: at(0, 1)), d])
        let back = try #require(r.entry(named: "P"))
        #expect(back.location == d.location)
        #expect(back.dependencies.map(\.location) == d.dependencies.map(\.location))
        for (b, w) in zip(back.dependencies, d.dependencies) {
            if case .reference(_, let bAt) = b.value, case .reference(_, let wAt) = w.value { #expect(bAt == wAt) }
        }
        // A load writes its places as it decodes: a flow-style map keeps every place on line 1, at
        // the column of each key's and reference's first character.
        try r.load(text: "P2: {ClassName: C, Dependencies: {a: 1, bb: R, ccc: \"@x\", d: R}}\nR: C\n", file: "flow.yaml")
        let flow = try #require(r.entry(named: "P2"))
        #expect(flow.location == at(1, 1, "flow.yaml"))
        #expect(
            flow.dependencies.map(\.location) == [
                at(1, 35, "flow.yaml"), at(1, 41, "flow.yaml"), at(1, 48, "flow.yaml"), at(1, 59, "flow.yaml"),
            ])
        var references: [ControllerReg.SourceLocation?] = []
        for dep in flow.dependencies { if case .reference(_, let refAt) = dep.value { references.append(refAt) } }
        #expect(references == [at(1, 45, "flow.yaml"), at(1, 62, "flow.yaml")])
    }

    /// A reload replays each file on its own first: a reference to a later file's entry does not
    /// resolve yet, and the edges read back from that step's plans must not include it.
    @Test func aReloadFindsACycleAcrossFilesReferringForward() throws {
        let dir = ConfigDir()
        dir.write("a.yaml", "A: {ClassName: W, Lifestyle: singleton, Dependencies: {t: '@a'}}\n")
        dir.write("b.yaml", "B: W\n")
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(path: dir.file("a.yaml"))
        try r.load(path: dir.file("b.yaml"))
        let before = r.entries
        dir.write("a.yaml", "A: {ClassName: W, Lifestyle: singleton, Dependencies: {x: Later, b: B}}\n")
        dir.write("b.yaml", "B: {ClassName: W, Dependencies: {a: A}}\nLater: W\n")
        let e = expectError { _ = try r.reload() }
        #expect(e?.diagnostics.map(\.code) == [.cycle])
        #expect(e?.diagnostics.first?.message.contains("A -> B -> A") == true)
        #expect(r.entries == before)
        // Fixed, the same files reload, and the forward reference reaches its entry.
        dir.write("b.yaml", "B: W\nLater: W\n")
        _ = try r.reload()
        #expect(r.entry(named: "A")?.dependencies.map(\.value) == [.reference("Later", at: nil), .reference("B", at: nil)])
        #expect(r.entries.map(\.name) == ["A", "B", "Later"])
    }

    @Test func aSecondDefinitionNamesTheFirstsPlace() throws {
        let r = Registry()
        try r.load(text: "A: C\nB: C\n", file: "first.yaml")
        let e = expectError { try r.load(text: "\nB: D\n", file: "second.yaml") }
        #expect(e?.code == .duplicate)
        #expect(
            e?.diagnostics.first?.message
                == "entry 'B' is already defined at first.yaml:2:1; rename it, or load it as an override (CR_LOAD_OVERRIDE) to replace that one"
        )
        #expect(e?.diagnostics.first?.location == SourceLocation(file: "second.yaml", line: 2, column: 1))
    }
}
