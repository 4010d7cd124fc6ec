import BenchSupport
import CipherStore
import Foundation

// The child process of the conversion-memory workload.
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--encrypt-once" {
    try encryptOnceAndReportPeakMemory(arguments: Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
// The child process of the growth workload.
if CommandLine.arguments.count == 8, CommandLine.arguments[1] == "--growth-once" {
    try runGrowthCommandOnce(arguments: Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

// CipherStore against the raw SQLCipher C API, in one process, on one machine, in one run.
let bench = Benchmark()
let directory = benchmarkDirectory("cipherstore")

// `bench-cipherstore --serve`: CipherStore's side of the comparison bench-grdb drives.
if CommandLine.arguments.dropFirst().first == "--serve" {
    let hex = String(repeating: "3a", count: 32)
    try serveVersus(directory: directory, rows: bench.quick ? 50_000 : 200_000, insertRows: bench.quick ? 10_000 : 50_000,
                    key: try DatabaseKey.rawKey(hex: hex), rawKey: Array("x'\(hex)'".utf8))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// `bench-cipherstore --pool-only`: the pool and observation rows alone.
if CommandLine.arguments.dropFirst().first == "--pool-only" {
    let key = try DatabaseKey.rawKey(hex: String(repeating: "3a", count: 32))
    print((["| workload | baseline | CipherStore | result | target |", "| --- | --- | --- | --- | --- |"]
           + (try await poolWorkloads(directory: directory, key: key, operations: bench.quick ? 400 : 2_000))
           + [try poolOpenWorkload(bench, directory: directory)]).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// `bench-cipherstore --growth-only`: the whole-file commands as the file grows, alone.
if CommandLine.arguments.dropFirst().first == "--growth-only" {
    print((growthHeader + (try growthWorkloads(directory: directory, megabytes: growthSizes))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// `bench-cipherstore --fetch-only`: the fetching and inserting rows alone.
if CommandLine.arguments.dropFirst().first == "--fetch-only" {
    let key = try DatabaseKey.rawKey(hex: String(repeating: "3a", count: 32))
    let rawKey = Array("x'\(String(repeating: "3a", count: 32))'".utf8)
    print((["| workload | raw C | CipherStore | ratio | target |", "| --- | --- | --- | --- | --- |"]
           + (try fetchingWorkloads(bench, directory: directory, rows: bench.quick ? 50_000 : 200_000, key: key, rawKey: rawKey))
           + (try insertingWorkloads(bench, directory: directory, rows: bench.quick ? 10_000 : 50_000, key: key, rawKey: rawKey))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// `bench-cipherstore --associations-only`: the association rows alone.
if CommandLine.arguments.dropFirst().first == "--associations-only" {
    let key = try DatabaseKey.rawKey(hex: String(repeating: "3a", count: 32))
    print((["| workload | baseline | CipherStore | ratio | target |", "| --- | --- | --- | --- | --- |"]
           + (try associationWorkloads(bench, directory: directory, books: bench.quick ? 10_000 : 50_000, key: key))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// `bench-cipherstore --file-tools-only`: encrypt and key rotation against the shell, alone.
if CommandLine.arguments.dropFirst().first == "--file-tools-only" {
    print((["| workload | shell | CipherStore | result | target |", "| --- | --- | --- | --- | --- |"]
           + (try fileToolWorkloads(bench, directory: directory, megabytes: bench.quick ? 10 : 100))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// `bench-cipherstore --backup-only`: the backup rows alone.
if CommandLine.arguments.dropFirst().first == "--backup-only" {
    let key = try DatabaseKey.rawKey(hex: String(repeating: "3a", count: 32))
    print((["| workload | baseline | CipherStore | result | target |", "| --- | --- | --- | --- | --- |"]
           + (try await backupWorkloads(directory: directory, key: key, writes: bench.quick ? 500 : 5_000, megabytes: bench.quick ? 10 : 50))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}

// `bench-cipherstore --key-slots-only`: the key-slot rows alone, to try them without the full run.
if CommandLine.arguments.dropFirst().first == "--key-slots-only" {
    print((["| workload | baseline | CipherStore | result | target |", "| --- | --- | --- | --- | --- |"]
           + (try keySlotWorkloads(bench, directory: directory, megabytes: bench.quick ? 10 : 100, largeMegabytes: bench.quick ? nil : 1000))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}
// `bench-cipherstore --search-only`: the full-text search row alone.
if CommandLine.arguments.dropFirst().first == "--search-only" {
    let hex = String(repeating: "3a", count: 32)
    print((["| workload | raw C | CipherStore | ratio | target |", "| --- | --- | --- | --- | --- |"]
           + (try searchWorkload(bench, directory: directory, statuses: bench.quick ? 20_000 : 100_000, key: try DatabaseKey.rawKey(hex: hex),
                                 rawKey: Array("x'\(hex)'".utf8)))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}
// `bench-cipherstore --feed-only`: the StatusFeed timeline row alone.
if CommandLine.arguments.dropFirst().first == "--feed-only" {
    let hex = String(repeating: "3a", count: 32)
    print((["| workload | raw C | CipherStore | ratio | target |", "| --- | --- | --- | --- | --- |"]
           + (try feedWorkload(bench, directory: directory, statuses: 10_000, key: try DatabaseKey.rawKey(hex: hex),
                               rawKey: Array("x'\(hex)'".utf8)))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}
// `bench-cipherstore --settings-finder-only`: the settings finder's rows alone.
if CommandLine.arguments.dropFirst().first == "--settings-finder-only" {
    print((["| workload | baseline | CipherStore | result | target |", "| --- | --- | --- | --- | --- |"]
           + (try settingsFinderWorkloads(directory: directory))).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}
let rawKeyHex = String(repeating: "3a", count: 32)
let rawKey = Array("x'\(rawKeyHex)'".utf8)
let key = try DatabaseKey.rawKey(hex: rawKeyHex)
let rows = bench.quick ? 50_000 : 200_000
let insertRows = bench.quick ? 10_000 : 50_000

var output: [String] = []
output.append("## CipherStore vs the raw SQLCipher C API: SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "?")")
output.append("")
output.append("SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "?") on SQLite \(SQLCipherLibrary.sqliteVersion); encrypted with a raw key (no KDF in the loop), \(SQLCipherLibrary.defaultPageSize)-byte pages (the library's default), default cache (2,000 pages), rollback journal (DELETE), synchronous FULL; median of \(bench.iterations) runs after one warm-up.")
output.append("")
output.append("| workload | raw C | CipherStore | ratio | target |")
output.append("| --- | --- | --- | --- | --- |")
output += try fetchingWorkloads(bench, directory: directory, rows: rows, key: key, rawKey: rawKey)
output += try insertingWorkloads(bench, directory: directory, rows: insertRows, key: key, rawKey: rawKey)
output += try openingWorkloads(bench, directory: directory)
output += try fileToolWorkloads(bench, directory: directory, megabytes: bench.quick ? 10 : 100)
output += try await contentionWorkloads(directory: directory, operations: bench.quick ? 4_000 : 32_000, key: key)
output += try batchClaim(bench, directory: directory, rows: bench.quick ? 1_000 : 10_000, key: key)
output += try feedWorkload(bench, directory: directory, statuses: 10_000, key: key, rawKey: rawKey)
output += try associationWorkloads(bench, directory: directory, books: bench.quick ? 10_000 : 50_000, key: key)
output += try searchWorkload(bench, directory: directory, statuses: bench.quick ? 20_000 : 100_000, key: key, rawKey: rawKey)
output.append("")
output.append("### Key slots (passphrase change and open; slots calibrated to the default 0.25 s of scrypt here)")
output.append("")
output.append("| workload | baseline | CipherStore | result | target |")
output.append("| --- | --- | --- | --- | --- |")
output += try keySlotWorkloads(bench, directory: directory, megabytes: bench.quick ? 10 : 100, largeMegabytes: bench.quick ? nil : 1000)
output.append("")
output.append("### Settings finder (`cipherstore settings`; three runs each)")
output.append("")
output.append("| workload | baseline | CipherStore | result | target |")
output.append("| --- | --- | --- | --- | --- |")
output += try settingsFinderWorkloads(directory: directory)
output.append("")
output.append("### DatabasePool and observation (WAL, raw key; reads of 1,000 rows; best of three runs, queue and pool alternating)")
output.append("")
output.append("| workload | baseline | CipherStore | result | target |")
output.append("| --- | --- | --- | --- | --- |")
output += try await poolWorkloads(directory: directory, key: key, operations: bench.quick ? 400 : 2_000)
output.append(try poolOpenWorkload(bench, directory: directory))
output.append("")
output.append("### Backups while the app writes (WAL pool, raw key)")
output.append("")
output.append("| workload | baseline | CipherStore | result | target |")
output.append("| --- | --- | --- | --- | --- |")
output += try await backupWorkloads(directory: directory, key: key, writes: bench.quick ? 500 : 5_000, megabytes: bench.quick ? 10 : 50)
output.append("")
output.append("### What encryption costs (raw C API, SQLCipher vs plaintext on the same library)")
output.append("")
output.append("| configuration | plaintext fetch / insert | encrypted fetch / insert | encrypted ÷ plaintext |")
output.append("| --- | --- | --- | --- |")
output += try encryptionCost(bench, directory: directory, rows: rows, rawKey: rawKey)
output.append("")
output.append("### Conversion memory (`DatabaseFileOptions.pageCacheBytes`)")
output.append("")
output.append("Each run in a child process; peak resident memory is the child's own (VmHWM). Median of \(bench.quick ? 1 : 3) runs.")
output.append("")
output.append("| workload | time | speed | peak resident |")
output.append("| --- | --- | --- | --- |")
output += try conversionMemoryWorkloads(directory: directory, megabytes: bench.quick ? 30 : 300, runs: bench.quick ? 1 : 3)
output.append("")
output += growthHeader
output += try growthWorkloads(directory: directory, megabytes: growthSizes)
print(output.joined(separator: "\n"))
try? FileManager.default.removeItem(atPath: directory)
