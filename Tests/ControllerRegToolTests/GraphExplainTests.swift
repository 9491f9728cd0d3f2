import ControllerReg
import ControllerRegTool
import Synchronization
import Testing

@Suite struct GraphTests {
    @Test func goldenDot() throws {
        expectGolden(GraphRenderer.dot(try ConfigSet.entries(paths: [Paths.example])), "example.dot")
        expectGolden(GraphRenderer.dot(try ConfigSet.entries(paths: [Paths.graphFixture])), "graph.dot")
    }

    @Test func goldenInvalidConfigWithProblemsMarked() throws {
        let config = LoadedConfig.load(paths: [Paths.graphInvalid])
        #expect(config.problems.map(\.code) == [.lifetime, .missingReference, .cycle, .schema])
        #expect(config.invalidNames == ["Broken"])
        let dot = try GraphRenderer.dot(config)
        expectGolden(dot, "graph-invalid.dot")
        // Marks come from the problems' paths: the cycle's edges are red and thick, the
        // singleton's path to the graph object orange, the provider edge along neither is plain.
        #expect(dot.contains(#""A" -> "B" [label="b", color=red, fontcolor=red, penwidth=2.5];"#))
        #expect(dot.contains(#""C" -> "A" [label="a", color=red, fontcolor=red, penwidth=2.5];"#))
        #expect(dot.contains(##""Pricing" -> "RequestContext" [label="context", color="#e07000", penwidth=2];"##))
        #expect(dot.contains(#""Pricing" -> "Cart" [label="later", style=dashed];"#))
        #expect(dot.contains(#""Auditor" [label="Auditor\n(missing)", style="rounded,dashed", color=red"#))
        #expect(dot.contains(#""Broken" [label="Broken\n(invalid entry)""#))
    }

    @Test func goldenInvalidConfigWithTaggedAndOptionalEdges() throws {
        let config = LoadedConfig.load(paths: [Paths.fixtures + "/tool/graph-forms-invalid.yaml"])
        #expect(config.problems.map(\.code) == [.lifetime, .cycle])
        let dot = try GraphRenderer.dot(config)
        expectGolden(dot, "graph-forms-invalid.dot")
        // The tagged member edge along the singleton's path is orange, the one closing the cycle red.
        #expect(dot.contains(##""Session" -> "Ctx" [label="all [Tagged: req]", style=bold, color="#e07000", penwidth=2];"##))
        #expect(dot.contains(##""Loop" -> "Loop" [label="members [Tagged: loop]", style=bold, color=red"##))
        #expect(dot.contains(##""Later" -> "Loop" [label="loop", style=dotted];"##))
        #expect(!dot.contains("Help"))  // an absent optional target is neither drawn nor missing
        #expect(dot.contains(#"[label="tagged list member", style=bold]"#))
        #expect(dot.contains(#"[label="optional (entry exists)", style=dotted]"#))
        // --focus follows tagged lists and optional references.
        let focused = try GraphRenderer.dot(config, focus: "Later", legend: false)
        #expect(focused.contains(#""Loop" ["#) && !focused.contains(#""Session" ["#) && !focused.contains(#""Ctx" ["#))
    }

    @Test func focusDrawsOnlyWhatOneEntryReaches() throws {
        let config = LoadedConfig.load(paths: [Paths.graphInvalid])
        let dot = try GraphRenderer.dot(config, focus: "Pricing", legend: false)
        expectGolden(dot, "graph-invalid-focus-Pricing.dot")
        #expect(!dot.contains(#""A" ["#) && !dot.contains("cluster_legend"))
        let valid = try GraphRenderer.dot(LoadedConfig.load(paths: [Paths.graphFixture]), focus: "Settings")
        #expect(valid.contains(#""Settings" -> "Store""#) && valid.contains(#""Store" -> "Logger""#))
        #expect(!valid.contains(#""App" ["#) && !valid.contains(#""Home" ["#))
        do {
            _ = try GraphRenderer.dot(config, focus: "Pricng")
            Issue.record("expected an error for an unknown name")
        } catch {
            #expect(error.description == "--focus: no entry named 'Pricng' (did you mean 'Pricing'?)")
        }
    }

