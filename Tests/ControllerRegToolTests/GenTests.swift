import ControllerReg
import ControllerRegTool
import Testing

@Suite struct GenTests {
    func generate(_ lang: NameConstantsGenerator.Language, _ file: String, prefix: String? = nil) throws -> String {
        let entries = try ConfigSet.entries(paths: [file])
        return try NameConstantsGenerator(language: lang, prefix: prefix).generate(names: entries.map(\.name), sources: [file])
    }

    @Test(arguments: [(NameConstantsGenerator.Language.c, "h"), (.cpp, "hpp"), (.swift, "swift"), (.python, "py")])
    func goldenExample(lang: NameConstantsGenerator.Language, ext: String) throws {
        expectGolden(try generate(lang, Paths.example), "example-names.\(ext)")
        expectGolden(try generate(lang, Paths.graphFixture), "graph-names.\(ext)")
    }

    @Test func sanitisedIdentifiers() {
        let swift = NameConstantsGenerator(language: .swift)
        #expect(swift.sanitise("web-view", prefix: "") == "web_view")
        #expect(swift.sanitise("2fa", prefix: "") == "_2fa")
        #expect(swift.sanitise("class", prefix: "") == "class_")
        #expect(swift.sanitise("Écran", prefix: "") == "_cran")
        #expect(swift.sanitise("-", prefix: "") == "__")
        #expect(NameConstantsGenerator(language: .c).sanitise("a b", prefix: "CR_ENTRY_") == "CR_ENTRY_a_b")
        #expect(NameConstantsGenerator(language: .python).sanitise("None", prefix: "") == "None_")
    }

    /// C++ reserves every identifier with `__` and those starting with `_` and a capital (C: `__`
    /// or `_` and a capital at the start): the generated names avoid them, and a compiler that
    /// checks reserved identifiers accepts the header.
    @Test func cAndCppAvoidReservedIdentifiers() throws {
        let cpp = NameConstantsGenerator(language: .cpp)
        #expect(cpp.sanitise("a--b", prefix: "") == "a_b")
        #expect(cpp.sanitise("a__b", prefix: "") == "a_b")
        #expect(cpp.sanitise("web::view", prefix: "") == "web_view")
        #expect(cpp.sanitise("-Home", prefix: "") == "Home")
        #expect(cpp.sanitise("__init", prefix: "") == "_init")
        #expect(cpp.sanitise("x.", prefix: "") == "x_")
        #expect(cpp.sanitise("-", prefix: "") == "_")
        #expect(cpp.sanitise("2fa", prefix: "") == "_2fa")
        let c = NameConstantsGenerator(language: .c)
        #expect(c.sanitise("a__b", prefix: "CR_ENTRY_") == "CR_ENTRY_a__b", "C reserves only a leading __")
        #expect(c.sanitise("__Home", prefix: "") == "Home")
        #expect(c.sanitise("__x", prefix: "") == "_x")
        #expect(NameConstantsGenerator(language: .swift).sanitise("a--b", prefix: "") == "a__b")
        let names = ["a--b", "web::view", "-Home", "--init", "x.", "Ok"]
        let header = try cpp.generate(names: names, sources: [])
        #expect(!header.contains("__"), "\(header)")
        if let clang = Subprocess.find("clang++") {
            let dir = temporaryDirectory()
            writeFile(dir + "/names.hpp", header)
            let r = try Subprocess.run(
                clang,
                [
                    "-std=c++17", "-Wreserved-identifier", "-Werror", "-fsyntax-only", "-x", "c++", "-include",
                    dir + "/names.hpp", "-",
                ],
                input: Array("int main() { return EntryNames::a_b[0] == 'a' ? 0 : 1; }\n".utf8))
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        }
    }

