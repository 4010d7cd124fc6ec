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

    /// A benchmark with its own number of timed runs (for workloads too slow for ten).
    public init(iterations: Int) {
        quick = ProcessInfo.processInfo.environment["QUICK"] == "1"
        self.iterations = iterations
    }

    /// Times a baseline and a contender in alternation — baseline, contender, baseline… —
    /// so that the machine's drift during the run touches both alike.
    /// `setup` runs untimed before every run; `setupFor` likewise, told whether the contender runs next.
    public func compare(_ baselineName: String, _ contenderName: String, setup: () throws -> Void = {},
                        setupFor: (_ contender: Bool) throws -> Void = { _ in },
                        baseline: () throws -> Void, contender: () throws -> Void) throws -> (baseline: Result, contender: Result) {
        func timed(_ contenderRuns: Bool, _ body: () throws -> Void) throws -> Double {
            try setup()
            try setupFor(contenderRuns)
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        return try compareMeasured(baselineName, contenderName, baseline: { try timed(false, baseline) },
                                   contender: { try timed(true, contender) })
    }

    /// As `compare`, for runs that time themselves (in another process): each closure runs
    /// once and returns its seconds.
    public func compareMeasured(_ baselineName: String, _ contenderName: String,
                                baseline: () throws -> Double, contender: () throws -> Double) throws -> (baseline: Result, contender: Result) {
        var times: [[Double]] = [[], []]
        for round in 0...iterations {
            for index in 0..<2 {
                let seconds = index == 0 ? try baseline() : try contender()
                // Round 0 is the warm-up.
                if round > 0 { times[index].append(seconds) }
            }
        }
        let results = zip([baselineName, contenderName], times).map { name, seconds in
            let sorted = seconds.sorted()
            let result = Result(name: name, median: sorted[sorted.count / 2],
                                p90: sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.9).rounded(.up)) - 1)])
            report(result)
            return result
        }
        self.results += results
        return (results[0], results[1])
    }

    private func report(_ result: Result) {
        FileHandle.standardError.write(Data(String(format: "  %-58@ median %9.3f ms  p90 %9.3f ms\n", result.name as NSString, result.median * 1000, result.p90 * 1000).utf8))
    }

    /// A table row comparing a library to its raw C baseline measured in this run.
    /// A target of the form "≤ 1.10×" that the ratio exceeds is marked missed, unless the
    /// target is another library's (`marksMisses: false`).
    public static func row(_ workload: String, baseline: Result, library: Result, target: String, marksMisses: Bool = true) -> String {
        let ratio = library.median / baseline.median
        return String(format: "| %@ | %.2f ms | %.2f ms (p90 %.2f) | **%.2f×** | %@ |",
                      workload, baseline.median * 1000, library.median * 1000, library.p90 * 1000, ratio,
                      marksMisses ? Self.target(target, for: ratio) : target)
    }

    /// Whether `value` misses a target written "≤ X…" (above X) or "≥ X…" (below X), at the
    /// two decimals the tables print; any other target is never missed.
    public static func misses(_ value: Double, _ target: String) -> Bool {
        let parts = target.split(separator: " ")
        guard parts.count >= 2, let limit = Double(parts[1].filter { $0 != "×" }) else { return false }
        let shown = (value * 100).rounded() / 100
        switch parts[0] {
        case "≤": return shown > limit
        case "≥": return shown < limit
        default: return false
        }
    }

    /// A table's target cell: the target, marked when `value` misses it.
    public static func target(_ target: String, for value: Double) -> String {
        target + (misses(value, target) ? " — missed" : "")
    }
}

/// A fresh directory for benchmark files.
public func benchmarkDirectory(_ name: String) -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("cipherstore-bench-\(name)-\(getpid())").path
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
