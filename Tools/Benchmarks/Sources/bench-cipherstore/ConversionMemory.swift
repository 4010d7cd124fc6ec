import BenchSupport
import CipherStore
import Foundation

/// Workload 8b: encrypting a large database with the default page cache and a small one, each
/// in a child process so that its peak resident memory is its own.
func conversionMemoryWorkloads(directory: String, megabytes: Int, runs: Int) throws -> [String] {
    let source = directory + "/memory-source.db"
    let db = try Connection(path: source, key: nil)
    try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
    try db.execute(sql: "CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT)")
    try db.execute(sql: """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO big SELECT i, printf('%01000d', i) FROM n
        """, arguments: [megabytes * 1000])
    try db.close()
    let size = Double((try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) ?? 0) / 1_048_576

    var lines: [String] = []
    for (label, bytes) in [("default (\(DatabaseFileOptions.defaultPageCacheBytes >> 20) MiB)", DatabaseFileOptions.defaultPageCacheBytes),
                           ("32 MiB", 32 << 20)] {
        var seconds: [Double] = []
        var peaks: [Int] = []
        for _ in 0..<runs {
            let output = directory + "/memory-output.db"
            try? FileManager.default.removeItem(atPath: output)
            let start = DispatchTime.now().uptimeNanoseconds
            peaks.append(try encryptInChildProcess(source: source, output: output, pageCacheBytes: bytes))
            seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let median = seconds.sorted()[seconds.count / 2]
        let peak = peaks.sorted()[peaks.count / 2]
        FileHandle.standardError.write(Data(String(format: "  encrypt %.0f MiB, page cache %@: median %.0f ms, peak %d MiB\n", size, label, median * 1000, peak >> 20).utf8))
        lines.append(String(format: "| encrypt %.0f MiB, page cache %@ | %.0f ms | %.1f MiB/s | %d MiB |", size, label, median * 1000, size / median, peak >> 20))
    }
    return lines
}

/// Runs this executable again as `--encrypt-once`, returns the child's peak resident bytes.
private func encryptInChildProcess(source: String, output: String, pageCacheBytes: Int) throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--encrypt-once", source, output, String(pageCacheBytes)]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "encrypt child failed")
    return Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}

/// The child's side: one encryption, then its peak resident memory (VmHWM) in bytes.
func encryptOnceAndReportPeakMemory(arguments: [String]) throws {
    let key = try DatabaseKey.rawKey(hex: String(repeating: "6d", count: 32))
    try DatabaseFile.encrypt(path: arguments[0], key: key,
                                    cipher: CipherSettings(pageSize: SQLCipherLibrary.defaultPageSize), to: .file(arguments[1]),
                                    options: DatabaseFileOptions(pageCacheBytes: Int(arguments[2]) ?? 0))
    print(peakResidentBytes())
}

/// This process's peak resident memory (VmHWM) in bytes.
func peakResidentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    return kilobytes * 1024
}