    /// An entry whose C identifier would be the header's include guard (`NAMES_H` with the
    /// default prefix) gets a `_`: defined again as a string, the guard was a redefinition that
    /// `-Werror` refuses.
    @Test func cIncludeGuardIsNotAnEntryConstant() throws {
        let c = NameConstantsGenerator(language: .c)
        #expect(c.sanitise("NAMES_H", prefix: "CR_ENTRY_") == "CR_ENTRY_NAMES_H_")
        #expect(
            NameConstantsGenerator(language: .c, prefix: "SCREEN_").sanitise("NAMES_H", prefix: "SCREEN_") == "SCREEN_NAMES_H_")
        #expect(
            NameConstantsGenerator(language: .c, prefix: "").sanitise("CONTROLLERREG_ENTRY_NAMES_H", prefix: "")
                == "CONTROLLERREG_ENTRY_NAMES_H_")
        #expect(c.sanitise("names_h", prefix: "CR_ENTRY_") == "CR_ENTRY_names_h")
        let header = try c.generate(names: ["NAMES_H", "Home"], sources: [])
        #expect(header.contains("#define CR_ENTRY_NAMES_H_ \"NAMES_H\""), "\(header)")
        if let cc = Subprocess.find("cc") {
            let dir = temporaryDirectory()
            writeFile(dir + "/names.h", header)
            let r = try Subprocess.run(
                cc, ["-std=c99", "-Wall", "-Werror", "-fsyntax-only", "-x", "c", "-include", dir + "/names.h", "-"],
                input: Array("int main(void) { return CR_ENTRY_NAMES_H_[0] == 'N' ? 0 : 1; }\n".utf8))
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        }
    }

    /// A Python constant named after a builtin or a `__dunder__` imports without error and then
    /// breaks its importer (`from names import *` hides `print`; `__name__` renames the module),
    /// so those get a `_` as keywords do. Other languages keep the names.
    @Test func pythonBuiltinsAndDundersAreSuffixed() throws {
        let py = NameConstantsGenerator(language: .python)
        #expect(py.sanitise("print", prefix: "") == "print_")
        #expect(py.sanitise("list", prefix: "") == "list_")
        #expect(py.sanitise("__name__", prefix: "") == "__name___")
        #expect(py.sanitise("__builtins__", prefix: "") == "__builtins___")
        #expect(py.sanitise("__", prefix: "") == "__")
        #expect(py.sanitise("_list", prefix: "") == "_list")
        #expect(NameConstantsGenerator(language: .swift).sanitise("print", prefix: "") == "print")
        #expect(NameConstantsGenerator(language: .c).sanitise("list", prefix: "") == "list")
        if let python = Subprocess.find("python3") {
            let dir = temporaryDirectory()
            let names = ["print", "list", "str", "__name__", "__builtins__", "__file__", "Home"]
            writeFile(dir + "/screens.py", try py.generate(names: names, sources: []))
            let r = try Subprocess.run(
                python,
                [
                    "-c",
                    "import sys; sys.path.insert(0, '\(dir)'); import screens; from screens import *; "
                        + "assert screens.__name__ == 'screens'; assert str(len(list('ab'))) == '2'; "
                        + "assert (print_, list_, __name___, Home) == ('print', 'list', '__name__', 'Home'); print('ok')",
                ], input: [])
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        }
    }

    @Test func collisionsAreErrors() {
        let g = NameConstantsGenerator(language: .c)
        #expect(throws: ToolError.self) { try g.generate(names: ["a-b", "a_b", "ok"], sources: []) }
        do {
            _ = try g.generate(names: ["a-b", "a_b", "x.y", "x_y"], sources: [])
        } catch {
            #expect(error.diagnostics.count == 2)
            #expect(
                error.diagnostics[0].message
                    == "entry names 'a-b' and 'a_b' both become the identifier 'CR_ENTRY_a_b' "
                    + "(characters other than ASCII letters, digits and _ become _); rename one of them")
        }
    }

    @Test func deterministicAndSorted() throws {
        let g = NameConstantsGenerator(language: .python)
        let a = try g.generate(names: ["b", "a", "C"], sources: ["x.yaml"])
        let b = try g.generate(names: ["C", "b", "a"], sources: ["x.yaml"])
        #expect(a == b)
        #expect(a.contains("C = \"C\"\na = \"a\"\nb = \"b\"\n"))
    }

    @Test func literalsAreEscaped() throws {
        let names = ["q\"uote", "back\\slash", "tri??=", "é"]
        let c = try NameConstantsGenerator(language: .c).generate(names: names, sources: [])
        #expect(c.contains(#"#define CR_ENTRY_q_uote "q\"uote""#))
        #expect(c.contains(#"#define CR_ENTRY_back_slash "back\\slash""#))
        #expect(c.contains(#""tri\?\?=""#))
        #expect(c.contains(#""\303\251""#))
        let swift = try NameConstantsGenerator(language: .swift).generate(names: names, sources: [])
        #expect(swift.contains(#"public static let q_uote = "q\"uote""#))
    }

    /// The generated C, C++ and Python compile/import (when the compilers are installed).
    @Test func generatedCodeCompiles() throws {
        let dir = temporaryDirectory()
        let names = try ConfigSet.entries(paths: [Paths.graphFixture]).map(\.name) + ["q\"uote", "é", "tri??="]
        if let cc = Subprocess.find("cc") {
            writeFile(dir + "/names.h", try NameConstantsGenerator(language: .c).generate(names: names, sources: []))
            let r = try Subprocess.run(
                cc, ["-std=c99", "-Wall", "-Werror", "-fsyntax-only", "-x", "c", "-include", dir + "/names.h", "-"],
                input: Array("int main(void) { return CR_ENTRY_App[0] == 'A' ? 0 : 1; }\n".utf8))
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        }
        if let cxx = Subprocess.find("c++") {
            writeFile(dir + "/names.hpp", try NameConstantsGenerator(language: .cpp).generate(names: names, sources: []))
            let r = try Subprocess.run(
                cxx, ["-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-x", "c++", "-include", dir + "/names.hpp", "-"],
                input: Array("static_assert(EntryNames::class_[0] == 'c', \"\");\nint main() { return 0; }\n".utf8))
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        }
        if let python = Subprocess.find("python3") {
            writeFile(dir + "/names.py", try NameConstantsGenerator(language: .python).generate(names: names, sources: []))
            let r = try Subprocess.run(
                python,
                [
                    "-c",
                    "import sys; sys.path.insert(0, '\(dir)'); import names; assert names.web_view == 'web-view'; assert names.class_ == 'class'; assert names.q_uote == 'q\"uote'",
                ], input: [])
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        }
    }

    @Test func commandLine() throws {
        let dir = temporaryDirectory()
        let r = try runTool(["gen", "--lang", "c", Paths.example, "-o", dir + "/names.h", "--prefix", "SCREEN_"])
        #expect(r.status == 0)
        #expect(readText(dir + "/names.h")?.contains("#define SCREEN_Test1 \"Test1\"") == true)
        writeFile(dir + "/clash.yaml", "a-b: X\na_b: Y\n")
        let clash = try runTool(["gen", "--lang", "swift", dir + "/clash.yaml", "-o", dir + "/clash.swift"])
        #expect(clash.status == 1)
        #expect(
            clash.stderr.contains(
                "clash.yaml:2:1: error: entry names 'a-b' (\(dir)/clash.yaml:1:1) and 'a_b' both become the identifier 'a_b'"),
            "\(clash.stderr)")
        // Names that differ only in characters other than ASCII are placed too, and say why.
        writeFile(dir + "/accents.yaml", "Home: X\n\u{E9}cran: Y\n\u{E8}cran: Z\n")
        let accents = try runTool(["gen", "--lang", "python", dir + "/accents.yaml"])
        #expect(accents.status == 1)
        #expect(
            accents.stderr.contains(
                "accents.yaml:2:1: error: entry names '\u{E8}cran' (\(dir)/accents.yaml:3:1) and '\u{E9}cran' both become the identifier '_cran' (characters other than ASCII letters, digits and _ become _)"
            ), "\(accents.stderr)")
        #expect(readText(dir + "/clash.swift") == nil, "no output is left behind on error")
        #expect(try runTool(["gen", "--lang", "rust", Paths.example]).status == 2)
        // An output that is one of the configs (by another path too) is refused before anything is
        // written: the config is not replaced by the generated code (or the graph's drawing).
        writeFile(dir + "/screens.yaml", "Home: HomeVC\n")
        for args in [
            ["gen", "--lang", "c", dir + "/screens.yaml", "-o", dir + "/screens.yaml"],
            ["gen", "--lang", "python", Paths.example, dir + "/screens.yaml", "-o", dir + "/./screens.yaml"],
            ["graph", dir + "/screens.yaml", "-o", dir + "/screens.yaml"],
            ["convert", dir + "/screens.yaml", "--to", "json", "-o", dir + "/screens.yaml"],
            [
                "convert", dir + "/screens.yaml", "--to", "yaml", "-o",
                dir + "/../" + String(dir.split(separator: "/").last!) + "/screens.yaml",
            ],
        ] {
            let r = try runTool(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains("is the config file"), "\(args): \(r.stderr)")
            #expect(readText(dir + "/screens.yaml") == "Home: HomeVC\n", "\(args)")
        }
    }
}
