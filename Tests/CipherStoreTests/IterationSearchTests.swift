@testable import CipherStore
import CKeySearch
import Crypto
import CryptoExtras
import Foundation
import TestSupport
import Testing

/// The search of every PBKDF2 iteration count, on files the sqlcipher shells make: found with
/// the key alone, and its C primitives (PBKDF2 one count at a time, the AES block test)
/// against swift-crypto, with the processor's SHA and AES instructions and without.
@Suite(.serialized) struct IterationSearchTests {
    let directory: TemporaryDirectory
    let passphrase = "iteration search passphrase"

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A count, the settings given to the shell, and what the finder must report.
    struct Case: CustomTestStringConvertible, Sendable {
        let iterations: Int
        let pragmas: [String]
        let pageSize: Int
        var useHMAC = true
        var testDescription: String { "\(iterations) iterations" + (useHMAC ? "" : ", no HMAC") }
    }

    /// SQLCipher 3's format (PBKDF2-HMAC-SHA1), from a 3.x shell; 4,000 without HMAC is SQLCipher 1.x's.
    static let sha1Cases = [
        Case(iterations: 1, pragmas: ["kdf_iter = 1"], pageSize: 1024),
        Case(iterations: 4_000, pragmas: ["cipher_use_hmac = OFF", "kdf_iter = 4000"], pageSize: 1024, useHMAC: false),
        Case(iterations: 99_999, pragmas: ["kdf_iter = 99999", "cipher_page_size = 4096"], pageSize: 4096),
        Case(iterations: 1_000_000, pragmas: ["kdf_iter = 1000000"], pageSize: 1024),
    ]

    /// SQLCipher 4's format (PBKDF2-HMAC-SHA512), from the 4.x shell; 256,000 is its default.
    static let sha512Cases = [
        Case(iterations: 100_000, pragmas: ["kdf_iter = 100000"], pageSize: 4096),
        Case(iterations: 256_000, pragmas: ["cipher_page_size = 8192"], pageSize: 8192),
    ]

    @Test(.enabled(if: SQLCipherShell.format3 != nil, "needs a SQLCipher 3 shell"), arguments: sha1Cases)
    func everySQLCipher3IterationCountIsFoundWithTheKeyAlone(_ testCase: Case) throws {
        try checkFound(testCase, shell: #require(SQLCipherShell.format3), kdf: .sha1)
    }

    @Test(.enabled(if: SQLCipherShell.format4 != nil, Comment(rawValue: SQLCipherShell.sqlcipher4Missing)), arguments: sha512Cases)
    func everySQLCipher4IterationCountIsFoundWithTheKeyAlone(_ testCase: Case) throws {
        try checkFound(testCase, shell: #require(SQLCipherShell.format4), kdf: .sha512)
    }

    private func checkFound(_ testCase: Case, shell: String, kdf: CipherSettings.HashAlgorithm) throws {
        let path = directory.path("count-\(testCase.iterations).db")
        let made = try SQLCipherShell.make(path, shell: shell, key: passphrase, pragmas: testCase.pragmas)
        try #require(made.status == 0, "\(made.errorOutput)")
        let found = try #require(try CipherSettingsFinder.find(path: path, key: .passphrase(passphrase)))
        #expect(found.settings.kdfIterations == testCase.iterations, "\(found.settings)")
        #expect(found.settings.kdfAlgorithm == kdf)
        #expect(found.settings.pageSize == testCase.pageSize && found.settings.useHMAC == testCase.useHMAC)
        // One PBKDF2 run per KDF hash, whichever count it was.
        #expect(found.keyDerivations == 3)
        #expect(found.candidatesTried >= testCase.iterations)
        let supported = LinkedSQLCipher.isVersion4 || kdf == .sha1
        #expect(found.linkedSQLCipherSupportsThem == supported && found.opensWithLinkedSQLCipher == supported)
        if supported {
            let db = try Connection(path: path, key: .passphrase(passphrase), configuration: Configuration(cipher: found.settings))
            #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "row")
            try db.close()
        }
    }

    @Test func aWrongPassphraseRunsEveryCountUpToTheLimitAndFindsNothing() throws {
        let shell = try #require(SQLCipherShell.format3 ?? SQLCipherShell.format4)
        let path = directory.path("wrong.db")
        let made = try SQLCipherShell.make(path, shell: shell, key: passphrase, pragmas: ["kdf_iter = 2000"])
        try #require(made.status == 0, "\(made.errorOutput)")
        let found = try CipherSettingsFinder.find(path: path, key: .passphrase("not it"), maxKDFIterations: 3_000)
        #expect(found == nil)
        // The right key one count above the limit is not found by the search; given, it is.
        #expect(try CipherSettingsFinder.find(path: path, key: .passphrase(passphrase), maxKDFIterations: 1_999) == nil)
        let given = try #require(try CipherSettingsFinder.find(path: path, key: .passphrase(passphrase), kdfIterations: [2_000], maxKDFIterations: 1_999))
        #expect(given.settings.kdfIterations == 2_000)
    }

    /// One changed byte anywhere in the first page's header is damage, not a wrong key, with
    /// the count not given: one of the two AES block tests still passes the right key, and
    /// page 2 then authenticates it.
    @Test(arguments: [20, 40, 70, 90])
    func oneChangedHeaderByteIsDamageNotAWrongKey(offset: Int) throws {
        let key = try DatabaseKey.passphrase(passphrase)
        let path = directory.path("changed-\(offset).db")
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: CipherSettings(kdfIterations: 20_000)))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
        var bytes = fileBytes(path)
        bytes[offset] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let found = try #require(try CipherSettingsFinder.find(path: path, key: key, maxKDFIterations: 30_000))
        #expect(found.firstPageDamaged && found.settings.kdfIterations == 20_000, "\(found)")
        #expect(try CipherSettingsFinder.find(path: path, key: .passphrase("another one"), maxKDFIterations: 30_000) == nil)
    }

