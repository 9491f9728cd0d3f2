/// Parses Plist config text into a ConfigDocument. (Placeholder: implemented in its own change.)
enum PlistParser {
    static func parse(_ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits) throws(ConfigError) -> ConfigDocument {
        throw ConfigError(.syntax, "\(file): the Plist loader is not implemented yet")
    }
}
