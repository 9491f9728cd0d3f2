import ControllerReg
import ControllerRegTool
import Testing

/// The tool on `{Tagged: t}` and `{Optional: Name}` (issue 16): explain shows what they resolve
/// to, check notes optional references that resolve to nothing, graph draws them, convert keeps them.
@Suite struct FormsToolTests {
    static let yaml = """
        Home: {ClassName: HomeScreen, Tag: screen}
        About: {ClassName: AboutScreen, Tag: [screen, 5], Lifestyle: singleton}
        Nav:
          ClassName: Navigator
          Dependencies:
            screens: {Tagged: screen}
            none: {Tagged: nothing}
            help: {Optional: Help}
            home: {Optional: Home}

        """

    func registry() throws -> Registry {
        let r = Registry()
        try r.load(text: Self.yaml, file: "forms.yaml")
        return r
    }

    @Test func explainShowsTheMembersAndTheOptionalTargets() throws {
        let text = try PlanExplainer(registry: registry()).explain("Nav")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("├─ screens: {Tagged: screen}: list of 2 (by entry name)"))
        #expect(lines.contains("│  ├─ [0]: → About (AboutScreen) [singleton] tags screen, 5"))
        #expect(lines.contains("│  └─ [1]: → Home (HomeScreen) [transient] tag screen"))
        #expect(lines.contains("├─ none: {Tagged: nothing}: [] (no entry has this tag)"))
        #expect(lines.contains("├─ help: {Optional: Help}: absent → null"))
        #expect(lines.contains("└─ home (optional): → Home (HomeScreen) [transient] tag screen"))
        #expect(text.contains("Creation order (4 objects)"))
    }

    @Test func checkListsOptionalReferencesThatResolveToNothingAsInformation() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/forms.yaml", Self.yaml)
        let report = CheckReport.run(files: [dir + "/forms.yaml"])
        #expect(report.isClean)
        #expect(report.information.count == 1)
        let text = report.text()
        #expect(
            text.contains(
                dir
                    + "/forms.yaml:8:22: info: entry 'Nav', key 'help': {Optional: Help} is null: no entry named 'Help' (add one to use it)"
            ))
        #expect(text.hasSuffix("OK, 3 entries\n"))
        #expect(report.json().contains("\"information\": ["))
        let run = try runTool(["check", dir + "/forms.yaml"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("info: entry 'Nav', key 'help'"))
    }

    @Test func graphDrawsAnEdgePerMemberAndOptionalsDotted() throws {
        let dot = GraphRenderer.dot(try registry().entries)
        #expect(dot.contains("\"Nav\" -> \"About\" [label=\"screens [Tagged: screen]\", style=bold];"))
        #expect(dot.contains("\"Nav\" -> \"Home\" [label=\"screens [Tagged: screen]\", style=bold];"))
        #expect(dot.contains("\"Nav\" -> \"Home\" [label=\"home\", style=dotted];"))
        #expect(!dot.contains("\"Help\""))
        // Neither a tag nor an absent optional target is drawn as a missing entry.
        #expect(!dot.contains("(missing)"))
        let nav = try #require(try registry().entry(named: "Nav"))
        #expect(nav.edges.map(\.kind) == [.tagged, .tagged, .optional, .optional])
    }

    @Test func convertKeepsTheFormsAndTagLists() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/forms.yaml", Self.yaml)
        for ext in ["json", "plist"] {
            #expect(try runTool(["convert", dir + "/forms.yaml", "--to", ext, "-o", dir + "/forms.\(ext)"]).status == 0)
            let r = Registry()
            try r.load(path: dir + "/forms.\(ext)")
            #expect(r.entries == (try registry().entries))
        }
    }
}
