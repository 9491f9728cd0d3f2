import ControllerReg
import ControllerRegTool
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// schema/controllerreg.schema.json against every fixture: those the library's entry decoder
/// accepts (and everything under schema/valid) must pass, those it rejects for their schema (and
/// everything under schema/invalid) must fail. Validation by python3's `jsonschema`.
@Suite struct SchemaTests {
    /// Every config fixture: (path, must be valid).
    static func fixtures() throws -> [(String, Bool)] {
        var out: [(String, Bool)] = []
        for path in listFiles(Paths.fixtures) {
            guard ConfigFormat.fromExtension(of: path) != nil else { continue }
            if path.contains("/schema/valid/") {
                out.append((path, true))
                continue
            }
            if path.contains("/schema/invalid/") {
                out.append((path, false))
                continue
            }
            // Other fixtures: the library decides. Files that do not parse are not the schema's business.
            guard let doc = try? ConfigLoader.load(path: path) else { continue }
            out.append((path, EntryDecoder.decode(doc).diagnostics.isEmpty))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    @Test func everyFixture() throws {
        guard let python = Subprocess.find("python3") else {
            Issue.record("python3 (with the jsonschema module) is needed to check the schema")
            return
        }
        let fixtures = try Self.fixtures()
        #expect(fixtures.count >= 12)
        #expect(fixtures.contains { $0.0.hasSuffix("/example.yaml") && $0.1 })
        let dir = temporaryDirectory()
        var list = ""
        for (i, (path, valid)) in fixtures.enumerated() {
            let doc = try ConfigLoader.load(path: path)
            let json = dir + "/\(i).json"
            writeBytes(json, try ConfigWriter.write(doc, to: .json))
            list += "\(valid ? "valid" : "invalid")\t\(json)\t\(path)\n"
        }
        writeFile(dir + "/list.tsv", list)
        let script = """
            import json, sys
            try:
                import jsonschema
            except ImportError:
                sys.exit("the python3 jsonschema module is not installed (apt-get install python3-jsonschema)")
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft7Validator.check_schema(schema)
            v = jsonschema.Draft7Validator(schema)
            bad = 0
            for line in open(sys.argv[2]):
                want, json_path, source = line.rstrip('\\n').split('\\t')
                errors = list(v.iter_errors(json.load(open(json_path))))
                if (want == 'valid') != (not errors):
                    bad += 1
                    print(f"{source}: expected {want}, got {[e.message for e in errors] or 'valid'}")
            sys.exit(1 if bad else 0)
            """
        let r = try Subprocess.run(python, ["-c", script, Paths.schema, dir + "/list.tsv"], input: [])
        #expect(r.status == 0, "\(String(decoding: r.stdout + r.stderr, as: UTF8.self))")
    }

    /// The schema lists exactly the entry keys the decoder knows (plus the ones the core is adding).
    @Test func entryKeysMatchTheDecoder() throws {
        let text = try #require(readText(Paths.schema))
        for key in EntryDecoder.entryKeys + ["Lifestyle", "Eager"] {
            #expect(text.contains("\"\(key)\": {"), "schema has \(key)")
        }
    }
}

/// Every regular file under `dir`, recursively.
func listFiles(_ dir: String) -> [String] {
    guard let d = opendir(dir) else { return [] }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name == "." || name == ".." { continue }
        let path = dir + "/" + name
        var st = stat()
        guard stat(path, &st) == 0 else { continue }
        if st.st_mode & S_IFMT == S_IFDIR { out += listFiles(path) } else { out.append(path) }
    }
    return out
}
