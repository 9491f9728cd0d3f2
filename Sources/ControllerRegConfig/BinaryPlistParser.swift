/// Placeholder, replaced in the next change.
enum BinaryPlistParser {
    static func parse(_ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits) throws(ConfigError) -> ConfigDocument {
        throw ConfigError(.syntax, "binary plists are not implemented yet", at: SourceLocation(file: file, line: 0, column: 0))
    }
}
