import Foundation

/// Runs workloads and prints their timings: warm-up, then iterations, median and p90.
public final class Benchmark {
    public struct Result: Sendable {
        public let name: String
        public let median: Double
        public let p90: Double
    }

    public let quick: Bool
    public let iterations: Int
    private(set) public var results: [Result] = []

    public init() {
        quick = ProcessInfo.processInfo.environment["QUICK"] == "1"
        iterations = quick ? 3 : 10
    }

    /// Times `body` after one warm-up run; `setup` runs before each run, untimed.
    @discardableResult
    public func measure(_ name: String, iterations: Int? = nil, setup: () throws -> Void = {}, _ body: () throws -> Void) throws -> Result {
        try setup()
        try body()
        var seconds: [Double] = []
        for _ in 0..<(iterations ?? self.iterations) {
            try setup()
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        seconds.sort()
        let result = Result(name: name, median: seconds[seconds.count / 2],
                            p90: seconds[min(seconds.count - 1, Int((Double(seconds.count) * 0.9).rounded(.up)) - 1)])
        results.append(result)
        FileHandle.standardError.write(Data(String(format: "  %-58@ median %9.3f ms  p90 %9.3f ms\n", name as NSString, result.median * 1000, result.p90 * 1000).utf8))
        return result
    }

    /// A table row comparing a library to its raw C baseline measured in this run.
    public static func row(_ workload: String, baseline: Result, library: Result, target: String) -> String {
        let ratio = library.median / baseline.median
        return String(format: "| %@ | %.2f ms | %.2f ms (p90 %.2f) | **%.2f×** | %@ |",
                      workload, baseline.median * 1000, library.median * 1000, library.p90 * 1000, ratio, target)
    }
}

/// A fresh directory for benchmark files.
public func benchmarkDirectory(_ name: String) -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("cipherstore-bench-\(name)-\(getpid())").path
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
