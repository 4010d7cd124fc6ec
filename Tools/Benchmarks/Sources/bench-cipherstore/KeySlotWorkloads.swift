import BenchSupport
import CipherStore
import CSQLCipher
import Foundation

/// Workloads 12 and 13: key slots. A passphrase change on a slot database (re-wrapping the data
/// key in the slot file) against `DatabaseFile.changeKey` (today's rekey, a verified
/// rewrite of the file), on the same data; and opening a slot database against opening with a
/// passphrase and with a raw key.
func keySlotWorkloads(_ bench: Benchmark, directory: String, megabytes: Int, largeMegabytes: Int?) throws -> [String] {
    let texts = ["slot benchmark A", "slot benchmark B"]
    let keys = try texts.map { try DatabaseKey.passphrase($0) }
    let passphrases = try texts.map { try Passphrase($0) }
    var rows: [String] = []
    var large: [String] = []
    if let largeMegabytes {
        // A gigabyte: three runs each (rewriting it takes seconds), then the files go.
        let (row, _) = try passphraseChangeRow(Benchmark(iterations: 2), directory: directory + "/large", megabytes: largeMegabytes,
                                               keys: keys, passphrases: passphrases)
        large.append(row)
        try? FileManager.default.removeItem(atPath: directory + "/large")
    }
    let (row, files) = try passphraseChangeRow(bench, directory: directory, megabytes: megabytes, keys: keys, passphrases: passphrases)
    rows.append(row)
    rows += large
    let (plain, passphraseDB, slotDB, kdf) = files
    let rekeyCurrent = 0, slotCurrent = 0

    // 13. Opening: the first connection of a process derives the key once; later ones reuse it.
    let slotKey = try DatabaseKey.slots(passphrase: passphrases[slotCurrent], path: slotDB)
    func openAndCount(_ path: String, _ key: DatabaseKey) throws {
        let db = try Connection(path: path, key: key)
        _ = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master")
        try db.close()
    }
    let (passphraseOpen, firstSlotOpen) = try bench.compare("open + first query, passphrase (\(libraryKDF))", "open + first query, key slots (unlock + raw key)", baseline: {
        try openAndCount(passphraseDB, keys[rekeyCurrent])
    }) {
        try openAndCount(slotDB, try DatabaseKey.slots(passphrase: passphrases[slotCurrent], path: slotDB))
    }
    let rawKeyDB = directory + "/slots-raw.db"
    let rawKey = try DatabaseKey.rawKey(hex: String(repeating: "6d", count: 32))
    try DatabaseFile.encrypt(path: plain, key: rawKey, to: .file(rawKeyDB))
    let (rawOpen, laterSlotOpen) = try bench.compare("open + first query, raw key", "open + first query, key slots (key kept)", baseline: {
        try openAndCount(rawKeyDB, rawKey)
    }) {
        try openAndCount(slotDB, slotKey)
    }

    return rows + [
        String(format: "| 13. open + first query, first connection: passphrase vs key slots | %.2f ms | %.2f ms | **%.2f KDF runs of the slot (%.0f ms)** | one KDF |",
               passphraseOpen.median * 1000, firstSlotOpen.median * 1000, firstSlotOpen.median / kdf, kdf * 1000),
        String(format: "| 13. open + first query, later connections: raw key vs key slots (key kept) | %.3f ms | %.3f ms | **%+.3f ms** | ≤ raw + 0.2 ms |",
               rawOpen.median * 1000, laterSlotOpen.median * 1000, (laterSlotOpen.median - rawOpen.median) * 1000),
    ]
}

/// Workload 12 at one size: a passphrase change on a slot database against a rekey of a
/// passphrase database with the same content, each alternating between two passphrases.
/// - Returns: the row, and the files and the slot's KDF time for the open rows.
private func passphraseChangeRow(_ bench: Benchmark, directory: String, megabytes: Int, keys: [DatabaseKey], passphrases: [Passphrase])
    throws -> (String, (plain: String, passphraseDB: String, slotDB: String, kdf: Double)) {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let plain = directory + "/slots-plain.db"
    let setup = Raw.open(plain, pragmas: ["PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)",
                                          "CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT)"])
    Raw.exec(setup, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(megabytes * 1000)) INSERT INTO big SELECT i, printf('%01000d', i) FROM n")
    sqlite3_close(setup)
    let size = Double((try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int) ?? 0) / 1_048_576

    // A passphrase database and a slot database of the same content. Fixed benchmark-only secrets.
    let passphraseDB = directory + "/slots-passphrase.db"
    let slotDB = directory + "/slots-slots.db"
    try DatabaseFile.encrypt(path: plain, key: keys[0], to: .file(passphraseDB))
    try FileManager.default.copyItem(atPath: plain, toPath: slotDB)
    try KeySlots.encrypt(path: slotDB, passphrase: passphrases[0])

    // One key derivation of the slot (scrypt, calibrated to the default 0.25 s here).
    var unlocks: [Double] = []
    for _ in 0..<3 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try DatabaseKey.slots(passphrase: passphrases[0], path: slotDB)
        unlocks.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    let kdf = unlocks.sorted()[1]

    // Each side alternates between the two passphrases, and ends where it began (an even
    // number of changes), so the open rows can use the first passphrase.
    var rekeyCurrent = 0, slotCurrent = 0
    let (rekey, change) = try bench.compare("rekey (changeKey) of \(Int(size)) MiB, verified", "KeySlots.changePassphrase, \(Int(size)) MiB", baseline: {
        try DatabaseFile.changeKey(path: passphraseDB, oldKey: keys[rekeyCurrent], newKey: keys[1 - rekeyCurrent])
        rekeyCurrent = 1 - rekeyCurrent
    }) {
        try KeySlots.changePassphrase(path: slotDB, from: passphrases[slotCurrent], to: passphrases[1 - slotCurrent])
        slotCurrent = 1 - slotCurrent
    }
    if rekeyCurrent == 1 { try DatabaseFile.changeKey(path: passphraseDB, oldKey: keys[1], newKey: keys[0]) }
    if slotCurrent == 1 { try KeySlots.changePassphrase(path: slotDB, from: passphrases[1], to: passphrases[0]) }
    let row = String(format: "| 12. change the passphrase, %.0f MiB: rekey vs key slots | %.0f ms | %.1f ms (p90 %.1f) | **%.4f× rekey's time; %.1f KDF runs of %.0f ms, none of the size** | ≤ one KDF + 10 ms, flat in size |",
                     size, rekey.median * 1000, change.median * 1000, change.p90 * 1000, change.median / rekey.median, change.median / kdf, kdf * 1000)
    return (row, (plain, passphraseDB, slotDB, kdf))
}
