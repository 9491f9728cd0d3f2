import ArgumentParser
import ControllerReg
import ControllerRegTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

let exitCodesHelp = """
    Exit status: 0 success (check: no problem), 1 problems found or the operation failed, \
    2 the command line is wrong.
    """

@main
struct Controllerreg: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controllerreg",
        abstract: "Check, inspect and convert controllerreg config files.",
        discussion: """
            Every subcommand reads configs with the library's own loaders and schema (YAML, JSON, \
            plist), so it reports exactly what an application loading them would.

            \(exitCodesHelp)
            """,
        version: ToolVersion.string,
        subcommands: [Check.self, Gen.self, Graph.self, Convert.self, Explain.self, Diff.self]
    )

    /// Parses, runs, and exits with the documented status: usage errors are 2 (ArgumentParser
    /// would use 64), tool failures 1, help and version 0.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
            terminate(0)
        } catch let error as ToolError {
            Output.report(error)
            terminate(error.status.rawValue)
        } catch let error as ExitWith {
            terminate(error.status.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)  // help, --version
            }
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            if code == .validationFailure {
                Output.stderr(Output.errorPrefix() + message + "\n")
                terminate(ExitStatus.usage.rawValue)
            }
            Output.stderr(Output.errorPrefix() + message + "\n")
            terminate(ExitStatus.failure.rawValue)
        }
    }
}

/// Ends the process (the C library's exit, which an ArgumentParser method name shadows here).
func terminate(_ status: Int32) -> Never { exit(status) }

/// Ends the command with a status after its output was written (check with problems).
struct ExitWith: Error { var status: ExitStatus }

/// Writing to stdout, stderr or a file; colour only on a terminal (and never with NO_COLOR).
enum Output {
    static func isTTY(_ fd: Int32) -> Bool {
        isatty(fd) == 1 && getenv("NO_COLOR") == nil && (getenv("TERM").map { String(cString: $0) != "dumb" } ?? true)
    }

    static func errorPrefix() -> String {
        isTTY(2) ? "\u{1B}[1;31merror:\u{1B}[0m " : "error: "
    }

    static func stderr(_ text: String) {
        _ = writeAll(2, Array(text.utf8))
    }

    static func report(_ error: ToolError) {
        var text = ""
        for d in error.diagnostics {
            let place = d.location.map { "\($0): " } ?? ""
            text += place + errorPrefix() + d.message + "\n"
        }
        stderr(text)
    }

    /// Writes every byte to `fd`; the errno of a failed write, or 0.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return 0
    }

    /// Writes a command's output to stdout; a failed write (a full disk, a closed pipe) is the
    /// command's failure, never a success with the output lost.
    static func stdout(_ bytes: [UInt8]) throws(ToolError) {
        let failure = writeAll(1, bytes)
        if failure != 0 {
            throw ToolError(
                "cannot write to standard output: \(String(cString: strerror(failure))); free space where it goes, or give -o FILE where the command has it"
            )
        }
    }

    /// Writes to `path`, or stdout for nil or `-`. A regular file (or a new one) is written as a
    /// temporary file and renamed over it, so a failure never leaves half a header behind for a
    /// build to pick up; through a symbolic link, the file it names is replaced and the link kept.
    /// Anything else that exists (a device such as /dev/stdout, a FIFO) is written in place: a
    /// rename would replace the device or FIFO itself with a regular file. A directory is refused.
    static func emit(_ bytes: [UInt8], to path: String?) throws(ToolError) {
        guard let path, path != "-" else {
            try stdout(bytes)
            return
        }
        var target = path
        var info = stat()
        if stat(path, &info) == 0 {
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                throw ToolError("cannot write '\(path)': it is a directory; give the path of the file to write inside it")
            }
            if type != S_IFREG { return try writeInPlace(bytes, to: path) }
            if let resolved = realpath(path, nil) {
                target = String(cString: resolved)
                free(resolved)
            }
        }
        let temp = target + ".tmp\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw ToolError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        let failure = writeAll(fd, bytes)
        if failure != 0 {
            close(fd)
            unlink(temp)
            throw ToolError("cannot write '\(path)': \(String(cString: strerror(failure)))")
        }
        if close(fd) != 0 || rename(temp, target) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw ToolError("cannot write '\(path)': \(reason)")
        }
    }

    /// Writes to an existing file that is not a regular file (a device, a FIFO), as a shell's `>`.
    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws(ToolError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw ToolError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        let failure = writeAll(fd, bytes)
        if close(fd) != 0 && failure == 0 { throw ToolError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        if failure != 0 { throw ToolError("cannot write '\(path)': \(String(cString: strerror(failure)))") }
    }
}

