import ControllerReg
import ControllerRegTool
import Testing

@Suite struct GraphTests {
    @Test func goldenDot() throws {
        expectGolden(GraphRenderer.dot(try ConfigSet.entries(paths: [Paths.example])), "example.dot")
        expectGolden(GraphRenderer.dot(try ConfigSet.entries(paths: [Paths.graphFixture])), "graph.dot")
    }

    @Test func edgesCarryKeyPaths() throws {
        let app = try #require(try ConfigSet.entries(paths: [Paths.graphFixture]).first { $0.name == "App" })
        #expect(app.edges.map { "\($0.key)->\($0.to)" } == ["screens[0]->Home", "screens[1]->Settings", "services.log->Logger", "services.store->Store"])
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
