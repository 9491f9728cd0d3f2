import ControllerReg
import Testing

@Suite("The shared registry")
struct SharedRegistryTests {
    /// `Registry.shared` is the process's (C's `cr_create` uses it too): closing it from Swift does
    /// nothing, so it keeps its classes and entries and creates keep working.
    @Test func closingTheSharedRegistryDoesNothing() throws {
        let shared = Registry.shared
        let name = "SharedCloseProbe"
        if !shared.hasClass(name) { try registerWidgets(shared, [name]) }
        shared.close()
        #expect(!shared.isClosed)
        #expect(shared.hasClass(name))
        #expect(throws: Never.self) { _ = try shared.create(name, as: Widget.self) }
    }

    /// Any other registry closes for good.
    @Test func closingAnotherRegistryEndsItsCreates() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        r.close()
        #expect(r.isClosed)
        #expect(throws: ConfigError.self) { _ = try r.create("W", as: Widget.self) }
    }
}
