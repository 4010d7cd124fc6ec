import BenchSupport
import CipherStore
import CSQLCipher
import Foundation

/// The settings finder (`cipherstore settings`): how long finding a file's settings takes, against
/// one open with the settings known (raw C API: key, pragmas, first read; one KDF run). Cases:
/// a passphrase file with 4096-byte pages and 100,000 iterations (the count given); a file in the
/// other major version's default format; a file with 1,000,000 iterations, not given (the
/// search runs every count up to it), against one open that derives its key with that count; a
/// file that nothing opens (a wrong passphrase: every count up to 1,000,000 with each KDF hash).
func settingsFinderWorkloads(directory: String) throws -> [String] {
    let bench = Benchmark(iterations: 3)
    let passphrase = throwawayPassphrase()
    let key = try DatabaseKey.passphrase(passphrase)
    let linkedDefault = directory + "/finder-default.db"
    try makeFinderFile(linkedDefault, key: key, settings: .libraryDefaults)
    let baselineOpen = {
        let db = Raw.open(linkedDefault, key: Array(passphrase.utf8))
        Raw.exec(db, "SELECT count(*) FROM sqlite_master")
        sqlite3_close(db)
    }
    var rows: [String] = []

    let custom = directory + "/finder-custom.db"
    try makeFinderFile(custom, key: key, settings: CipherSettings(pageSize: 4096, kdfIterations: 100_000))
    var found: CipherSettingsFinder.Found?
    let (open1, find1) = try bench.compare("open with known settings (1 KDF)", "find: 4096-byte pages, 100,000 iterations given",
                                           baseline: baselineOpen) {
        found = try CipherSettingsFinder.find(path: custom, key: key, kdfIterations: [100_000])
    }
    rows.append(Benchmark.row("settings finder: 4096-byte pages, 100,000 iterations (given); \(found?.keyDerivations ?? -1) KDF runs, \(found?.candidatesTried ?? -1) tried",
                              baseline: open1, library: find1, target: "—"))

    let other = directory + "/finder-other.db"
    let otherMade: Bool
    if SQLCipherLibrary.sqlcipherMajorVersion >= 4 {
        try makeFinderFile(other, key: key, settings: .sqlcipher3)
        otherMade = true
    } else {
        otherMade = makeWithSQLCipher4Shell(other, passphrase: passphrase)
    }
    if otherMade {
        let (open2, find2) = try bench.compare("open with known settings (1 KDF)", "find: the other major version's defaults",
                                               baseline: baselineOpen) {
            found = try CipherSettingsFinder.find(path: other, key: key)
        }
        let version = SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? "a SQLCipher 3 file" : "a SQLCipher 4 file (made by its shell)"
        rows.append(Benchmark.row("settings finder: \(version); \(found?.keyDerivations ?? -1) KDF runs, \(found?.candidatesTried ?? -1) tried",
                                  baseline: open2, library: find2, target: "—"))
    }

    // The search to 1,000,000, against one open that derives the key with 1,000,000 iterations.
    let million = directory + "/finder-million.db"
    try makeFinderFile(million, key: key, settings: CipherSettings(kdfIterations: 1_000_000))
    let (openMillion, findMillion) = try bench.compare("open with known settings (1 KDF of 1,000,000)", "find: 1,000,000 iterations, not given",
                                                       baseline: {
        let db = Raw.open(million, key: Array(passphrase.utf8), pragmas: ["PRAGMA kdf_iter = 1000000"])
        Raw.exec(db, "SELECT count(*) FROM sqlite_master")
        sqlite3_close(db)
    }) {
        found = try CipherSettingsFinder.find(path: million, key: key)
    }
    precondition(found?.settings.kdfIterations == 1_000_000, "the search did not find the 1,000,000-iteration file")
    let hash = SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? "PBKDF2-SHA512" : "PBKDF2-SHA1"
    rows.append(Benchmark.row("settings finder: 1,000,000 \(hash) iterations, not given (every count searched); \(found?.keyDerivations ?? -1) KDF runs, \(found?.candidatesTried ?? -1) tried",
                              baseline: openMillion, library: findMillion, target: "—"))

    let wrong = try DatabaseKey.passphrase(throwawayPassphrase())
    let (open3, find3) = try bench.compare("open with known settings (1 KDF)", "find: nothing opens (wrong passphrase)",
                                           baseline: baselineOpen) {
        found = try CipherSettingsFinder.find(path: custom, key: wrong)
    }
    rows.append(Benchmark.row("settings finder: nothing opens (wrong passphrase; every count to 1,000,000 with SHA-1, SHA-256 and SHA-512, 3 KDF runs)",
                              baseline: open3, library: find3, target: "—"))
    return rows
}

private func makeFinderFile(_ path: String, key: DatabaseKey, settings: CipherSettings) throws {
    try? FileManager.default.removeItem(atPath: path)
    let db = try Connection(path: path, key: key, configuration: Configuration(cipher: settings))
    try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
    try db.close()
}

/// Makes a SQLCipher 4 file with the shell `make sqlcipher4` built; `false` when there is none.
private func makeWithSQLCipher4Shell(_ path: String, passphrase: String) -> Bool {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let shell = root.appendingPathComponent(".build-sqlcipher4/prefix/bin/sqlcipher").path
    guard FileManager.default.isExecutableFile(atPath: shell) else { return false }
    try? FileManager.default.removeItem(atPath: path)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: shell)
    process.arguments = ["-batch", path]
    process.environment = ["LD_LIBRARY_PATH": root.appendingPathComponent(".build-sqlcipher4/prefix/lib").path]
    let input = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    // The benchmark's own passphrase, on standard input (never argv).
    input.fileHandleForWriting.write(Data("PRAGMA key = '\(passphrase)';\nCREATE TABLE t(x);\n".utf8))
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
    return process.terminationStatus == 0
}
