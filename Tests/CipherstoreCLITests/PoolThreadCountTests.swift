import Foundation
import TestSupport
import Testing

/// Reads that wait for a reader wait as suspended tasks, not as blocked threads. The count is
/// taken in a child process (`waiting-reads`), so the threads of tests running beside this one
/// are not counted.
@Suite struct PoolThreadCountTests {
    static let waitingReads = CLI.executable.deletingLastPathComponent().appendingPathComponent("waiting-reads")

    /// 1,000 `async` reads at a pool of 2 readers, each holding its reader a little: the
    /// process's thread count stays bounded while they wait, and every read returns.
    @Test func aThousandWaitingReadsParkNoThreads() throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = Self.waitingReads
        process.arguments = [directory.url.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let result = ProcessResult.collect(process, output: output, errors: errors)
        try #require(result.status == 0, "waiting-reads: \(result.errorOutput)")
        let numbers = result.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(numbers.count == 3, "unexpected output: \(result.output)")
        let (total, before, peak) = (numbers[0], numbers[1], numbers[2])
        #expect(total == 1_000)
        // Two readers at work, the sampler, the cooperative pool: a few threads, not one per waiting read.
        #expect(peak - before <= 24, "threads: \(before) before, \(peak) at the peak")
    }
}
