/// Parses YAML config text into a ConfigDocument. (Placeholder: implemented in its own change.)
enum YAMLParser {
    static func parse(_ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits) throws(ConfigError) -> ConfigDocument {
        throw ConfigError(.syntax, "\(file): the YAML loader is not implemented yet")
    }
}
