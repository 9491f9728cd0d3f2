import ControllerReg
import Testing

/// Inputs an outside tester found accepted or misplaced, refused through the Swift API with a
/// typed error that names the place, the thing and the fix (the C ABI's tests: host-tests/c
/// test_edges.c; the same rules, the same functions).
@Suite("Edge inputs refused")
struct EdgeInputTests {
    final class Thing {}

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
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = firstRange(of: target) else { return self }
        return String(self[..<r.lowerBound]) + replacement + String(self[r.upperBound...])
    }
}
