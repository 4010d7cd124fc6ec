import BenchSupport
@_spi(Benchmarks) import CipherStore
import Foundation

/// Workload 19: the whole-file commands as the file grows (10 MiB, 100 MiB, 1 GiB by default),
/// on two shapes of data, each command in a child process so that its time and its peak
/// resident memory are its own.
///
/// Linear growth means the 1 GiB run takes ten times the 100 MiB run: the growth factor is
/// `time(largest) ÷ (size ratio × time(next size down))`, 1.00 when linear.
func growthWorkloads(directory: String, megabytes: [Int]) throws -> [String] {
    // A raw key made for this run: no key derivation in the timings (it would swamp the small
    // files), and no key in the source. Children read it on standard input, never argv.
    let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    var lines: [String] = []
    for shape in GrowthShape.allCases {
        var timings: [GrowthCommand: [(mebibytes: Double, seconds: Double, peak: Int)]] = [:]
        for size in megabytes {
            let files = GrowthFiles(directory: directory)
            files.removeAll()
            let mebibytes = try shape.makePlaintext(at: files.plain, megabytes: size)
            FileHandle.standardError.write(Data(String(format: "  growth: %@, %.0f MiB\n", shape.label, mebibytes).utf8))
            for command in growthCommands {
                // Small files run three times (median); a gigabyte once.
                let runs = size <= 100 ? 3 : 1
                var samples: [(seconds: Double, peak: Int)] = []
                for _ in 0..<runs {
                    command.prepare(files)
                    let start = DispatchTime.now().uptimeNanoseconds
                    let peak = try runGrowthChild(command: command, files: files, hexKey: hex)
                    samples.append((Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, peak))
                }
                let median = samples.sorted { $0.seconds < $1.seconds }[samples.count / 2]
                timings[command, default: []].append((mebibytes, median.seconds, median.peak))
                FileHandle.standardError.write(Data(String(format: "    %@: %.2f s, %.1f MiB/s, peak %d MiB\n",
                                                           command.rawValue, median.seconds, mebibytes / median.seconds, median.peak >> 20).utf8))
            }
            files.removeAll()
        }
        for command in growthCommands {
            guard let points = timings[command], points.count >= 2 else { continue }
            let speeds = points.map { String(format: "%.0f MiB: %.1f MiB/s", $0.mebibytes, $0.mebibytes / $0.seconds) }.joined(separator: "; ")
            let peaks = points.map { String(format: "%d", $0.peak >> 20) }.joined(separator: " / ")
            let last = points[points.count - 1], previous = points[points.count - 2]
            let growth = last.seconds / (last.mebibytes / previous.mebibytes * previous.seconds)
            let speed = last.mebibytes / last.seconds
            var targets = [Benchmark.target("≤ 1.15×", for: growth)]
            if let floor = command.speedTarget { targets.append(speed >= floor ? "≥ \(Int(floor)) MiB/s" : "≥ \(Int(floor)) MiB/s — missed") }
            lines.append(String(format: "| %@, %@ | %@ | %@ MiB | **%.2f×** | %@ |",
                                command.label, shape.label, speeds, peaks, growth, targets.joined(separator: "; ")))
        }
    }
    return lines
}

/// The sizes measured, in MiB: `GROWTH_SIZES` (comma-separated), else 10, 100 and 1024, or 10 and
/// 100 with `QUICK=1`.
let growthSizes: [Int] = {
    let environment = ProcessInfo.processInfo.environment
    if let sizes = environment["GROWTH_SIZES"]?.split(separator: ",").compactMap({ Int($0) }), sizes.count >= 2 { return sizes }
    return environment["QUICK"] == "1" ? [10, 100] : [10, 100, 1024]
}()

/// The commands measured: `GROWTH_COMMANDS` (comma-separated), else all. `encrypt` always
/// runs: it makes the file the others read.
let growthCommands: [GrowthCommand] = {
    guard let names = ProcessInfo.processInfo.environment["GROWTH_COMMANDS"]?.split(separator: ",").map(String.init) else {
        return GrowthCommand.allCases
    }
    return GrowthCommand.allCases.filter { $0 == .encrypt || names.contains($0.rawValue) }
}()

/// The section's heading and table header.
let growthHeader = [
    "### Whole-file commands as the file grows",
    "",
    "Each command in a child process (time and peak resident memory its own), a raw key (no key derivation), "
        + "the median of 3 runs up to 100 MiB and one run above. Growth: the largest size's time ÷ (size ratio × the next size's time); 1.00× is linear.",
    "",
    "| command, data | speed by size | peak resident by size | growth | target |",
    "| --- | --- | --- | --- | --- |",
]

/// The files one size's run works on.
private struct GrowthFiles {
    let plain, encrypted, backup, restored, repaired: String

