import CControllerRegHeader
import ControllerReg
import ControllerRegC
import Testing

// `cr_add_entry_with`: an entry added from C says what a config's may (description, tags, Eager),
// and the registry holds the same definition as for the config text.
@Suite("C ABI entry options")
struct EntryOptionsTests {
    @Test func tagsDescriptionAndEagerReachTheDefinition() throws {
        let reg = ControllerRegC.cr_registry_new()
        defer { ControllerRegC.cr_registry_free(reg) }
        let registry = Unmanaged<Registry>.fromOpaque(UnsafeRawPointer(reg!)).takeUnretainedValue()
        let tags = ControllerRegC.cr_list_new()
        defer { ControllerRegC.cr_value_free(tags) }
        #expect(ControllerRegC.cr_list_push_string(tags, "screen") == 0)
        #expect(ControllerRegC.cr_list_push_int(tags, 5) == 0)
        var options = cr_entry_options(
            version: UInt32(CR_ENTRY_OPTIONS_VERSION), lifestyle: cr_lifestyle(rawValue: 1), dependencies: nil,
            description: nil, tags: tags, eager: 1)
        let status = "The start screen".withCString { d in
            options.description = d
            return ControllerRegC.cr_add_entry_with(reg, "Start", "StartScreen", &options)
        }
        #expect(status == 0)
        try registry.load(
            text:
                "Loaded: {ClassName: StartScreen, Description: The start screen, Tag: [screen, 5], Lifestyle: singleton, Eager: true}"
        )
        var fromC = try #require(registry.entry(named: "Start"))
        let fromText = try #require(registry.entry(named: "Loaded"))
        fromC.name = fromText.name
        #expect(fromC == fromText)
    }

    @Test func badOptionsAreRefusedAndChangeNothing() {
        let reg = ControllerRegC.cr_registry_new()
        defer { ControllerRegC.cr_registry_free(reg) }
        let registry = Unmanaged<Registry>.fromOpaque(UnsafeRawPointer(reg!)).takeUnretainedValue()
        let map = ControllerRegC.cr_map_new()
        defer { ControllerRegC.cr_value_free(map) }
        var options = cr_entry_options(
            version: UInt32(CR_ENTRY_OPTIONS_VERSION), lifestyle: cr_lifestyle(rawValue: 0), dependencies: nil,
            description: nil, tags: map, eager: 0)
        #expect(ControllerRegC.cr_add_entry_with(reg, "E", "C", &options) == 1)
        options.tags = nil
        options.eager = 1
        #expect(ControllerRegC.cr_add_entry_with(reg, "E", "C", &options) == 1)
        options.eager = 0
        options.version = 0
        #expect(ControllerRegC.cr_add_entry_with(reg, "E", "C", &options) == 1)
        #expect(registry.entries.isEmpty)
        #expect(ControllerRegC.cr_add_entry_with(reg, "E", "C", nil) == 0)
        #expect(registry.entry(named: "E")?.lifestyle == .transient)
    }
}
