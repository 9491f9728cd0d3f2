import ControllerReg
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Inputs an outside tester found accepted or misplaced, refused through the Swift API with a
/// typed error that names the place, the thing and the fix (the C ABI's tests: host-tests/c
/// test_edges.c; the same rules, the same functions).
@Suite("Edge inputs refused")
struct EdgeInputTests {
    final class Thing: @unchecked Sendable {}

    private func registry() throws -> Registry {
        let r = Registry()
        try r.register(className: "X") { _ in Thing() }
        try r.load(text: "A: X\n")
        return r
    }

    /// An object value always holds an object: `ObjectReference(nil)` in props is refused, as
    /// `cr_map_set_object(map, key, NULL)` is, naming where in the props it is and `.null`.
    @Test func nilObjectsInPropsAreRefused() throws {
        let r = try registry()
        let top = expectError { _ = try r.create("A", props: ["view": .object(ObjectReference(nil))]) }
        #expect(top?.code == .invalidArgument)
        #expect(top?.description.contains("props[\"view\"]") == true)
        #expect(top?.description.contains("use .null for no object") == true)
        let nested = expectError {
            _ = try r.create("A", props: ["list": [1, .map(["o": .object(ObjectReference(nil, registryOwned: true))])]])
        }
        #expect(nested?.code == .invalidArgument)
        #expect(nested?.description.contains("props[\"list\"][1][\"o\"]") == true)
        // A real object, and null, are fine.
        let thing = Thing()
        _ = try r.create("A", props: ["view": .object(ObjectReference(thing)), "none": .null], as: Thing.self)
    }

    /// A source name holding a control character could forge message lines: refused, naming the
    /// character and its byte.
    @Test func sourceNamesWithControlCharactersAreRefused() throws {
        let r = try registry()
        for name in ["a.yaml\nerror: forged", "t\tab", "\u{7F}", "c1\u{85}", "ls\u{2028}"] {
            let e = expectError { try r.load(text: "B: X\n", file: name) }
            #expect(e?.code == .invalidArgument, "\(name.debugDescription)")
            #expect(e?.description.contains("load(text:file:)") == true)
            #expect(e?.description.contains("control character U+") == true)
            #expect(e?.description.contains("\n") == false)
            let b = expectError {
                try Array("B: X\n".utf8).withUnsafeBytes { try r.load(bytes: $0, file: name) }
            }
            #expect(b?.code == .invalidArgument)
        }
        let e = expectError { try r.load(text: "B: X\n", file: "a.yaml\nerror: forged") }
        #expect(e?.description.contains("U+000A at byte 6") == true)
        #expect(r.entries.count == 1, "nothing was loaded")
        try r.load(text: "B: X\n", file: "écran.yaml")
    }

