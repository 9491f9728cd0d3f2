import ControllerRegTool
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `convert`, `gen` and `graph` write (`-o`, or stdout): what is there is written as a shell's
/// `>` would, never replaced by something else, and a failed write is the command's failure.
@Suite struct OutputTests {
    static func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// A FIFO (as a device such as /dev/stdout is) is written in place: a temporary file renamed
    /// over it would replace the FIFO itself with a regular file, and its reader would get nothing.
    @Test func aFIFOIsWrittenNotReplaced() throws {
        let dir = temporaryDirectory()
        let fifo = dir + "/out.pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        for args in [
            ["convert", Paths.example, "--to", "json", "-o", fifo],
            ["gen", "--lang", "c", Paths.example, "-o", fifo],
            ["graph", Paths.example, "-o", fifo],
        ] {
            let r = try runTool(args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(Self.kind(fifo) == S_IFIFO, "\(args): the FIFO is still a FIFO")
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let n = read(reader, &buffer, buffer.count)
            #expect(n > 0 && String(decoding: buffer[..<max(n, 0)], as: UTF8.self).contains("Test1"), "\(args)")
        }
    }

    /// Through a symbolic link the file it names is replaced; the link stays a link.
    @Test func aSymbolicLinkKeepsPointingAtTheNewOutput() throws {
        let dir = temporaryDirectory()
        writeFile(dir + "/real.json", "old\n")
        #expect(symlink("real.json", dir + "/link.json") == 0)
        let r = try runTool(["convert", Paths.example, "--to", "json", "-o", dir + "/link.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.kind(dir + "/link.json") == S_IFLNK)
        #expect(readText(dir + "/real.json")?.contains("\"Test1\"") == true)
    }

    /// A directory is refused with what to give instead; nothing is left in it.
    @Test func aDirectoryIsRefusedWithTheFix() throws {
        let dir = temporaryDirectory()
        for output in [dir, dir + "/"] {
            let r = try runTool(["convert", Paths.example, "--to", "json", "-o", output])
            #expect(r.status == 1)
            #expect(
                r.stderr.contains(
                    "cannot write '\(output)': it is a directory; give the path of the file to write inside it"),
                "\(r.stderr)")
        }
        #expect(try directoryEntries(dir).isEmpty)
    }

    /// Output that cannot be written to stdout (here a full device) fails the command, with the
    /// reason, instead of a success with the output lost.
    @Test func aFailedWriteToStdoutFailsTheCommand() throws {
        guard let tool = Paths.tool, access("/dev/full", W_OK) == 0 else { return }
        for args in [
            "convert \"$0\" --to json", "gen --lang c \"$0\"", "graph \"$0\"", "check \"$0\"", "explain \"$0\" Test1",
        ] {
            let r = try Subprocess.run("/bin/sh", ["-c", "exec \"$1\" \(args) > /dev/full", Paths.example, tool], input: [])
            let stderr = String(decoding: r.stderr, as: UTF8.self)
            #expect(r.status == 1, "\(args): \(stderr)")
            #expect(stderr.contains("cannot write to standard output: No space left on device"), "\(args): \(stderr)")
        }
    }
}
