import ControllerReg
import ControllerRegTool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct CheckTests {
    @Test func cleanFixtureIsClean() {
        let report = CheckReport.run(files: [Paths.example])
        #expect(report.isClean)
        #expect(report.entryCount == 2)
        #expect(report.text().hasSuffix("OK, 2 entries\n"))
    }

    @Test func everyProblemWithItsPlace() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/a.yaml", "A:\n  ClassName: AClass\n  Dependencies:\n    b: B\n    c: Missing\n")
        writeFile(dir + "/b.yaml", "B:\n  ClassName: BClass\n  Dependnecies: {x: 1}\n")
        let report = CheckReport.run(files: [dir + "/a.yaml", dir + "/b.yaml"])
        #expect(!report.isClean)
        let lines = report.text().split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix(dir + "/a.yaml:5:8: error: entry 'A', key 'c': no entry named 'Missing'") })
        #expect(
            lines.contains {
                $0.hasPrefix(dir + "/b.yaml:3:3: error: unknown key 'Dependnecies'") && $0.contains("did you mean 'Dependencies'")
            })
        #expect(lines.last == "2 files: 2 problems")
    }

    @Test func lifetimeProblemsAreListedAtTheSingletonWithTheirPath() throws {
        let dir = temporaryDirectory()
        writeFile(
            dir + "/app.yaml",
            """
            Cart:
              ClassName: CartService
              Lifestyle: singleton
              Dependencies: {pricing: Pricing, lost: Nowhere}
            Pricing: {ClassName: PricingService, Dependencies: {context: RequestContext}}
            RequestContext: {ClassName: Context, Lifestyle: graph}

            """)
        let result = try runTool(["check", dir + "/app.yaml"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                dir + "/app.yaml:1:1: error: singleton 'Cart' would keep graph object 'RequestContext': "
                    + "Cart -> Pricing -> RequestContext (key 'context' of 'Pricing'); a graph object belongs to one create: "
                    + "make it {Provider: RequestContext}, or change a lifestyle ('Cart' not singleton, or 'RequestContext' not graph) [lifetime]"
            ))
        #expect(
            lines.contains { $0.hasPrefix(dir + "/app.yaml:4:42: error: entry 'Cart', key 'lost': no entry named 'Nowhere'") })
        let json = try runTool(["check", dir + "/app.yaml", "--format", "json"])
        #expect(json.stdout.contains("\"line\": 1, \"column\": 1, \"code\": \"lifetime\", \"status\": 16"))
    }

    /// Tests/Fixtures/many-problems.yaml, the case every door runs (C, Swift, C++, Python): where
    /// the library's message lists the first 100 problems, `check` prints every one of the 300.
    @Test func everyProblemOfAManyProblemLoadIsPrinted() throws {
        let path = Paths.fixtures + "/many-problems.yaml"
        let result = try runTool(["check", path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix(path + ":") && $0.contains(": error: ") }.count == 300)
        #expect(
            lines.contains {
                $0.hasPrefix(path + ":300:")
                    && $0.contains("error: entry 'E299', key 'p': Provider must name an entry, not a literal ('@E299')")
            })
        #expect(!result.stdout.contains("more problems not listed"))
        #expect(lines.last == path + ": 300 problems")
    }

    @Test func filesRefertoEachOther() {
        let dir = temporaryDirectory()
        writeFile(dir + "/a.yaml", "A: {ClassName: AClass, Dependencies: {b: B}}\n")
        writeFile(dir + "/b.json", "{\"B\": \"BClass\"}")
        #expect(CheckReport.run(files: [dir + "/a.yaml", dir + "/b.json"]).isClean)
        #expect(!CheckReport.run(files: [dir + "/a.yaml"]).isClean)
    }

    @Test func classesNotProvided() {
        let report = CheckReport.run(files: [Paths.example], classes: ["Test1ViewController"])
        #expect(report.diagnostics.count == 1)
        let d = report.diagnostics[0]
        #expect(d.code == .classNotRegistered)
        #expect(d.location?.line == 11)
        #expect(d.message.contains("'Test2ViewController' is not provided by the host"))
        #expect(CheckReport.run(files: [Paths.example], classes: ["Test1ViewController", "Test2ViewController"]).isClean)
        #expect(CheckReport.parseClassList("A, B\n# comment\nC D # trailing\n") == ["A", "B", "C", "D"])
    }

    @Test func jsonReport() {
        let dir = temporaryDirectory()
        writeFile(dir + "/c.yaml", "A:\n  ClassName: X\n  Dependencies: {b: \"Nope\\\"\"}\n")
        let json = CheckReport.run(files: [dir + "/c.yaml"]).json()
        #expect(json.contains("\"ok\": false"))
        #expect(json.contains("\"line\": 3, \"column\": 21, \"code\": \"missing-reference\", \"status\": 6"))
        #expect(json.contains("no entry named 'Nope\\\"'"))
        #expect(CheckReport.run(files: [Paths.example]).json().contains("\"problems\": []"))
    }

    @Test func exitCodes() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/bad.yaml", "A:\n  ClassName: X\n  Dependencies: {b: Missing}\n")
        writeFile(dir + "/syntax.json", "{\"A\": \"X\",}")
        writeFile(dir + "/classes.txt", "Test1ViewController\nTest2ViewController\n")
        #expect(try runTool(["check", Paths.example]).status == 0)
        let bad = try runTool(["check", dir + "/bad.yaml"])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("bad.yaml:3:21: error:"))
        #expect(try runTool(["check", dir + "/syntax.json"]).status == 1)
        // A missing file's message says where a relative path was looked for (the tool runs in
        // this process's current directory).
        let missing = try runTool(["check", "no-such-config-file.yaml"])
        #expect(missing.status == 1)
        #expect(missing.stdout.contains("cannot open 'no-such-config-file.yaml': No such file or directory; check the path"))
        var cwd = [CChar](repeating: 0, count: 4096)
        #expect(missing.stdout.contains("read from the current directory, '\(String(cString: getcwd(&cwd, cwd.count)!))'"))
        #expect(
            try runTool(["check", dir + "/missing.yaml"]).stdout.contains(
                "missing.yaml': No such file or directory; check the path ["))
        #expect(try runTool(["check", Paths.example, "--classes", "Test1ViewController"]).status == 1)
        #expect(try runTool(["check", Paths.example, "--classes-file", dir + "/classes.txt"]).status == 0)
        #expect(try runTool(["check", Paths.example, "--format", "json"]).status == 0)
        #expect(try runTool(["check", dir + "/bad.yaml", "--format", "json"]).status == 1)
        let usage = try runTool(["check"])
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("error: "))
        #expect(try runTool(["check", Paths.example, "--format", "xml"]).status == 2)
        #expect(try runTool(["frobnicate"]).status == 2)
        // `-` is refused by every command that reads config files, with the fix.
        for args in [
            ["check", "-"], ["gen", "--lang", "c", "-"], ["graph", "-"], ["convert", "-", "--to", "json"],
            ["explain", "-", "A"], ["diff", Paths.example, "-"], ["diff", Paths.example, "--to", "-"],
        ] {
            let stdin = try runTool(args)
            #expect(stdin.status == 2, "\(args)")
            #expect(stdin.stderr.contains("'-' would be standard input"), "\(args)")
        }
        #expect(try runTool(["check", "--help"]).status == 0)
        #expect(try runTool(["--version"]).stdout == ToolVersion.string + "\n")
        for sub in ["check", "gen", "graph", "convert", "explain"] {
            let help = try runTool([sub, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Exit status"), "\(sub) --help documents the exit status")
        }
    }
}