    /// A file's path may hold a newline, so it is loaded (and reloaded by its real path), but
    /// messages show such a character escaped: one line per problem (the C ABI's test:
    /// `file_paths_that_would_forge_lines`).
    @Test func filePathsWithControlCharactersAreShownEscaped() throws {
        var template = Array("/tmp/cr-swift-edges-XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        let path = dir + "/a.yaml\nerror: forged.yaml"
        func write(_ text: String) throws {
            let f = try #require(fopen(path, "w"))
            fputs(text, f)
            fclose(f)
        }
        defer {
            remove(path)
            rmdir(dir)
        }
        try write("B: {ClassName: X, Dependencies: {a: Missing}}\n")
        let r = try registry()
        for load in [{ try r.load(path: path) }, { try r.load(paths: [path]) }] {
            let e = expectError(load)
            #expect(e?.code == .missingReference)
            #expect(e?.description.contains("a.yaml\\u{A}error: forged.yaml:1:") == true)
            #expect(e?.description.contains("\n") == false)
        }
        let missing = expectError { try r.load(path: dir + "/no\nsuch.yaml") }
        #expect(missing?.code == .io)
        #expect(missing?.description.contains("no\\u{A}such.yaml") == true)
        #expect(missing?.description.contains("\n") == false)
        try write("C: {ClassName: X}\n")
        try r.load(path: path)
        _ = try r.reload()
        #expect(r.entries.contains { $0.name == "C" })
    }

    /// Environment names a config can never reference are refused in every door that takes a
    /// map, by the `${NAME}` / `{Env: NAME}` name rule.
    @Test func environmentNamesThatCannotBeReferencedAreRefused() throws {
        let r = try registry()
        for bad in ["1BAD", "", "A=B", "A\u{0}B", "A-B", "é"] {
            let env = ["PORT": "80", bad: "x"]
            let e = expectError { try r.load(text: "B: {ClassName: X, Dependencies: {p: \"@${PORT}\"}}\n", environment: env) }
            #expect(e?.code == .invalidArgument, "\(bad.debugDescription)")
            #expect(e?.description.contains("environment: the variable name \(bad.debugDescription)") == true)
            #expect(e?.description.contains("[A-Za-z_][A-Za-z0-9_]*") == true)
            let added = expectError {
                try r.add([EntryDefinition(name: "C", className: "X")], environment: env)
            }
            #expect(added?.code == .invalidArgument)
        }
        #expect(r.entries.count == 1, "nothing was loaded")
        try r.load(text: "B: {ClassName: X, Dependencies: {p: \"@${PORT}\"}}\n", environment: ["PORT": "80", "_a9": ""])
    }

    /// XML 1.0: the XML declaration is the very first bytes of a plist; after whitespace or a
    /// comment it is refused at its line:column.
    @Test func lateXMLDeclarationsAreRefused() throws {
        let r = try registry()
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict/></plist>\n"
        for (prefix, place) in [("\n  ", "p.plist:2:3:"), (" ", "p.plist:1:2:"), ("<!-- c -->", "p.plist:1:11:")] {
            let e = expectError { try r.load(text: prefix + body, format: .plist, file: "p.plist") }
            #expect(e?.code == .syntax)
            #expect(e?.description.hasPrefix(place) == true, "\(e?.description ?? "")")
            #expect(e?.description.contains("very first bytes") == true)
        }
        // A second declaration is not first either.
        let twice = expectError { try r.load(text: "<?xml version=\"1.0\"?>" + body, format: .plist, file: "p.plist") }
        #expect(twice?.code == .syntax)
        // First (also after a BOM), it is read; other processing instructions may follow blanks.
        try r.load(text: body, format: .plist, file: "p.plist")
        try r.load(text: "\u{FEFF}" + body + "", format: .plist, file: "p.plist")
        try r.load(text: body.replacingFirst("\n", with: "\n <?other x?>\n"), format: .plist, file: "p.plist")
    }

    /// Typed reads of an object a class registered with C functions built (a pointer that is not a
    /// Swift object) give nil / a `.type` error, never read it as a Swift object (which crashed);
    /// the receiver's object is destroyed by its class, as an object of another type is released.
    @Test func typedReadsOfObjectsFromCFunctionClassesAreRefused() throws {
        let r = Registry()
        // A C-function class whose objects are small heap blocks, counted when destroyed. (The
        // counter is never freed: the registry's singleton is destroyed, counting, whenever the
        // registry goes, which may be after this function's last statement.)
        nonisolated(unsafe) let destroyed = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        destroyed.initialize(to: 0)
        try r.register(
            className: "CThing",
            HostClass(
                create: { _, _ in
                    let p = malloc(16)!
                    p.storeBytes(of: 0x5EED, as: Int.self)
                    return p
                },
                destroy: { object, counter in
                    free(object)
                    counter!.assumingMemoryBound(to: Int.self).pointee += 1
                }, context: UnsafeMutableRawPointer(destroyed)))
        nonisolated(unsafe) var reads: [String] = []
        try r.register(className: "Reader") { args in
            reads = [
                args["c"]?.object(as: Thing.self) == nil ? "object nil" : "object read",
                args["c"]?.take(as: Thing.self) == nil ? "take nil" : "take read",
                args["s"]?.object(as: Thing.self) == nil ? "singleton nil" : "singleton read",
                args["g"]?.object(as: Thing.self) == nil ? "graph nil" : "graph read",
                args["all"]?.objects(as: Thing.self) == nil ? "tagged nil" : "tagged read",
                args["c"]?.object == nil ? "raw nil" : "raw read",
                {
                    if case .object(let o)? = args["c"]?.value, !o.isSwiftObject { return "value not swift" } else { return "?" }
                }(),
            ]
            return Thing()
        }
        try r.load(
            text: """
                C: {ClassName: CThing, Tag: t}
                S: {ClassName: CThing, Lifestyle: singleton}
                G: {ClassName: CThing, Lifestyle: graph}
                R: {ClassName: Reader, Dependencies: {c: C, s: S, g: G, all: {Tagged: t}}}
                """)
        _ = try r.create("R", as: Thing.self)
        #expect(
            reads == [
                "object nil", "take nil", "singleton nil", "graph nil", "tagged nil", "raw read", "value not swift",
            ])
        let before = destroyed.pointee
        let e = expectError { _ = try r.create("C", as: Thing.self) }
        #expect(e?.code == .type)
        #expect(e?.description.contains("class registered with C functions, not a Swift object") == true)
        #expect(e?.description.contains("it was destroyed") == true)
        #expect(destroyed.pointee == before + 1)
        let singleton = expectError { _ = try r.create("S", as: Thing.self) }
        #expect(singleton?.code == .type)
        #expect(singleton?.description.contains("the registry keeps it") == true)
        // By convention (no entry): the class of that name.
        let convention = expectError { _ = try r.create("CThing", as: Thing.self) }
        #expect(convention?.code == .type)
        #expect(destroyed.pointee == before + 2)
        // A raw pointer in props is not read as a Swift object either; a wrapped Swift object is.
        let thing = Thing()
        nonisolated(unsafe) var props: [Bool] = []
        try r.register(className: "PropsReader") { args in
            props = [args["raw"]?.object(as: Thing.self) != nil, args["swift"]?.object(as: Thing.self) === thing]
            return Thing()
        }
        try r.load(text: "P: PropsReader\n")
        _ = try r.create(
            "P",
            props: [
                "raw": .object(ObjectReference(Unmanaged.passUnretained(thing).toOpaque())),
                "swift": .object(ObjectReference(thing)),
            ], as: Thing.self)
        #expect(props == [false, true])
        // Swift classes' objects are still read (and created typed).
        try r.register(className: "SwiftThing") { _ in Thing() }
        try r.load(text: "W: SwiftThing\nWS: {ClassName: SwiftThing, Lifestyle: singleton}\n")
        _ = try r.create("W", as: Thing.self)
        _ = try r.create("WS", as: Thing.self)
        let reference = try r.createReference("W")
        #expect(reference.isSwiftObject)
        Unmanaged<Thing>.fromOpaque(reference.pointer!).release()
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = firstRange(of: target) else { return self }
        return String(self[..<r.lowerBound]) + replacement + String(self[r.upperBound...])
    }
}
