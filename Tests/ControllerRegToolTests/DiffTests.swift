import ControllerReg
import ControllerRegTool
import Testing

@Suite struct DiffTests {
    /// OLD and NEW in two formats: an edited, a removed, an added entry, a singleton wired to the
    /// edited one, and an entry that only moved.
    func configs() -> (dir: String, old: String, new: String) {
        let dir = temporaryDirectory()
        writeFile(
            dir + "/old.yaml",
            """
            Moved: W
            Edited: {ClassName: W, Dependencies: {n: 1}}
            Wired: {ClassName: W, Lifestyle: singleton, Dependencies: {e: Edited}}
            Gone: W
            """)
        writeFile(
            dir + "/new.json",
            """
            {"Edited": {"ClassName": "W", "Dependencies": {"n": 2}},
             "Wired": {"ClassName": "W", "Lifestyle": "singleton", "Dependencies": {"e": "Edited"}},
             "Added": "W",
             "Moved": "W"}
            """)
        return (dir, dir + "/old.yaml", dir + "/new.json")
    }

    @Test func listsWhatAReloadWouldChange() throws {
        let (_, old, new) = configs()
        let report = try DiffReport.run(old: [old], new: [new])
        #expect(report.changes == ReloadChanges(added: ["Added"], removed: ["Gone"], changed: ["Edited", "Wired"]))
        #expect(
            report.text() == "added (1):\n  + Added\nremoved (1):\n  - Gone\nchanged (2):\n  ~ Edited\n  ~ Wired\n")
        #expect(
            report.json()
                == "{\n  \"added\": [\"Added\"],\n  \"removed\": [\"Gone\"],\n  \"changed\": [\"Edited\", \"Wired\"]\n}\n")
        #expect(try DiffReport.run(old: [old], new: [old]).changes.isEmpty)
    }

    @Test func eachSideMayBeSeveralFiles() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/a.yaml", "A: {ClassName: W, Dependencies: {b: B}}\n")
        writeFile(dir + "/b.yaml", "B: W\n")
        writeFile(dir + "/b2.yaml", "B: {ClassName: W, Dependencies: {x: 1}}\n")
        let report = try DiffReport.run(old: [dir + "/a.yaml", dir + "/b.yaml"], new: [dir + "/a.yaml", dir + "/b2.yaml"])
        #expect(report.changes == ReloadChanges(changed: ["B"]))
    }

    @Test func bothSidesAreValidatedAndEveryProblemReported() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/old.yaml", "A: {ClassName: W, Dependencies: {b: Missing}}\n")
        writeFile(dir + "/new.yaml", "A: [\n")
        do {
            _ = try DiffReport.run(old: [dir + "/old.yaml"], new: [dir + "/new.yaml"])
            Issue.record("an invalid config must fail")
        } catch {
            #expect(error.diagnostics.count == 2)
            #expect(error.diagnostics.contains { $0.code == .missingReference && $0.location?.file == dir + "/old.yaml" })
            #expect(error.diagnostics.contains { $0.code == .syntax && $0.location?.file == dir + "/new.yaml" })
        }
    }

    @Test func environmentValuesThatResolveDifferentlyAreChanges() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/app.yaml", "Api: {ClassName: W, Dependencies: {host: '@${HOST}'}}\nOther: W\n")
        writeFile(dir + "/ci.env", "HOST=ci.example\n")
        #expect(
            try DiffReport.run(old: [dir + "/app.yaml"], new: [dir + "/app.yaml"], environment: ["HOST": "a"]).changes.isEmpty)
        let withFile = try runTool(["diff", "--env-file", dir + "/ci.env", dir + "/app.yaml", dir + "/app.yaml"])
        #expect(withFile.status == 0)
        #expect(withFile.stdout == "added (0):\nremoved (0):\nchanged (0):\n")
        writeFile(dir + "/empty.env", "# HOST is not set\n")
        let missing = try runTool(["diff", "--env-file", dir + "/empty.env", dir + "/app.yaml", dir + "/app.yaml"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("HOST"))
    }

    @Test func exitStatuses() throws {
        let (dir, old, new) = configs()
        let same = try runTool(["diff", old, old])
        #expect(same.status == 0)
        #expect(same.stdout == "added (0):\nremoved (0):\nchanged (0):\n")
        #expect(try runTool(["diff", "--exit-code", old, old]).status == 0)
        let differ = try runTool(["diff", old, new])
        #expect(differ.status == 0)
        #expect(differ.stdout.contains("  ~ Wired\n"))
        #expect(try runTool(["diff", "--exit-code", old, new]).status == 1)
        let several = try runTool(["diff", old, "--to", new, "--format", "json"])
        #expect(several.status == 0)
        #expect(several.stdout.contains("\"removed\": [\"Gone\"]"))
        writeFile(dir + "/bad.yaml", "A: {ClassName: W, Dependencies: {b: Missing}}\n")
        let invalid = try runTool(["diff", old, dir + "/bad.yaml"])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains(dir + "/bad.yaml:1:"))
        #expect(invalid.stderr.contains("no entry named 'Missing'"))
        #expect(invalid.stdout.isEmpty)
        #expect(try runTool(["diff", old]).status == 2)
    }
}