    @Test func legendNodesNeverCollideWithEntries() throws {
        let entries = [EntryDefinition(name: "legend:transient", className: "X")]
        let dot = GraphRenderer.dot(entries)
        #expect(dot.contains(#""_legend:transient" [label="transient"]"#))
        #expect(dot.split(separator: "\n").filter { $0.hasPrefix(#"  "legend:transient" ["#) }.count == 1)  // the entry's
    }

    @Test func edgesCarryKeyPaths() throws {
        let app = try #require(try ConfigSet.entries(paths: [Paths.graphFixture]).first { $0.name == "App" })
        #expect(
            app.edges.map { "\($0.key)->\($0.to)" } == [
                "screens[0]->Home", "screens[1]->Settings", "services.log->Logger", "services.store->Store",
            ])
        #expect(app.edges.allSatisfy { $0.kind == .reference })
    }

    @Test func svgThroughGraphviz() throws {
        let dot = GraphRenderer.dot(try ConfigSet.entries(paths: [Paths.example]))
        if Subprocess.find("dot") != nil {
            let svg = try GraphRenderer.svg(fromDot: dot)
            #expect(svg.contains("<svg"))
            #expect(svg.contains("Test2ViewController"))
        }
        do {
            _ = try GraphRenderer.svg(fromDot: dot, searchPath: "/nonexistent")
            Issue.record("expected an error without Graphviz")
        } catch {
            #expect(error.description.contains("install the 'graphviz' package"))
        }
    }

    @Test func commandLine() throws {
        let dir = temporaryDirectory()
        #expect(try runTool(["graph", Paths.example, "-o", dir + "/g.dot"]).status == 0)
        #expect(readText(dir + "/g.dot") == readText(Paths.golden + "/example.dot"))
        let bad = try runTool(["graph", dir + "/none.yaml"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("none.yaml"))
        // An invalid config is drawn (stdout), its problems listed (stderr), and the status is 1.
        let invalid = try runTool(["graph", Paths.graphInvalid])
        #expect(invalid.status == 1)
        #expect(invalid.stdout == readText(Paths.golden + "/graph-invalid.dot"))
        let lines = invalid.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first?.hasPrefix(Paths.graphInvalid + ":3:1: error: singleton 'Cart' would keep graph object") == true)
        #expect(lines.contains { $0.contains("error: dependency cycle: A -> B -> C -> A") })
        let focused = try runTool(["graph", Paths.graphInvalid, "--focus", "Pricing", "--no-legend"])
        #expect(focused.status == 1)
        #expect(focused.stdout == readText(Paths.golden + "/graph-invalid-focus-Pricing.dot"))
        let unknown = try runTool(["graph", Paths.example, "--focus", "Tset1"])
        #expect(unknown.status == 1)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("no entry named 'Tset1' (did you mean 'Test1'?)"))
        #expect(try runTool(["graph", Paths.example, "--focus", "Test1"]).status == 0)
        #expect(try runTool(["graph", Paths.example, "--focus"]).status == 2)
        // Environment values resolve from --env-file as check does; a missing one is a problem.
        writeFile(dir + "/env.yaml", "A: {ClassName: X, Dependencies: {port: {Env: CR_GRAPH_TEST_PORT, Type: int}}}\n")
        writeFile(dir + "/ok.env", "CR_GRAPH_TEST_PORT=80\n")
        writeFile(dir + "/empty.env", "# nothing\n")
        #expect(try runTool(["graph", dir + "/env.yaml", "--env-file", dir + "/ok.env"]).status == 0)
        let unset = try runTool(["graph", dir + "/env.yaml", "--env-file", dir + "/empty.env"])
        #expect(unset.status == 1)
        #expect(unset.stdout.contains(#""A" [label="A\nX"];"#))
        #expect(unset.stderr.contains("CR_GRAPH_TEST_PORT"))
    }
}

@Suite struct ExplainTests {
    @Test func goldenExplain() throws {
        let example = PlanExplainer(entries: try ConfigSet.entries(paths: [Paths.example]))
        expectGolden(try example.explain("Test1"), "example-Test1.txt")
        let graph = PlanExplainer(entries: try ConfigSet.entries(paths: [Paths.graphFixture]))
        expectGolden(try graph.explain("App"), "graph-App.txt")
    }