    /// The key of each count a search hands over equals swift-crypto's PBKDF2 with that count,
    /// for each hash, passphrases longer than a hash block included.
    @Test(arguments: [false, true])
    func eachCountsKeyIsPBKDF2s(portable: Bool) throws {
        cipherstore_kdf_force_portable(portable ? 1 : 0)
        defer { cipherstore_kdf_force_portable(0) }
        let salt = (0..<16).map { UInt8($0 * 7 + 3) }
        let counts = [1, 2, 3, 1_000]
        for length in [1, 64, 65, 128, 129, 300] {
            let passwordBytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 31 + 1) | 0x40 }
            let key = try DatabaseKey.passphrase(bytes: passwordBytes)
            for kdf in [CipherSettings.HashAlgorithm.sha1, .sha256, .sha512] {
                let search = IterationSearch(passphrase: key, runs: [IterationSearch.Run(kdf: kdf, salt: salt, tag: 0)],
                                             limit: counts.last ?? 0, stops: counts, page: [UInt8](repeating: 0x5a, count: 80))
                var handed: [Int: [UInt8]] = [:]
                let outcome = try search.run { candidate in
                    handed[candidate.iterations] = candidate.key.withUnsafeBytes { Array($0) }
                    return false
                }
                #expect(outcome.derivations == 1 && outcome.countsTried == counts.last)
                for count in counts {
                    let expected = try KDF.Insecure.PBKDF2.deriveKey(from: passwordBytes, salt: salt, using: PageCipher.pbkdf2Hash(kdf),
                                                                     outputByteCount: 32, unsafeUncheckedRounds: count)
                    #expect(handed[count] == expected.withUnsafeBytes { Array($0) }, "\(kdf) \(count) iterations, \(length)-byte passphrase")
                }
            }
        }
    }

    /// The AES block test passes the page key of a real file at its count only: with
    /// processor instructions and without.
    @Test(arguments: [false, true])
    func theBlockTestPassesTheRightCountOnly(portable: Bool) throws {
        cipherstore_kdf_force_portable(portable ? 1 : 0)
        defer { cipherstore_kdf_force_portable(0) }
        let path = directory.path("block-\(portable).db")
        let db = try Connection(path: path, key: .passphrase(passphrase),
                                configuration: Configuration(cipher: CipherSettings(kdfIterations: 777, useHMAC: false)))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        let page = Array(fileBytes(path).prefix(80))
        let kdf: CipherSettings.HashAlgorithm = LinkedSQLCipher.isVersion4 ? .sha512 : .sha1
        let search = IterationSearch(passphrase: try .passphrase(passphrase),
                                     runs: [.sha1, .sha256, .sha512].map { IterationSearch.Run(kdf: $0, salt: Array(page.prefix(16)), tag: 0) },
                                     limit: 2_000, stops: [], page: page)
        var passed: [(CipherSettings.HashAlgorithm, Int)] = []
        _ = try search.run { candidate in
            passed.append((candidate.run.kdf, candidate.iterations))
            return false
        }
        #expect(passed.count == 1 && passed.first?.0 == kdf && passed.first?.1 == 777, "\(passed)")
    }
}
