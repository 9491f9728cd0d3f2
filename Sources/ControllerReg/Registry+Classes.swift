/// Registering host classes and name templates.
extension Registry {
    /// Registers `host` under `className`. Registering a name twice is an error (`.classExists`);
    /// use `replaceClass` to replace deliberately. On failure `host.release` is called.
    public func register(className: String, _ host: HostClass) throws(ConfigError) {
        try registerClass(className, host, replace: false)
    }

    /// Registers a class whose objects are Swift objects built by `create`, which takes over the
    /// objects built for it with `args["key"]?.take(as: T.self)` (see `HostClass.swift`).
    public func register(
        className: String, create: @escaping @Sendable (_ args: ValueRef) throws -> AnyObject
    ) throws(ConfigError) {
        try register(className: className, .swift(create: create))
    }

    /// Registers `host` under `className`, replacing a class already registered under that name.
    public func replaceClass(_ className: String, _ host: HostClass) throws(ConfigError) {
        try registerClass(className, host, replace: true)
    }

    /// Whether a class is registered under `className` (here or in a parent).
    public func hasClass(_ className: String) -> Bool {
        cell.read { s in s.classes.lookup.find(className) >= 0 }
    }

    private func registerClass(_ className: String, _ host: HostClass, replace: Bool) throws(ConfigError) {
        if className.isEmpty || className.utf8.contains(0) {
            host.release?()
            throw ConfigError(
                .invalidArgument,
                className.isEmpty
                    ? "the class name is empty: register the class under a non-empty name (the name entries give as ClassName)"
                    : "the class name \(className.debugDescription) holds a NUL byte, which no C string can name: remove it")
        }
        let record = ClassRecord(name: className, host: host)
        try change { (c) throws(ConfigError) in
            let slot = c.classSlot(for: className)
            if !replace, c.ownRecords[slot] != nil {
                throw ConfigError(
                    .classExists,
                    "class '\(className)' is already registered: to replace it on purpose, use the replace call"
                        + " (cr_replace_class; replaceClass in Swift; replace_class in C++; replace=True in Python)")
            }
            c.ownRecords[slot] = record
        }
    }

    /// Adds a class-name template such as `"{name}ViewController"`, tried (in the order added) for
    /// a name that is neither an entry nor a registered class. A template added again keeps its first
    /// place and is tried (and named in messages) once. What a template may be: `NameTemplate`
    /// (`{name}` once, with other text; no other brace); anything else is `.invalidArgument`.
    public func addNameTemplate(_ template: String) throws(ConfigError) {
        if let problem = NameTemplate.problem(template) {
            throw ConfigError(.invalidArgument, "the name template \(template.debugDescription) \(problem)")
        }
        try change { (c) throws(ConfigError) in
            if !c.templates.contains(template) { c.templates.append(template) }
        }
    }
}
