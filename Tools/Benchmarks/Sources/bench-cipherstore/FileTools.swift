import BenchSupport
import CipherStore
import CSQLCipher
import Foundation

/// Workload 8: encrypting a plaintext database and rotating its key, against the `sqlcipher`
/// shell's `sqlcipher_export` and `PRAGMA rekey` on the same file. Our figures include verification.
func fileToolWorkloads(_ bench: Benchmark, directory: String, megabytes: Int) throws -> [String] {
    let plain = directory + "/plain.db"
    let output = directory + "/encrypted.db"
    let rows = megabytes * 1000
    let setup = Raw.open(plain, pragmas: ["CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT)"])
    Raw.exec(setup, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO big SELECT i, printf('%01000d', i) FROM n")
    sqlite3_close(setup)
    let size = Double((try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int) ?? 0) / 1_048_576
    // The shell baseline can take a key only in SQL (`ATTACH … KEY`, `PRAGMA key`): its script,
    // on standard input, gets a passphrase made for this run; CipherStore's side gets the same
    // passphrase through DatabaseKey.
    let passphrase = throwawayPassphrase()
    let key = try DatabaseKey.passphrase(passphrase)
    let removeOutput = { for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: output + suffix) } }
    // The shell's export writes the library's default page size; CipherStore would keep the
    // source's (4096 bytes): the same page size on both sides.
    let cipher = CipherSettings(pageSize: SQLCipherLibrary.defaultPageSize)

    let (shellEncrypt, ourEncrypt) = try bench.compare("sqlcipher shell: sqlcipher_export of \(Int(size)) MiB", "CipherStore: encrypt \(Int(size)) MiB, verified",
                                                       setup: removeOutput, baseline: {
        try shell(database: plain, script: "ATTACH DATABASE '\(output)' AS e KEY '\(passphrase)';\nSELECT sqlcipher_export('e');\n")
    }) {
        try DatabaseFile.encrypt(path: plain, key: key, cipher: cipher, to: .file(output))
    }
    // The same with every page of the result read back and decrypted before the rename.
    let (shellEncryptAgain, ourCheckedEncrypt) = try bench.compare("sqlcipher shell: sqlcipher_export of \(Int(size)) MiB", "CipherStore: encrypt \(Int(size)) MiB, full read-back",
                                                                  setup: removeOutput, baseline: {
        try shell(database: plain, script: "ATTACH DATABASE '\(output)' AS e KEY '\(passphrase)';\nSELECT sqlcipher_export('e');\n")
    }) {
        try DatabaseFile.encrypt(path: plain, key: key, cipher: cipher, to: .file(output), options: DatabaseFileOptions(fullReadBack: true))
    }
    // Rotation alternates between two keys, in place.
    let keys = try [throwawayPassphrase(), throwawayPassphrase()].map { ($0, try DatabaseKey.passphrase($0)) }
    var current = 0
    removeOutput()
    try DatabaseFile.encrypt(path: plain, key: keys[0].1, cipher: cipher, to: .file(output))
    let (shellRekey, ourRekey) = try bench.compare("sqlcipher shell: PRAGMA rekey of \(Int(size)) MiB", "CipherStore: change key of \(Int(size)) MiB, verified", baseline: {
        try shell(database: output, script: "PRAGMA key = '\(keys[current].0)';\nPRAGMA rekey = '\(keys[1 - current].0)';\n")
        current = 1 - current
    }) {
        try DatabaseFile.changeKey(path: output, oldKey: keys[current].1, newKey: keys[1 - current].1)
        current = 1 - current
    }
    func line(_ name: String, _ shell: Benchmark.Result, _ ours: Benchmark.Result, target: String = "≥ 1.0×") -> String {
        String(format: "| 8. %@ %.0f MiB | %.1f MiB/s (%.0f ms) | %.1f MiB/s (%.0f ms) | **%.2f× the shell's MiB/s** | %@ |",
               name, size, size / shell.median, shell.median * 1000, size / ours.median, ours.median * 1000, shell.median / ours.median,
               Benchmark.target(target, for: shell.median / ours.median))
    }
    return [line("encrypt", shellEncrypt, ourEncrypt),
            line("encrypt, full read-back (`fullReadBack`)", shellEncryptAgain, ourCheckedEncrypt, target: "none (opt-in)"),
            line("rotate key", shellRekey, ourRekey)]
}

/// Runs the `sqlcipher` shell with a script on standard input (keys stay out of argv).
private func shell(database: String, script: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlcipher", "-batch", database]
    let input = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data(script.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "sqlcipher shell failed")
}