// MARK: check

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate config files together, as the library would load them.",
        discussion: """
            Loads every FILE as one transaction into a fresh registry and prints every problem as \
            file:line:column. With --classes or --classes-file, also reports entries whose ClassName \
            is not in the list (the classes your host registers). With --env-file, ${NAME} and \
            {Env: NAME} are checked against the variables in that file only (NAME=value lines, # \
            comments), not the process environment: the same result on every machine.

            Exit status: 0 no problem, 1 problems found, 2 the command line is wrong.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "Config files (YAML, JSON or plist).")
    var files: [String]

    @Option(help: "Output format: text (file:line:column lines) or json (for editors and CI).")
    var format: Format = .text

    @Option(help: ArgumentHelp("Class names the host provides, comma-separated.", valueName: "NAME,..."))
    var classes: String?

    @Option(
        help: ArgumentHelp(
            "A file of class names the host provides (one or more a line, commas or blanks between, # comments).",
            valueName: "FILE"))
    var classesFile: String?

    @Option(
        help: ArgumentHelp(
            "Check environment values against this file only (NAME=value lines, # comments; not the process environment).",
            valueName: "FILE"))
    var envFile: String?

    mutating func validate() throws {
        try ConfigFileArguments.validate(files)
    }

    func run() throws {
        var known: Set<String>?
        if let classes { known = CheckReport.parseClassList(classes) }
        if let classesFile {
            let bytes: [UInt8]
            do { bytes = try ConfigLoader.readFile(classesFile) } catch { throw ToolError(error) }
            known = (known ?? []).union(CheckReport.parseClassList(String(decoding: bytes, as: UTF8.self)))
        }
        let environment = try envFile.map { path throws(ToolError) in try EnvFile.read(path) }
        let report = CheckReport.run(files: files, classes: known, environment: environment)
        switch format {
        case .text:
            // Problems go to stdout (they are the command's output); the summary too.
            try Output.stdout(Array(report.text(colour: Output.isTTY(1)).utf8))
        case .json:
            try Output.stdout(Array(report.json().utf8))
        }
        if !report.isClean { throw ExitWith(status: .failure) }
    }
}

/// The rule every command's config file arguments share.
enum ConfigFileArguments {
    /// At least one file, and no `-`: the commands read files, not standard input, and a file
    /// named `-` would be a surprise (give it as `./-`).
    static func validate<Files: Collection<String>>(_ files: Files) throws {
        if files.isEmpty { throw ValidationError("give at least one config file") }
        if files.contains("-") {
            throw ValidationError(
                "'-' would be standard input, which the commands do not read: save the text to a file and give its path (a file named '-' as ./-)"
            )
        }
    }

    /// `validate(files)`, and an output that is none of them. gen, graph and convert write code,
    /// a drawing or another format, so `-o` naming one of their configs (by any path: files are
    /// compared by device and inode) would replace that config with their output (for convert, a
    /// file whose name says one format holding another, and the original gone).
    static func validate(_ files: [String], output: String?) throws {
        try validate(files)
        guard let output, output != "-" else { return }
        var written = stat()
        guard stat(output, &written) == 0 else { return }
        for file in files {
            var read = stat()
            if stat(file, &read) == 0, read.st_dev == written.st_dev, read.st_ino == written.st_ino {
                throw ValidationError(
                    "-o '\(output)' is the config file '\(file)': writing there would replace the config; give another output path"
                )
            }
        }
    }
}

// MARK: gen

struct Gen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate constants for every entry name (C, C++, Swift, Python).",
        discussion: """
            C: #define PREFIX<Name> "Name" (default prefix CR_ENTRY_). C++: inline constexpr char arrays \
            in a namespace. Swift: an enum with a static let per name (and `all`). Python: a module of \
            string constants with __all__. Names are made into identifiers (characters other than \
            letters, digits and _ become _, a leading digit gets a _, keywords get a trailing _; in C and \
            C++ no reserved __ or _Capital: runs of _ become one, a _ before a leading capital is \
            dropped), sorted, and two names that become the same identifier are an error at the \
            second one's place.

            \(exitCodesHelp)
            """
    )

    @Option(help: "Language: c, cpp, swift or python.")
    var lang: NameConstantsGenerator.Language

    @Argument(help: "Config files, loaded together.")
    var files: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (default: stdout).", valueName: "OUT"))
    var output: String?

    @Option(help: "Prefix for every identifier (default: CR_ENTRY_ for C, none otherwise).")
    var prefix: String?

    @Option(help: "The C++ namespace / Swift enum holding the constants.")
    var typeName: String = "EntryNames"

    mutating func validate() throws {
        try ConfigFileArguments.validate(files, output: output)
    }

    func run() throws {
        let entries = try ConfigSet.entries(paths: files)
        let generator = NameConstantsGenerator(language: lang, prefix: prefix, typeName: typeName)
        var locations: [String: SourceLocation] = [:]
        for entry in entries { locations[entry.name] = entry.location }
        let text = try generator.generate(names: entries.map(\.name), sources: files, locations: locations)
        try Output.emit(Array(text.utf8), to: output)
    }
}

extension NameConstantsGenerator.Language: ExpressibleByArgument {}

// MARK: graph

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw the dependency graph (Graphviz DOT or SVG), problems marked.",
        discussion: """
            One box per entry with its class; reference edges labelled with the key they are injected \
            under, provider edges dashed; singletons shaded with a double border, graph entries shaded \
            yellow, eager entries bold; a legend explains the styles. An invalid config is drawn too, \
            every entry that decodes, with its problems marked (a missing entry as a red dashed box, \
            cycle edges red and thick, a singleton that would keep a graph object orange with its path); \
            the problems are printed to stderr and the status is 1. --focus NAME draws only what NAME \
            reaches. SVG is rendered by Graphviz's `dot` (package `graphviz`).

            \(exitCodesHelp)
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case dot, svg }

    @Argument(help: "Config files, loaded together.")
    var files: [String]

    @Option(help: "dot (Graphviz source) or svg (needs Graphviz's dot).")
    var format: Format = .dot

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (default: stdout).", valueName: "OUT"))
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Draw only NAME and what it reaches (references, providers, tagged lists, optional references).",
            valueName: "NAME"))
    var focus: String?

    @Flag(help: "Leave the legend out.")
    var noLegend = false

    @Option(
        help: ArgumentHelp(
            "Resolve environment values from this file only (NAME=value lines, # comments), as check --env-file.",
            valueName: "FILE"))
    var envFile: String?

    mutating func validate() throws {
        try ConfigFileArguments.validate(files, output: output)
    }

    func run() throws {
        let environment = try envFile.map { path throws(ToolError) in try EnvFile.read(path) }
        let config = LoadedConfig.load(paths: files, environment: environment)
        // With nothing drawable the config's problems are the whole answer.
        if config.entries.isEmpty && config.invalidNames.isEmpty && !config.problems.isEmpty {
            throw ToolError(ConfigError(config.problems))
        }
        let dot = try GraphRenderer.dot(config, focus: focus, legend: !noLegend)
        switch format {
        case .dot: try Output.emit(Array(dot.utf8), to: output)
        case .svg: try Output.emit(Array(try GraphRenderer.svg(fromDot: dot).utf8), to: output)
        }
        if !config.problems.isEmpty {
            Output.report(ToolError(ConfigError(config.problems)))
            throw ExitWith(status: .failure)
        }
    }
}