    init(directory: String) {
        plain = directory + "/growth-plain.db"
        encrypted = directory + "/growth-encrypted.db"
        backup = directory + "/growth-backup.db"
        restored = directory + "/growth-restored.db"
        repaired = directory + "/growth-repaired.db"
    }

    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func removeAll() { [plain, encrypted, backup, restored, repaired].forEach(remove) }
}

/// The data: many small rows with an index, or fewer large rows that spill into overflow pages.
private enum GrowthShape: CaseIterable {
    case smallRows, largeRows

    var label: String { self == .smallRows ? "small rows, indexed" : "8 KiB rows" }

    /// Makes a plaintext database of about `megabytes` MiB; returns its size in MiB.
    func makePlaintext(at path: String, megabytes: Int) throws -> Double {
        let db = try Connection(path: path, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.execute(sql: "PRAGMA journal_mode = OFF")
        switch self {
        case .smallRows:
            // About 140 bytes a row with its index entry.
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, body TEXT)")
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO item SELECT i, 'name ' || (i * 7919 % 1000003), i % 1000, printf('%090d', i) FROM n
                """, arguments: [megabytes * 7_500])
            try db.execute(sql: "CREATE INDEX item_name ON item(name)")
        case .largeRows:
            try db.execute(sql: "CREATE TABLE document(id INTEGER PRIMARY KEY, title TEXT, body BLOB)")
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO document SELECT i, 'document ' || i, randomblob(8192) FROM n
                """, arguments: [megabytes * 120])
            try db.execute(sql: "CREATE INDEX document_title ON document(title)")
        }
        try db.close()
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Double(bytes) / 1_048_576
    }
}

/// The whole-file commands measured, as the library runs them for the CLI.
enum GrowthCommand: String, CaseIterable {
    case encrypt, scan, digest, verify, backup, restore, repair

    var label: String {
        switch self {
        case .encrypt: "encrypt, verified (content digest)"
        case .scan: "raw C scan of every row (the floor: page reads, decryption, SQLite)"
        case .digest: "content digest alone (as each side of encrypt's verification)"
        case .verify: "verify"
        case .backup: "backup"
        case .restore: "restore, verified"
        case .repair: "repair (intact file)"
        }
    }

    /// The speed the command should keep at the largest size, where one is set.
    var speedTarget: Double? {
        switch self {
        case .repair: 150
        case .digest: 300
        default: nil
        }
    }

    /// Clears what the command writes, so each run starts alike.
    fileprivate func prepare(_ files: GrowthFiles) {
        switch self {
        case .encrypt: files.remove(files.encrypted)
        case .scan, .digest, .verify: break
        case .backup: files.remove(files.backup)
        case .restore: files.remove(files.restored)
        case .repair: files.remove(files.repaired)
        }
    }

    /// Runs the command on `paths` (plain, encrypted, backup, restored, repaired).
    func run(paths: [String], hexKey: String) throws {
        let key = try DatabaseKey.rawKey(hex: hexKey)
        let cipher = CipherSettings(pageSize: SQLCipherLibrary.defaultPageSize)
        switch self {
        case .encrypt: try DatabaseFile.encrypt(path: paths[0], key: key, cipher: cipher, to: .file(paths[1]))
        case .scan: Raw.scanEveryRow(paths[1], key: Array("x'\(hexKey)'".utf8))
        case .digest: _ = try DatabaseFile.digestContent(path: paths[1], key: key, cipher: cipher)
        case .verify: _ = try DatabaseFile.verify(path: paths[1], key: key, cipher: cipher)
        case .backup: try DatabaseBackup.backup(path: paths[1], key: key, cipher: cipher, to: paths[2])
        case .restore: try DatabaseBackup.restore(backup: paths[2], key: key, cipher: cipher, over: paths[3])
        case .repair: try DatabaseRepair.salvage(path: paths[1], key: key, cipher: cipher, to: paths[4])
        }
    }
}

/// Runs this executable again as `--growth-once COMMAND PATHS…` with the key on standard input;
/// returns the child's peak resident bytes.
private func runGrowthChild(command: GrowthCommand, files: GrowthFiles, hexKey: String) throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--growth-once", command.rawValue, files.plain, files.encrypted, files.backup, files.restored, files.repaired]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(hexKey.utf8))
    try input.fileHandleForWriting.close()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "growth child \(command.rawValue) failed")
    return Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}

/// The child's side: one command, then its peak resident memory in bytes.
func runGrowthCommandOnce(arguments: [String]) throws {
    guard let command = GrowthCommand(rawValue: arguments[0]) else { fatalError("unknown growth command \(arguments[0])") }
    let hex = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    try command.run(paths: Array(arguments.dropFirst()), hexKey: hex)
    print(peakResidentBytes())
}
