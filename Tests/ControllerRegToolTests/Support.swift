import ControllerReg
import ControllerRegTool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Paths into the repository, found from this file's location.
enum Paths {
    static let testsDir: String = {
        var p = "\(#filePath)"
        p = String(p[..<p.lastIndex(of: "/")!])  // …/Tests/ControllerRegToolTests
        return String(p[..<p.lastIndex(of: "/")!])  // …/Tests
    }()
    static let root = String(testsDir[..<testsDir.lastIndex(of: "/")!])
    static let fixtures = testsDir + "/Fixtures"
    static let golden = testsDir + "/ControllerRegToolTests/Golden"
    static let example = fixtures + "/example.yaml"
    static let graphFixture = fixtures + "/tool/graph.yaml"
    static let graphInvalid = fixtures + "/tool/graph-invalid.yaml"
    static let schema = root + "/schema/controllerreg.schema.json"

    /// The built `controllerreg-cli`, next to the test bundle (swift test builds it: the tests depend on it).
    static let tool: String? = {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return nil }
        var dir = String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // …/debug/controllerregPackageTests.xctest (a file on Linux)
        dir = String(dir[..<dir.lastIndex(of: "/")!])
        let candidate = dir + "/controllerreg-cli"
        return access(candidate, X_OK) == 0 ? candidate : nil
    }()
}

/// A fresh temporary directory per use.
func temporaryDirectory() -> String {
    var template = Array("/tmp/controllerreg-tool-XXXXXX".utf8CString)
    let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return String(cString: p!)
}

/// The names in a directory (without `.` and `..`).
func directoryEntries(_ dir: String) throws -> [String] {
    guard let d = opendir(dir) else { return ["<cannot open \(dir)>"] }
    defer { closedir(d) }
    var names: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

func writeFile(_ path: String, _ text: String) {
    writeBytes(path, Array(text.utf8))
}

func writeBytes(_ path: String, _ bytes: [UInt8]) {
    let f = fopen(path, "wb")!
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, bytes.count, f) }
    fclose(f)
}

func readText(_ path: String) -> String? {
    guard let bytes = try? ConfigLoader.readFile(path) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

/// Compares `actual` with the golden file `name`; with CONTROLLERREG_UPDATE_GOLDEN=1 rewrites it.
func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation_ = #_sourceLocation) {
    let path = Paths.golden + "/" + name
    if getenv("CONTROLLERREG_UPDATE_GOLDEN") != nil {
        writeFile(path, actual)
        return
    }
    guard let expected = readText(path) else {
        Issue.record(
            "missing golden file \(path) (run with CONTROLLERREG_UPDATE_GOLDEN=1 to create it)", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == expected, "output differs from \(name)", sourceLocation: sourceLocation)
}

typealias SourceLocation_ = Testing.SourceLocation

/// Runs the built tool; nil when it is not built (the test records that).
func runTool(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    guard let tool = Paths.tool else {
        Issue.record("controllerreg-cli was not found next to the test bundle")
        return (-1, "", "")
    }
    let r = try Subprocess.run(tool, args, input: [])
    return (r.status, String(decoding: r.stdout, as: UTF8.self), String(decoding: r.stderr, as: UTF8.self))
}

/// The same values in the same order (positions ignored).
func sameDocument(_ a: ConfigDocument, _ b: ConfigDocument) -> Bool {
    guard a.nodes.count == b.nodes.count else { return false }
    for i in a.nodes.indices {
        let x = a.nodes[i], y = b.nodes[i]
        guard x.kind == y.kind else { return false }
        switch x.kind {
        case .string: if a.string(at: i) != b.string(at: i) { return false }
        case .null: break
        case .list, .map: if x.count != y.count || x.extent != y.extent { return false }
        default: if x.payload != y.payload { return false }
        }
    }
    return true
}
