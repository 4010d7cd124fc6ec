import CipherStore
import Foundation
import TestSupport
import Testing

/// The CLI's argv, environment and output never show a key.
@Suite struct SecretHygieneCLITests {
    @Test func keyFromTheEnvironmentIsScrubbedAndNeverShown() throws {
        let workspace = try TemporaryDirectory()
        let source = workspace.path("big.db")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "CREATE TABLE big(body TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000) INSERT INTO big SELECT printf('%01000d', i) FROM n")
        try db.close()
        let secret = "env-secret-Passphrase-91c2"
        let (process, output, errors) = try CLI.start(["encrypt", source, "-o", workspace.path("out.db"), "--key-env", "CS_TEST_KEY"],
                                                      environment: ["CS_TEST_KEY": secret])
        // While it runs: its argv and its environment. The key is in the environment the
        // process starts with, until the tool reads and scrubs it as it starts: on a loaded
        // machine that can take longer than a fixed wait, so look again until it is gone (or the
        // process ended), for up to 10 seconds.
        let pid = process.processIdentifier
        var commandLine = Data()
        var environment = Data()
        let deadline = Date().addingTimeInterval(10)
        repeat {
            Thread.sleep(forTimeInterval: 0.05)
            commandLine = fileBytes("/proc/\(pid)/cmdline")
            environment = fileBytes("/proc/\(pid)/environ")
        } while environment.range(of: Data(secret.utf8)) != nil && Date() < deadline
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: errorData, as: UTF8.self))")
        #expect(!commandLine.isEmpty && !environment.isEmpty, "the process ended before it could be inspected")
        #expect(commandLine.range(of: Data(secret.utf8)) == nil)
        #expect(environment.range(of: Data(secret.utf8)) == nil, "the key is still in /proc/PID/environ")
        #expect(environment.range(of: Data("CS_TEST_KEY".utf8)) != nil, "the variable itself stays, emptied")
        for data in [outputData, errorData] + (try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).map { fileBytes(workspace.path($0)) }) {
            #expect(data.range(of: Data(secret.utf8)) == nil)
        }
    }
}
