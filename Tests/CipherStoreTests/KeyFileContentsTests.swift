import CipherStore
import Foundation
import TestSupport
import Testing

/// `DatabaseKey.passphrase(keyFileContents:)` and `rawKey(hexKeyFileContents:)`: the whole
/// content minus one trailing "\n" or "\r\n", nothing else trimmed.
@Suite struct KeyFileContentsTests {
    @Test func oneTrailingLineEndIsDropped() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        try Connection(path: path, key: .passphrase(" spaced key\t")).execute(sql: "CREATE TABLE t(x)")
        for contents in [" spaced key\t", " spaced key\t\n", " spaced key\t\r\n"] {
            #expect((try? Connection(path: path, key: .passphrase(keyFileContents: Array(contents.utf8)))) != nil, "\(contents.debugDescription)")
        }
        for contents in [" spaced key\t\n\n", " spaced key\t\r", " spaced key\t\n\r\n", "spaced key\t\n"] {
            #expect(throws: CipherStoreError.wrongKey(path: path), "\(contents.debugDescription)") {
                try Connection(path: path, key: .passphrase(keyFileContents: Data(contents.utf8)))
            }
        }
        // passphrase(bytes:) keeps the line ending.
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: .passphrase(bytes: Array(" spaced key\t\n".utf8)))
        }
    }

    @Test func nothingLeftIsRefused() {
        for contents in ["", "\n", "\r\n"] {
            #expect(throws: CipherStoreError.self, "\(contents.debugDescription)") {
                try DatabaseKey.passphrase(keyFileContents: Array(contents.utf8))
            }
            #expect(throws: CipherStoreError.self) { try DatabaseKey.rawKey(hexKeyFileContents: Array(contents.utf8)) }
        }
    }

    @Test func rawKeyFileContents() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let hex = String(repeating: "0123456789abcdef", count: 4)
        try Connection(path: path, key: .rawKey(hex: hex)).execute(sql: "CREATE TABLE t(x)")
        _ = try Connection(path: path, key: .rawKey(hexKeyFileContents: Array((hex + "\r\n").utf8)))
        #expect(throws: CipherStoreError.self) { try DatabaseKey.rawKey(hexKeyFileContents: Array((hex + " \n").utf8)) }
    }
}