    @Test func unknownEntry() throws {
        let explainer = PlanExplainer(entries: try ConfigSet.entries(paths: [Paths.example]))
        do {
            _ = try explainer.explain("Tset1")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "no entry named 'Tset1' (did you mean 'Test1'?)")
        }
        let r = try runTool(["explain", Paths.example, "Nope"])
        #expect(r.status == 1)
        #expect(try runTool(["explain", Paths.example]).status == 2)
        #expect(try runTool(["explain", Paths.example, "Test1"]).stdout == readText(Paths.golden + "/example-Test1.txt"))
    }
}

@Suite struct ExplainBoundsTests {
    /// A chain of `n` references: E0 -> E1 -> ... -> E<n>.
    func chain(_ n: Int) -> [EntryDefinition] {
        (0..<n).map {
            EntryDefinition(
                name: "E\($0)", className: "C", dependencies: [Dependency(key: "n", value: .reference("E\($0 + 1)", at: nil))])
        }
            + [EntryDefinition(name: "E\(n)", className: "C")]
    }

    /// The create depth limit (256 by default) holds in explain as in a create: 255 references are
    /// explained whole; from 256 the explanation stops there and says the create fails. A 20,000
    /// entry chain used to overflow the stack (and print quadratic text before that).
    @Test func referencesDeeperThanTheCreateDepthLimitAreNotFollowed() throws {
        let fits = try PlanExplainer(entries: chain(255)).explain("E0")
        #expect(!fits.contains("fails"))
        #expect(fits.contains("Creation order (256 objects):"))
        for n in [256, 20_000] {
            let text = try PlanExplainer(entries: chain(n)).explain("E0")
            #expect(text.contains("… deeper than the create depth limit (256): the create fails here"))
            #expect(
                text.contains("Creating 'E0' fails: its references nest deeper than the create depth limit (256), CR_ERR_LIMIT."))
            #expect(text.contains("Creation order (256 objects):"))
        }
    }

    /// Transient entries that each use the next one twice build 2^40 objects: the tree and the
    /// creation order stop after 10,000 lines each instead of printing forever.
    @Test func exponentialTreesAreCut() throws {
        let levels = (0..<40).map {
            EntryDefinition(
                name: "L\($0)", className: "C",
                dependencies: [
                    Dependency(key: "a", value: .reference("L\($0 + 1)", at: nil)),
                    Dependency(key: "b", value: .reference("L\($0 + 1)", at: nil)),
                ])
        }
        let text = try PlanExplainer(entries: levels + [EntryDefinition(name: "L40", className: "C")]).explain("L0")
        #expect(text.contains("… (the tree is cut at 10000 lines)"))
        #expect(text.contains("; the create builds more):"))
        #expect(text.split(separator: "\n").count < 20_100)
    }
}

/// Records the classes a registry's create callbacks build, in call order.
private final class CreationLog: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ s: String) { names.withLock { $0.append(s) } }
    var all: [String] { names.withLock { $0 } }
}

@Suite struct ExplainMatchesResolverTests {
    /// `explain`'s creation order is the order the resolver calls the create callbacks in.
    @Test func creationOrderIsTheResolversOrder() throws {
        let registry = try ConfigSet.registry(paths: [Paths.graphFixture])
        let log = CreationLog()
        for cls in Set(registry.entries.map(\.className)) {
            try registry.register(className: cls) { _ in
                log.append(cls)
                return NSObjectLike()
            }
        }
        _ = try registry.create("App")
        let text = try PlanExplainer(registry: registry).explain("App")
        let order = text.split(separator: "\n").drop { !$0.hasPrefix("Creation order") }.dropFirst()
            .prefix { $0.hasPrefix("  ") }
            .map { line in String(line[line.index(after: line.firstIndex(of: "(")!)..<line.firstIndex(of: ")")!]) }
        #expect(!order.isEmpty)
        #expect(order == log.all)
    }
}

private final class NSObjectLike {}
