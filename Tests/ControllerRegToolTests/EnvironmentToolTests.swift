import ControllerReg
import ControllerRegTool
import Testing

/// `check --env-file`, `explain` of environment values, `convert` keeping them as written, and the
/// dotenv format (issue 16 items 3 and 6).
@Suite struct EnvironmentToolTests {
    static let config = """
        Api:
          ClassName: ApiClient
          Dependencies:
            url: "@https://${API_HOST}:${API_PORT:-443}/v1"
            port: {Env: API_PORT, Type: int, Default: 443}
            debug: {Env: API_DEBUG, Type: bool}

        """

    @Test func checkAgainstAnEnvFileOnly() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/app.yaml", Self.config)
        writeFile(dir + "/ci.env", "# CI\nAPI_HOST=ci.example\n\n  # indented comment\nAPI_PORT=\"8443\"\nAPI_DEBUG=1\r\n")
        let ok = try runTool(["check", "--env-file", dir + "/ci.env", dir + "/app.yaml"])
        #expect(ok.status == 0)
        #expect(ok.stdout == dir + "/app.yaml: OK, 1 entry\n")
        // Only the file counts: what it lacks is reported with its place, every problem at once.
        writeFile(dir + "/partial.env", "API_PORT=eighty\n")
        let bad = try runTool(["check", "--env-file", dir + "/partial.env", dir + "/app.yaml"])
        #expect(bad.status == 1)
        let lines = bad.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                dir
                    + "/app.yaml:4:10: error: entry 'Api', key 'url': environment variable API_HOST is not set (in '@https://${API_HOST}:${API_PORT:-443}/v1'): set API_HOST or give a default: ${API_HOST:-value} [environment]",
                dir
                    + "/app.yaml:5:17: error: entry 'Api', key 'port': environment variable API_PORT is 'eighty', not an integer: set API_PORT to an integer (or unset it to use the default 443) [environment]",
                dir
                    + "/app.yaml:6:18: error: entry 'Api', key 'debug': environment variable API_DEBUG is not set: set API_DEBUG or give a default: {Env: API_DEBUG, Type: bool, Default: ...} [environment]",
                dir + "/app.yaml: 3 problems",
            ])
        let json = try runTool(["check", "--env-file", dir + "/partial.env", dir + "/app.yaml", "--format", "json"])
        #expect(json.stdout.contains("\"line\": 5, \"column\": 17, \"code\": \"environment\", \"status\": 15"))
    }

    @Test func malformedEnvFileIsAUsageErrorWithItsLine() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/app.yaml", Self.config)
        for (text, message) in [
            ("A=1\nbroken line\n", "/bad.env:2: expected NAME=value, found 'broken line'"),
            ("1A=x\n", "/bad.env:1: '1A' is not a variable name"),
            ("A B=x\n", "/bad.env:1: 'A B' is not a variable name"),
        ] {
            writeFile(dir + "/bad.env", text)
            let r = try runTool(["check", "--env-file", dir + "/bad.env", dir + "/app.yaml"])
            #expect(r.status == 2, "\(text)")
            #expect(r.stderr.contains(dir + message), "\(r.stderr)")
        }
    }

    @Test func dotenvValues() throws {
        let vars = try EnvFile.parse(
            "A=plain # not a comment\nB='single'\nC=\"double\"\nD=\nE==x\nA=again\nF=\"unclosed\n", file: "f")
        #expect(vars == ["A": "again", "B": "single", "C": "double", "D": "", "E": "=x", "F": "\"unclosed"])
    }

    @Test func explainShowsEnvironmentValuesAndSubstitutedStrings() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/app.yaml", Self.config)
        writeFile(dir + "/ci.env", "API_HOST=ci.example\nAPI_DEBUG=false\n")
        let r = try runTool(["explain", "--env-file", dir + "/ci.env", dir + "/app.yaml", "Api"])
        #expect(r.status == 0)
        #expect(
            r.stdout.contains("├─ url: \"@https://${API_HOST}:${API_PORT:-443}/v1\" = \"https://ci.example:443/v1\" (string)\n"))
        #expect(r.stdout.contains("├─ port: API_PORT (int, default 443) = 443 (int)\n"))
        #expect(r.stdout.contains("└─ debug: API_DEBUG (bool) = false (bool)\n"))
    }

    @Test func convertKeepsTheFormsAsWritten() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/app.yaml", Self.config)
        let json = try runTool(["convert", dir + "/app.yaml", "--to", "json"])
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"url\": \"@https://${API_HOST}:${API_PORT:-443}/v1\""))
        #expect(json.stdout.contains("\"Env\": \"API_PORT\""))
        // The converted config reads back to the same definitions (forms unresolved).
        let r1 = Registry(), r2 = Registry()
        let env = ["API_HOST": "h", "API_DEBUG": "0"]
        try r1.load(text: Self.config, format: .yaml, environment: env)
        try r2.load(text: json.stdout, format: .json, environment: env)
        #expect(r1.entries == r2.entries)
    }
}
