@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Files in SQLCipher 2.0's HMAC variants, made by the shells with the deprecated pragmas that
/// still make them: big-endian page numbers (`cipher_hmac_pgno = be`, SQLCipher 2.0.0 to 2.0.6
/// on big-endian processors) and 2.0.0's HMAC key (`cipher_hmac_salt_mask = x'00'`, with
/// `fast_kdf_iter` as many as the page key's). The settings finder names them with the key
/// alone, and the library opens them with what it found.
@Suite(.serialized) struct SQLCipher2FormatTests {
    let directory: TemporaryDirectory
    let passphrase = "sqlcipher two passphrase"

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A shell of either version, with the pragmas that make a SQLCipher 2.0 file with it.
    struct Maker: CustomTestStringConvertible, Sendable {
        let sqlcipher4: Bool
        let pragmas: [String]
        var shell: String? { sqlcipher4 ? SQLCipherShell.format4 : SQLCipherShell.format3 }
        var testDescription: String { "SQLCipher \(sqlcipher4 ? 4 : 3) shell: " + pragmas.joined(separator: "; ") }
    }

    func make(_ name: String, _ maker: Maker) throws -> String? {
        guard let shell = maker.shell else { return nil }
        let path = directory.path(name)
        let made = try SQLCipherShell.make(path, shell: shell, key: passphrase, pragmas: maker.pragmas)
        try #require(made.status == 0, "\(made.errorOutput)")
        return path
    }

    static let bigEndian = [
        Maker(sqlcipher4: false, pragmas: ["kdf_iter = 4000", "cipher_hmac_pgno = be"]),
        Maker(sqlcipher4: true, pragmas: ["cipher_compatibility = 3", "cipher_hmac_pgno = be"]),
    ]

    @Test(arguments: bigEndian)
    func bigEndianPageNumbersAreFoundAndTheLibraryReadsAndWritesThem(_ maker: Maker) throws {
        guard let path = try make("be.db", maker) else {
            #expect(maker.sqlcipher4 && SQLCipherShell.sqlcipher4 == nil, "only the SQLCipher 4 shell may be missing")
            return
        }
        let found = try #require(try CipherSettingsFinder.find(path: path, key: .passphrase(passphrase)))
        #expect(found.settings.hmacPageNumberByteOrder == .bigEndian && found.settings.kdfAlgorithm == .sha1, "\(found.settings)")
        #expect(found.settings.kdfIterations == (maker.sqlcipher4 ? 64_000 : 4_000))
        #expect(found.settings.hmacSaltMask == nil && found.settings.hmacKDFIterations == nil)
        #expect(found.opensWithLinkedSQLCipher)
        // Without the setting the file does not open; with it, the library reads and writes it.
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            var plain = found.settings
            plain.hmacPageNumberByteOrder = nil
            _ = try Connection(path: path, key: .passphrase(passphrase), configuration: Configuration(cipher: plain))
        }
        let db = try Connection(path: path, key: .passphrase(passphrase), configuration: Configuration(cipher: found.settings))
        try db.execute(sql: "INSERT INTO t VALUES ('library')")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 2)
        try db.close()
        // The shell that made the file reads the page the library wrote.
        let shell = try #require(maker.shell)
        let read = try SQLCipherShell.run(database: path, script: "PRAGMA key = '\(passphrase)';\n"
            + maker.pragmas.map { "PRAGMA \($0);\n" }.joined() + "SELECT group_concat(x) FROM t;\n", shell: shell)
        #expect(read.status == 0 && read.output.contains("row,library"), "\(read.output) \(read.errorOutput)")
    }

    static let saltMask = [
        // SQLCipher 2.0.0: 4,000 iterations, and as many for the HMAC key over the unmasked salt.
        Maker(sqlcipher4: false, pragmas: ["kdf_iter = 4000", "fast_kdf_iter = 4000", "cipher_hmac_salt_mask = \"x'00'\""]),
        Maker(sqlcipher4: true, pragmas: ["cipher_compatibility = 2", "fast_kdf_iter = 4000", "cipher_hmac_salt_mask = \"x'00'\""]),
        // The mask alone, over SQLCipher 3's defaults.
        Maker(sqlcipher4: false, pragmas: ["cipher_hmac_salt_mask = \"x'00'\""]),
    ]

    @Test(arguments: saltMask)
    func theZeroHMACSaltMaskIsFoundAndOpensReadOnly(_ maker: Maker) throws {
        guard let path = try make("mask.db", maker) else {
            #expect(maker.sqlcipher4 && SQLCipherShell.sqlcipher4 == nil, "only the SQLCipher 4 shell may be missing")
            return
        }
        let beta = maker.pragmas.contains("fast_kdf_iter = 4000")
        let found = try #require(try CipherSettingsFinder.find(path: path, key: .passphrase(passphrase)))
        #expect(found.settings.hmacSaltMask == 0x00 && found.settings.hmacPageNumberByteOrder == nil, "\(found.settings)")
        #expect(found.settings.hmacKDFIterations == (beta ? 4_000 : nil))
        #expect(found.settings.kdfIterations == (beta ? 4_000 : 64_000) && found.settings.kdfAlgorithm == .sha1)
        #expect(found.opensWithLinkedSQLCipher && found.linkedSQLCipherSupportsThem)

        let readOnly = Configuration(cipher: found.settings, readOnly: true)
        let db = try Connection(path: path, key: .passphrase(passphrase), configuration: readOnly)
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "row")
        try db.close()
        let before = fileBytes(path)
        #expect(throws: CipherStoreError.self) {
            _ = try Connection(path: path, key: .passphrase(passphrase), configuration: Configuration(cipher: found.settings))
        }
        #expect(fileBytes(path) == before)
        // A conversion reads it (read-only) and writes today's HMAC, verified; not in place.
        #expect(throws: CipherStoreError.self) {
            try DatabaseFile.changeKey(path: path, oldKey: .passphrase(passphrase), oldCipher: found.settings, newKey: .passphrase(passphrase))
        }
        #expect(fileBytes(path) == before)
        let copy = directory.path("today.db")
        try DatabaseFile.changeKey(path: path, oldKey: .passphrase(passphrase), oldCipher: found.settings,
                                   newKey: .passphrase(passphrase), to: .file(copy))
        let moved = try #require(try CipherSettingsFinder.find(path: copy, key: .passphrase(passphrase), maxKDFIterations: 0))
        #expect(moved.settings.hmacSaltMask == nil && moved.settings.hmacKDFIterations == nil && moved.opensWithLinkedSQLCipher, "\(moved.settings)")
        // SQLCipher's mask, which it keeps for the whole process, is still its default.
        let other = try Connection(location: .inMemory, key: .passphrase("another"))
        #expect(try other.fetchScalar(String.self, sql: "PRAGMA cipher_hmac_salt_mask") == "3a")
        try other.close()
    }
}
