import ControllerReg
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A directory of config files a test edits between a load and a reload.
final class ConfigDir: Sendable {
    let path = "/tmp/controllerreg-reload-\(getpid())-\(UInt32.random(in: 0 ... .max))"
    init() { mkdir(path, 0o700) }
    deinit {
        for name in (try? names()) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }
    /// Writes `text` to `name` (replacing it); returns the file's path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        let f = fopen(file, "w")!
        fputs(text, f)
        fclose(f)
        return file
    }
    func remove(_ name: String) { unlink(path + "/" + name) }
    func file(_ name: String) -> String { path + "/" + name }
    private func names() throws -> [String] {
        guard let d = opendir(path) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let n = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if n != "." && n != ".." { out.append(n) }
        }
        return out
    }
}

/// Reloads `r` (nothing edited) until `done()`: a reload destroys the singletons it dropped once no
/// create runs in the process (epochs are process-wide, and other suites create on other threads
/// meanwhile), else the next change does. Bounded, for a broken build not to hang.
func settle(_ r: Registry, until done: () -> Bool) throws {
    var tries = 0
    while !done() && tries < 10_000 {
        sched_yield()
        _ = try r.reload()
        tries += 1
    }
}

@Suite("Reload", .serialized)
struct ReloadTests {
    @Test func aFileEditedAfterTheLoadIsReadAgainAndTheChangesListed() throws {
        let dir = ConfigDir()
        dir.write(
            "app.yaml",
            """
            Keep: {ClassName: W, Dependencies: {n: 1}}
            Edit: {ClassName: W, Dependencies: {n: 1}}
            Gone: W
            """)
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(path: dir.file("app.yaml"))
        dir.write(
            "app.yaml",
            """
            Keep: {ClassName: W, Dependencies: {n: 1}}
            Edit: {ClassName: W, Dependencies: {n: 2}}
            New: W
            """)
        let changes = try r.reload()
        #expect(changes == ReloadChanges(added: ["New"], removed: ["Gone"], changed: ["Edit"]))
        #expect(try r.create("Edit", as: Widget.self).args["n"] == .int(2))
        #expect(expectError { _ = try r.create("Gone") }?.code == .notFound)
        _ = try r.create("New")
        // Nothing edited since: nothing changes.
        #expect(try r.reload().isEmpty)
    }

