import ControllerReg

/// `--env-file FILE` (check, explain): the environment a config is checked against, from a file
/// instead of the process, so CI gets the same result on every machine. The process environment is
/// not consulted at all when a file is given.
///
/// Format (dotenv-style), one variable a line:
/// - `NAME=value`: `NAME` is `[A-Za-z_][A-Za-z0-9_]*` (no spaces around it); the value is the rest
///   of the line as it is (spaces kept, `#` included), except that a value wholly enclosed in one
///   pair of `"` or `'` loses them (nothing inside is unescaped). A later line for the same name
///   replaces an earlier one.
/// - Blank lines, and lines whose first non-blank character is `#`, are ignored. A trailing CR
///   (CRLF files) is dropped.
/// - Anything else is a usage error naming the file and line (exit status 2).
public enum EnvFile {
    /// The variables of the file at `path`.
    public static func read(_ path: String) throws(ToolError) -> [String: String] {
        let bytes: [UInt8]
        do { bytes = try ConfigLoader.readFile(path) } catch { throw ToolError(error) }
        return try parse(String(decoding: bytes, as: UTF8.self), file: path)
    }

    /// The variables of dotenv text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ToolError) -> [String: String] {
        var out: [String: String] = [:]
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = rawLine
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.first == "#" { continue }
            guard let eq = line.firstIndex(of: "=") else {
                throw ToolError(
                    "\(file):\(number): expected NAME=value, found \(shown(line)) (comments start with #)", status: .usage)
            }
            let name = line[..<eq]
            guard EnvValue.isValidName(name) else {
                throw ToolError(
                    "\(file):\(number): \(shown(name)) is not a variable name: use letters, digits and '_', not starting with a digit, with no spaces before '='",
                    status: .usage)
            }
            var value = line[line.index(after: eq)...]
            if value.count >= 2, let q = value.first, q == "\"" || q == "'", value.last == q {
                value = value.dropFirst().dropLast()
            }
            out[String(name)] = String(value)
        }
        return out
    }

    private static func shown(_ text: Substring) -> String {
        "'" + (text.count <= 40 ? String(text) : String(text.prefix(40)) + "…") + "'"
    }
}
