import Testing

@testable import ControllerRegConfig

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Throughput check, run by hand and only printed (never asserted):
///
///     CR_JSON_BENCH=/path/to/big.json swift test -c release --filter JSONThroughput
///
/// Disabled unless `CR_JSON_BENCH` names a JSON file. A ~2.6 MB config of 10,000 entries:
///
///     python3 -c 'import sys; sys.stdout.write("{\n" + ",\n".join(
///       "  \"Entry%d\": {\"ClassName\": \"Cls%d\", \"Description\": \"Entry number %d of the generated"
///       " benchmark config, with a fairly long description text for realism, padded a bit\", \"Tag\": %d,"
///       " \"Dependencies\": {\"a\": \"Entry%d\", \"s\": \"@lit\", \"n\": 42, \"f\": 1.5, \"b\": true}}"
///       % (i, i, i, i, i // 10) for i in range(10000)) + "\n}\n")' > /tmp/big.json
///
/// Measured (2 cores, release, Swift 6.3.1): about 390 MB/s; CPython 3.11 json.loads: about 200 MB/s.
@Suite struct JSONThroughput {
    @Test(.enabled(if: getenv("CR_JSON_BENCH") != nil))
    func parseThroughput() throws {
        let path = String(cString: getenv("CR_JSON_BENCH"))
        let bytes = try ConfigLoader.readFile(path)
        let clock = ContinuousClock()
        var best = Duration.seconds(1000)
        var nodes = 0
        for _ in 0..<30 {
            let start = clock.now
            let doc = try ConfigLoader.parse(bytes, format: .json, file: path)
            let elapsed = clock.now - start
            nodes = doc.nodes.count
            if elapsed < best { best = elapsed }
        }
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
        let mbps = Double(bytes.count) / seconds / 1e6
        print("JSON parse: \(bytes.count) bytes, \(nodes) nodes, best \(Int(seconds * 1e6)) µs, \(Int(mbps)) MB/s")
    }
}