// MARK: convert

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a config between YAML, JSON and plist.",
        discussion: """
            Values keep their kinds and keys their order, so the output loads as the same registry. \
            A value the target cannot hold is an error at its place: null in a plist, NaN or infinity \
            in JSON, control characters in an XML plist (use --binary). -o may not be the input file \
            (exit 2).

            \(exitCodesHelp)
            """
    )

    @Argument(help: "The config file to convert.")
    var input: String

    @Option(help: "Target format: yaml, json or plist.")
    var to: ConfigWriter.Target

    @Flag(help: "Write a binary plist (with --to plist).")
    var binary = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (default: stdout).", valueName: "OUT"))
    var output: String?

    mutating func validate() throws {
        if binary && to != .plist { throw ValidationError("--binary applies to --to plist only") }
        try ConfigFileArguments.validate([input], output: output)
    }

    func run() throws {
        let doc: ConfigDocument
        do { doc = try ConfigLoader.load(path: input) } catch { throw ToolError(error) }
        let bytes = try ConfigWriter.write(doc, to: to, binary: binary)
        if binary && output == nil && Output.isTTY(1) {
            throw ToolError("refusing to write a binary plist to a terminal; use -o FILE or redirect", status: .usage)
        }
        try Output.emit(bytes, to: output)
    }
}

