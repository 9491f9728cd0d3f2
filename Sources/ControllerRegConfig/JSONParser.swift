/// Parses JSON config text into a ConfigDocument. (Placeholder: implemented in its own change.)
enum JSONParser {
    static func parse(_ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits) throws(ConfigError) -> ConfigDocument {
        throw ConfigError(.syntax, "\(file): the JSON loader is not implemented yet")
    }
}
