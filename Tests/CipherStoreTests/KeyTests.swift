import CipherStore
import Foundation
import TestSupport
import Testing

@Suite struct KeyTests {
    @Test func emptyPassphraseIsRejected() {
        #expect(throws: CipherStoreError.self) { try DatabaseKey.passphrase("") }
        #expect(throws: CipherStoreError.self) { try DatabaseKey.passphrase(bytes: [UInt8]()) }
    }

    @Test func passphraseThatLooksLikeARawKeyIsRejected() throws {
        let raw = "x'" + String(repeating: "ab", count: 32) + "'"
        #expect(throws: CipherStoreError.passphraseShapedLikeRawKey) { try DatabaseKey.passphrase(raw) }
        #expect(CipherStoreError.passphraseShapedLikeRawKey.description.contains("raw key"))
        #expect(throws: CipherStoreError.passphraseShapedLikeRawKey) { try DatabaseKey.passphrase("X'0123'") }
        // Close but not raw-key shaped: accepted.
        _ = try DatabaseKey.passphrase("x'not hex'")
    }

    @Test func rawKeysMustHaveTheRightLength() throws {
        #expect(throws: CipherStoreError.self) { try DatabaseKey.rawKey([UInt8](repeating: 1, count: 31)) }
        #expect(throws: CipherStoreError.self) { try DatabaseKey.rawKey(hex: String(repeating: "a", count: 63)) }
        #expect(throws: CipherStoreError.self) { try DatabaseKey.rawKey(hex: String(repeating: "g", count: 64)) }
        #expect(try DatabaseKey.rawKey(hex: String(repeating: "a", count: 64)).kind == .rawKey)
        #expect(try DatabaseKey.rawKey(hex: String(repeating: "a", count: 96)).kind == .rawKeyWithSalt)
    }

    @Test func descriptionNeverShowsKeyMaterial() throws {
        let key = try DatabaseKey.passphrase("hunter2-secret")
        let texts = [key.description, key.debugDescription, String(describing: key), String(reflecting: key)]
        var dumped = ""
        dump(key, to: &dumped)
        for text in texts + [dumped] {
            #expect(!text.contains("hunter2"))
        }
        let raw = try DatabaseKey.rawKey(hex: String(repeating: "c0", count: 32))
        #expect(!raw.description.contains("c0c0"))
    }

    @Test(arguments: [
        #"it's "quoted" ; DROP TABLE x; --"#,
        "nul\u{0}inside",
        "emoji 🔐🙂 and 中文",
        "trailing space ",
    ])
    func unusualPassphrasesRoundTrip(passphrase: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase(passphrase))
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (42)")
        }
        let db = try Connection(path: path, key: .passphrase(passphrase))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT x FROM t") == 42)
        // A passphrase that differs in one byte does not open it.
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: .passphrase(passphrase + "!"))
        }
    }

    @Test func passphraseBytesAreUsedWithoutNormalisation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let composed = "caf\u{E9}"          // é as one code point
        let decomposed = "cafe\u{301}"      // e + combining accent: equal as Swift Strings
        #expect(composed == decomposed)
        try Connection(path: path, key: .passphrase(composed)).execute(sql: "CREATE TABLE t(x)")
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: .passphrase(decomposed))
        }
    }

    @Test func rawKeyOpensAndPassphraseDoesNot() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let hex = String(repeating: "0123456789abcdef", count: 4)
        do {
            let db = try Connection(path: path, key: .rawKey(hex: hex))
            try db.execute(sql: "CREATE TABLE t(x)")
        }
        _ = try Connection(path: path, key: .rawKey(hex: hex.uppercased()))
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: .passphrase(hex))
        }
    }
}

@Suite struct RawKeyDerivationTests {
    /// The KDF iteration count matters only when a key is derived: a raw key that opens a
    /// database regardless of `kdf_iter` shows that no derivation ran.
    @Test func rawKeySkipsTheKeyDerivation() throws {
        let directory = try TemporaryDirectory()
        let rawPath = directory.path("raw.sqlite")
        let hex = String(repeating: "fe", count: 32)
        do {
            let db = try Connection(path: rawPath, key: .rawKey(hex: hex))
            try db.execute(sql: "CREATE TABLE t(x)")
        }
        let fewIterations = Configuration(cipher: CipherSettings(kdfIterations: 2))
        let reopened = try Connection(path: rawPath, key: .rawKey(hex: hex), configuration: fewIterations)
        #expect(try reopened.tableExists("t"))

        let passphrasePath = directory.path("passphrase.sqlite")
        try Connection(path: passphrasePath, key: .passphrase("pass")).execute(sql: "CREATE TABLE t(x)")
        #expect(throws: CipherStoreError.wrongKey(path: passphrasePath)) {
            try Connection(path: passphrasePath, key: .passphrase("pass"), configuration: fewIterations)
        }
    }
}