    @Test func onlySourceLocationsMovingIsNoChange() throws {
        let dir = ConfigDir()
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {b: B}}\nB: W\n")
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(path: dir.file("a.yaml"))
        dir.write("a.yaml", "# a comment moves everything down\n\nB: W\nA:\n  ClassName: W\n  Dependencies: {b: B}\n")
        #expect(try r.reload().isEmpty)
    }

    @Test func aRegistryWithNothingLoadedReloadsToItself() throws {
        let r = Registry()
        #expect(try r.reload() == ReloadChanges())
    }

    @Test func aFailedReloadChangesNothingAndReportsEveryProblem() throws {
        let dir = ConfigDir()
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {b: B}}\nB: {ClassName: W, Lifestyle: singleton}\n")
        dir.write("b.yaml", "C: W\n")
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(path: dir.file("a.yaml"))
        try r.load(path: dir.file("b.yaml"))
        let singleton = try r.create("B")
        let before = r.entries
        // A missing reference in one file and a cycle in the other: both reported, nothing changes.
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {b: Nope}}\nB: {ClassName: W, Lifestyle: singleton}\n")
        dir.write("b.yaml", "C: {ClassName: W, Dependencies: {d: D}}\nD: {ClassName: W, Dependencies: {c: C}}\n")
        let error = expectError { _ = try r.reload() }
        #expect(error?.diagnostics.count == 2)
        #expect(error?.diagnostics.contains { $0.code == .missingReference && $0.message.contains("'Nope'") } == true)
        #expect(
            error?.diagnostics.contains { $0.code == .cycle && $0.message.contains("C -> D -> C") && $0.location != nil } == true)
        #expect(r.entries == before)
        #expect(try r.create("B") == singleton)

        // A syntax error: its place is reported; still nothing changes.
        dir.write("b.yaml", "C: [unclosed\n")
        let syntax = expectError { _ = try r.reload() }
        #expect(syntax?.diagnostics.contains { $0.code == .syntax && $0.location?.file == dir.file("b.yaml") } == true)
        #expect(r.entries == before)

        // A file gone: an I/O error naming it.
        dir.remove("b.yaml")
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {b: B}}\nB: {ClassName: W, Lifestyle: singleton}\n")
        let gone = expectError { _ = try r.reload() }
        #expect(gone?.code == .io)
        #expect(gone?.description.contains("b.yaml") == true)
        #expect(r.entries == before)
        #expect(try r.create("B") == singleton)
    }

    @Test func everyProblemOfFilesLoadedTogetherIsReported() throws {
        let dir = ConfigDir()
        dir.write("a.yaml", "A: W\n")
        dir.write("b.yaml", "B: W\n")
        let r = Registry()
        try r.load(paths: [dir.file("a.yaml"), dir.file("b.yaml")])
        // A schema problem in one file does not hide the other's missing reference.
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {x: Missing}}\n")
        dir.write("b.yaml", "B: {ClassName: 5}\n")
        let error = expectError { _ = try r.reload() }
        #expect(error?.code == .schema)
        #expect(error?.diagnostics.count == 2)
        #expect(error?.diagnostics.contains { $0.code == .missingReference && $0.message.contains("'Missing'") } == true)
    }

    @Test func aReferenceMayReachAnEntryALaterStepDefines() throws {
        let dir = ConfigDir()
        dir.write("first.yaml", "A: W\n")
        dir.write("second.yaml", "C: W\n")
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(path: dir.file("first.yaml"))
        try r.load(path: dir.file("second.yaml"))
        // The whole result is validated: A may now refer to C, which the second file defines.
        dir.write("first.yaml", "A: {ClassName: W, Dependencies: {c: C}}\n")
        #expect(try r.reload() == ReloadChanges(changed: ["A"]))
        #expect(try r.create("A", as: Widget.self).children["c"]?.className == "W")
        // A cycle across the two files is still found.
        dir.write("second.yaml", "C: {ClassName: W, Dependencies: {a: A}}\n")
        #expect(expectError { _ = try r.reload() }?.diagnostics.contains { $0.message.contains("A -> C -> A") } == true)
    }

    @Test func filesLoadedTogetherAreReloadedTogether() throws {
        let dir = ConfigDir()
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {b: B}}\n")
        dir.write("b.yaml", "B: W\n")
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(paths: [dir.file("a.yaml"), dir.file("b.yaml")])
        // Each now refers to the other's new entry: valid only as one transaction.
        dir.write("a.yaml", "A: {ClassName: W, Dependencies: {b: B}}\nA2: {ClassName: W, Dependencies: {b: B2}}\n")
        dir.write("b.yaml", "B: W\nB2: {ClassName: W, Dependencies: {a: A}}\n")
        #expect(try r.reload() == ReloadChanges(added: ["A2", "B2"]))
        _ = try r.create("A2")
    }

    @Test func theHistoryIsReplayedInOrderWithItsModes() throws {
        let dir = ConfigDir()
        let r = Registry()
        try registerWidgets(r, ["W", "V"])
        // Text first, then a file overriding one of its entries, code additions and a removal.
        try r.load(text: "X: {ClassName: W, Dependencies: {from: '@text'}}\nY: W\nZ: W\n")
        dir.write("over.yaml", "X: {ClassName: W, Dependencies: {from: '@file'}}\n")
        try r.load(path: dir.file("over.yaml"), mode: .override)
        try r.add([
            EntryDefinition(name: "Code", className: "V", dependencies: [Dependency(key: "x", value: .reference("X", at: nil))])
        ])
        try r.remove(entriesNamed: ["Z"])
        #expect(try r.reload().isEmpty)
        #expect(Set(r.entries.map(\.name)) == ["X", "Y", "Code"])
        #expect(try r.create("X", as: Widget.self).args["from"] == .string("file"))

        // The file no longer overrides X: the text's X comes back (it was replaced, not lost).
        dir.write("over.yaml", "Other: W\n")
        #expect(try r.reload() == ReloadChanges(added: ["Other"], changed: ["X"]))
        #expect(try r.create("X", as: Widget.self).args["from"] == .string("text"))
        #expect(r.entry(named: "Z") == nil)

        // The file's override mode is kept: it may redefine the text's Y.
        dir.write("over.yaml", "Other: W\nY: V\n")
        #expect(try r.reload() == ReloadChanges(changed: ["Y"]))

        // A file loaded in add mode that now redefines a name: a duplicate, as the load would be.
        dir.write("extra.yaml", "E: W\n")
        try r.load(path: dir.file("extra.yaml"))
        dir.write("extra.yaml", "E: W\nOther: W\n")
        let error = expectError { _ = try r.reload() }
        #expect(error?.code == .duplicate)
        #expect(error?.description.contains("extra.yaml:2:1") == true)
        #expect(r.entry(named: "Y")?.className == "V")
    }

    @Test func singletonsOfChangedAndRemovedEntriesAreDestroyedUnchangedOnesKept() throws {
        let dir = ConfigDir()
        let log = CallLog()
        let r = Registry()
        try registerWidgets(r, ["Kept", "Edited", "Removed", "Wired", "Leaf"], log: log)
        dir.write(
            "s.yaml",
            """
            Kept: {ClassName: Kept, Lifestyle: singleton}
            Leaf: {ClassName: Leaf, Dependencies: {n: 1}}
            Wired: {ClassName: Wired, Lifestyle: singleton, Dependencies: {leaf: Leaf, later: {Provider: Edited}}}
            Edited: {ClassName: Edited, Lifestyle: singleton, Dependencies: {n: 1}}
            Removed: {ClassName: Removed, Lifestyle: singleton}
            """)
        try r.load(path: dir.file("s.yaml"))
        let kept = try r.create("Kept")
        for name in ["Removed", "Wired", "Edited"] { _ = try r.create(name) }
        dir.write(
            "s.yaml",
            """
            Kept: {ClassName: Kept, Lifestyle: singleton}
            Leaf: {ClassName: Leaf, Dependencies: {n: 2}}
            Wired: {ClassName: Wired, Lifestyle: singleton, Dependencies: {leaf: Leaf, later: {Provider: Edited}}}
            Edited: {ClassName: Edited, Lifestyle: singleton, Dependencies: {n: 2}}
            """)
        // Wired's definition is the same, but its object holds a Leaf built from the old config:
        // it is changed too. A provider is not wiring (it creates from the current config).
        let changes = try r.reload()
        #expect(changes == ReloadChanges(removed: ["Removed"], changed: ["Edited", "Leaf", "Wired"]))
        try settle(r) { log.count("~Removed") > 0 }
        // Destroyed in reverse order of creation; the kept one is not.
        #expect(log.all.filter { $0.hasPrefix("~") } == ["~Edited", "~Wired", "~Leaf", "~Removed"])
        #expect(try r.create("Kept") == kept)
        #expect(try r.create("Edited", as: Widget.self).args["n"] == .int(2))
        let wired = try r.create("Wired", as: Widget.self)
        #expect(wired.children["leaf"]?.args["n"] == .int(2))
    }

    @Test func singletonsWiredThroughTaggedListsAndOptionalReferencesAreChangedWithThem() throws {
        let dir = ConfigDir()
        let log = CallLog()
        let r = Registry()
        try registerWidgets(r, ["Menu", "Maybe", "Screen", "Still"], log: log)
        dir.write(
            "forms.yaml",
            """
            Menu: {ClassName: Menu, Lifestyle: singleton, Dependencies: {screens: {Tagged: screen}}}
            Maybe: {ClassName: Maybe, Lifestyle: singleton, Dependencies: {extra: {Optional: Extra}}}
            Still: {ClassName: Still, Lifestyle: singleton, Dependencies: {screens: {Tagged: other}}}
            Home: {ClassName: Screen, Tag: screen}
            """)
        try r.load(path: dir.file("forms.yaml"))
        do {
            let menu = try r.create("Menu", as: Widget.self)
            #expect(menu.args["screens"].map { if case .list(let l) = $0 { l.count } else { -1 } } == 1)
            #expect(try r.create("Maybe", as: Widget.self).children["extra"] == nil)
        }
        let still = try r.create("Still")
        // A new entry with the tag changes Menu's list; Extra now exists for Maybe's optional
        // reference: both singletons hold old wiring. Still's tag has no new member.
        dir.write(
            "forms.yaml",
            """
            Menu: {ClassName: Menu, Lifestyle: singleton, Dependencies: {screens: {Tagged: screen}}}
            Maybe: {ClassName: Maybe, Lifestyle: singleton, Dependencies: {extra: {Optional: Extra}}}
            Still: {ClassName: Still, Lifestyle: singleton, Dependencies: {screens: {Tagged: other}}}
            Home: {ClassName: Screen, Tag: screen}
            Settings: {ClassName: Screen, Tag: [screen, other2]}
            Extra: Screen
            """)
        #expect(try r.reload() == ReloadChanges(added: ["Extra", "Settings"], changed: ["Maybe", "Menu"]))
        try settle(r) { log.count("~Maybe") > 0 && log.count("~Menu") > 0 }
        #expect(log.count("~Maybe") == 1 && log.count("~Menu") == 1)
        #expect(log.count("~Still") == 0)
        #expect(try r.create("Still") == still)
        let rebuilt = try r.create("Menu", as: Widget.self)
        #expect(rebuilt.args["screens"].map { if case .list(let l) = $0 { l.count } else { -1 } } == 2)
        #expect(try r.create("Maybe", as: Widget.self).children["extra"] != nil)
    }

    @Test func aSingletonIsNotDestroyedWhileACreateThatCanReachItIsRunning() throws {
        let dir = ConfigDir()
        let log = CallLog()
        let r = Registry()
        try registerWidgets(r, ["S"], log: log)
        dir.write("s.yaml", "Service: {ClassName: S, Lifestyle: singleton, Dependencies: {v: 1}}\n")
        try r.load(path: dir.file("s.yaml"))
        // A create callback reloads: its own create is still inside the old state, so the old
        // singleton survives the reload and goes when the next change finds no create running.
        let seenInside = CallLog()
        try r.register(className: "Reloader") { args in
            dir.write("s.yaml", "Service: {ClassName: S, Lifestyle: singleton, Dependencies: {v: 2}}\n")
            let changes = try r.reload()
            for line in log.all { seenInside.record(line) }
            #expect(changes.changed == ["Service"])
            return Widget(className: "Reloader", args: args)
        }
        try r.add([
            EntryDefinition(
                name: "R", className: "Reloader", dependencies: [Dependency(key: "s", value: .reference("Service", at: nil))])
        ])
        do { _ = try r.create("R", as: Widget.self) }
        #expect(seenInside.count("~S") == 0)
        #expect(log.count("~S") == 0)
        try r.add([EntryDefinition(name: "Later", className: "S")])
        try settle(r) { log.count("~S") > 0 }
        #expect(log.count("~S") == 1)
        #expect(try r.create("Service", as: Widget.self).args["v"] == .int(2))
    }

    @Test func aChildFollowsItsParentsReloadAndReloadsItsOwnFiles() throws {
        let dir = ConfigDir()
        let log = CallLog()
        let parent = Registry()
        try registerWidgets(parent, ["P", "C", "Own"], log: log)
        dir.write("parent.yaml", "Service: {ClassName: P, Dependencies: {v: 1}}\nStable: {ClassName: P, Lifestyle: singleton}\n")
        try parent.load(path: dir.file("parent.yaml"))
        let child = Registry(parent: parent)
        dir.write(
            "child.yaml",
            "Screen: {ClassName: C, Lifestyle: singleton, Dependencies: {s: Service}}\nSolo: {ClassName: Own, Lifestyle: singleton}\n"
        )
        try child.load(path: dir.file("child.yaml"))
        let solo = try child.create("Solo")
        _ = try child.create("Screen")
        let stable = try child.create("Stable")

        // The parent's reload reaches the child: its singleton wired to the changed entry is
        // destroyed, its unchanged one kept; the parent's unchanged singleton is kept.
        dir.write("parent.yaml", "Service: {ClassName: P, Dependencies: {v: 2}}\nStable: {ClassName: P, Lifestyle: singleton}\n")
        #expect(try parent.reload() == ReloadChanges(changed: ["Service"]))
        try settle(child) { log.count("~C") > 0 }
        #expect(log.count("~C") == 1)
        #expect(try child.create("Solo") == solo)
        #expect(try child.create("Stable") == stable)
        #expect(try child.create("Screen", as: Widget.self).children["s"]?.args["v"] == .int(2))

        // A parent reload that would break the child is refused; nothing changes anywhere.
        dir.write("parent.yaml", "Stable: {ClassName: P, Lifestyle: singleton}\n")
        let broken = expectError { _ = try parent.reload() }
        #expect(broken?.description.contains("child registry") == true)
        #expect(parent.entry(named: "Service") != nil)

        // The child's reload reads the child's own file again (the parent's edit stays unread).
        dir.write("child.yaml", "Screen: {ClassName: C, Lifestyle: singleton, Dependencies: {s: Service}}\n")
        #expect(try child.reload() == ReloadChanges(removed: ["Solo"]))
        try settle(child) { log.count("~Own") > 0 }
        #expect(log.count("~Own") == 1)
        #expect(parent.entry(named: "Service") != nil)
    }
}
