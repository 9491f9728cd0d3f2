import ControllerReg
import Synchronization

/// An object the test classes build: its class, its arguments as values; when given a log, it
/// records "~ClassName" there when it is destroyed.
final class Widget: @unchecked Sendable {
    let className: String
    let args: [String: Value]
    let children: [String: Widget]
    let log: CallLog?

    init(className: String, args: ValueRef, log: CallLog? = nil) {
        self.className = className
        var values: [String: Value] = [:]
        var children: [String: Widget] = [:]
        for key in args.keys {
            let v = args[key]!
            values[key] = v.value
            if let w = v.object(as: Widget.self) { children[key] = w }
        }
        self.args = values
        self.children = children
        self.log = log
    }

    deinit { log?.record("~" + className) }
}

/// Counts constructor calls per class.
final class CallLog: @unchecked Sendable {
    private let calls = Mutex<[String]>([])
    func record(_ name: String) { calls.withLock { $0.append(name) } }
    var all: [String] { calls.withLock { $0 } }
    func count(_ name: String) -> Int { all.filter { $0 == name }.count }
}

/// Registers a Widget-building class for every name given.
func registerWidgets(_ registry: Registry, _ names: [String], log: CallLog? = nil, failing: Set<String> = []) throws {
    for name in names {
        try registry.register(className: name) { args in
            log?.record(name)
            if failing.contains(name) { throw TestFailure(message: "\(name) refuses") }
            return Widget(className: name, args: args, log: log)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Runs `body` expecting a ConfigError; returns it (or nil if nothing was thrown).
func expectError(_ body: () throws -> Void) -> ConfigError? {
    do {
        try body()
        return nil
    } catch let e as ConfigError {
        return e
    } catch {
        return nil
    }
}

/// The Tests/Fixtures directory, found from this file's path.
func fixturePath(_ name: String, file: StaticString = #filePath) -> String {
    var path = "\(file)"
    while !path.hasSuffix("/Tests") { path.removeLast() }
    return path + "/Fixtures/" + name
}

let exampleYAML = """
    Test1:
      ClassName: Test1ViewController
      Dependencies:
        dependentString: "@Yes, you can inject a string using the config file"
        dependentInt: 1000
        dependentBool: true
        test2ViewController: Test2
    Test2: Test2ViewController
    """
