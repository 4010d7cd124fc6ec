import CipherStore
import Foundation
import TestSupport
import Logging
import Testing

/// Keys must not appear in logs, traces, error descriptions or written files.
@Suite struct SecretHygieneTests {
    static let passphrase = "hygiene-Passphrase-7f3a"
    static let hex = String(repeating: "c3", count: 31) + "d4"

    func containsSecret(_ text: String) -> Bool {
        text.contains(Self.passphrase) || text.lowercased().contains(Self.hex)
    }

    @Test func keysNeverReachLogsTracesErrorsOrFiles() throws {
        let directory = try TemporaryDirectory()
        let capture = LogCapture()
        let logger = Logger(label: "hygiene") { _ in LogCaptureHandler(capture: capture) }
        var texts: [String] = []
        let plain = directory.path("plain.db")
        try SampleDatabases.makeRichPlaintext(at: plain)

        for key in [try DatabaseKey.passphrase(Self.passphrase), try DatabaseKey.rawKey(hex: Self.hex)] {
            let path = directory.path("db-\(key.kind.rawValue).sqlite")
            let db = try Connection(path: path, key: key, configuration: Configuration(journalMode: .wal, logger: logger))
            try db.trace { texts.append($0) }
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["value"])
            try db.close()
            texts.append(key.description)
            do {
                _ = try Connection(path: path, key: .passphrase("other"), configuration: Configuration(logger: logger))
            } catch { texts.append(String(describing: error)) }
            do {
                _ = try Connection(path: plain, key: key, configuration: Configuration(logger: logger))
            } catch { texts.append(String(describing: error)) }
            // Export and rotation, and their failures.
            let encrypted = directory.path("export-\(key.kind.rawValue).sqlite")
            try DatabaseFile.encrypt(path: plain, key: key, to: .file(encrypted))
            try DatabaseFile.changeKey(path: encrypted, oldKey: key, newKey: .passphrase("rotated"))
            do {
                try DatabaseFile.changeKey(path: encrypted, oldKey: key, newKey: key)
            } catch { texts.append(String(describing: error)) }
        }
        texts += capture.lines
        #expect(capture.lines.contains { $0.contains("opened") })
        #expect(texts.count > 10)
        for text in texts { #expect(!containsSecret(text), "\(text)") }
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            let bytes = fileBytes(directory.path(file))
            #expect(!bytes.contains(Self.passphrase), "\(file)")
            #expect(!bytes.contains(Self.hex), "\(file)")
        }
    }
}