extension ConfigWriter.Target: ExpressibleByArgument {}

// MARK: explain

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the plan for creating one entry, as a tree.",
        discussion: """
            Usage: controllerreg explain FILE... NAME (the last argument is the entry). Shows every \
            argument the host's create receives, what gets created for it (with class and lifestyle), \
            and the order objects are built in. Environment values are shown as written with the \
            value they resolve to (from the process environment, or only --env-file FILE).

            \(exitCodesHelp)
            """
    )

    @Argument(help: ArgumentHelp("Config files, loaded together, then the entry name.", valueName: "FILE... NAME"))
    var arguments: [String]

    @Option(
        help: ArgumentHelp(
            "Resolve environment values from this file only (NAME=value lines, # comments), as check --env-file.",
            valueName: "FILE"))
    var envFile: String?

    mutating func validate() throws {
        if arguments.count < 2 { throw ValidationError("give one or more config files and then an entry name") }
        try ConfigFileArguments.validate(arguments.dropLast())
    }

    func run() throws {
        let files = Array(arguments.dropLast())
        let environment = try envFile.map { path throws(ToolError) in try EnvFile.read(path) }
        let text = try PlanExplainer(registry: ConfigSet.registry(paths: files, environment: environment)).explain(
            arguments.last!, colour: Output.isTTY(1))
        try Output.stdout(Array(text.utf8))
    }
}

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the entries added, removed and changed between two configs.",
        discussion: """
            Usage: controllerreg diff OLD NEW, or controllerreg diff OLD... --to NEW... when a side \
            is several files (each side is loaded as one transaction, like check). Both sides are \
            validated; the lists are what cr_registry_reload would report going from OLD to NEW \
            (a singleton wired to a changed entry counts as changed).

            Exit status: 0 success (with --exit-code: no difference), 1 differences with \
            --exit-code, or a side is not a valid config (its problems are printed), \
            2 the command line is wrong.
            """
    )

    @Argument(help: ArgumentHelp("OLD NEW, or the OLD files when --to gives the NEW ones.", valueName: "FILE"))
    var files: [String]

    @Option(name: .customLong("to"), parsing: .upToNextOption, help: ArgumentHelp("The NEW side's files.", valueName: "FILE"))
    var to: [String] = []

    @Option(help: "Output format: text or json.")
    var format: OutputKind = .text

    @Flag(help: "Exit with 1 when the configs differ (as git diff --exit-code).")
    var exitCode = false

    @Option(
        help: ArgumentHelp(
            "Resolve environment values from this file only (NAME=value lines, # comments), as check --env-file.",
            valueName: "FILE"))
    var envFile: String?

    enum OutputKind: String, ExpressibleByArgument, CaseIterable { case text, json }

    mutating func validate() throws {
        if to.isEmpty {
            if files.count != 2 {
                throw ValidationError("give OLD and NEW (two files), or OLD files then --to and the NEW files")
            }
        } else if files.isEmpty {
            throw ValidationError("give the OLD files before --to")
        }
        try ConfigFileArguments.validate(files + to)
    }

    func run() throws {
        let old = to.isEmpty ? [files[0]] : files
        let new = to.isEmpty ? [files[1]] : to
        let environment = try envFile.map { path throws(ToolError) in try EnvFile.read(path) }
        let report = try DiffReport.run(old: old, new: new, environment: environment)
        let text = format == .json ? report.json() : report.text(colour: Output.isTTY(1))
        try Output.stdout(Array(text.utf8))
        if exitCode && !report.changes.isEmpty { throw ExitWith(status: .failure) }
    }
}
