import CipherStore
import Foundation
import TestSupport
import Synchronization
import Testing

/// kill -9 a process in the middle of write transactions, in rollback-journal and WAL modes:
/// on reopen the database holds exactly the committed transactions, passes integrity_check,
/// and its hot journal or WAL holds no plaintext.
@Suite(.serialized) struct WriteCrashTests {
    static let writer = CLI.executable.deletingLastPathComponent().appendingPathComponent("crash-writer")
    static let kills = 8

    @Test(arguments: ["delete", "wal"])
    func killedWriterLeavesExactlyTheCommittedState(mode: String) throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("crash.db")
        let key = try DatabaseKey.passphrase("crash test key")
        var lastReported = 0
        var plaintextSeen = false
        for round in 0..<Self.kills {
            let process = Process()
            process.executableURL = Self.writer
            process.arguments = [path, mode]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            let printedSoFar = Mutex(Data())
            output.fileHandleForReading.readabilityHandler = { handle in
                let chunk = handle.availableData
                printedSoFar.withLock { $0.append(chunk) }
            }
            try process.run()
            input.fileHandleForWriting.write(Data("crash test key\n".utf8))
            try input.fileHandleForWriting.close()
            // The kill lands while transactions run: after the writer's first commit (its key
            // derivation takes longer on some SQLCipher versions and busy machines), then a
            // little later each round.
            let deadline = ContinuousClock.now + .seconds(20)
            while printedSoFar.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
            Thread.sleep(forTimeInterval: 0.02 + 0.04 * Double(round % 4))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            let printed = String(decoding: printedSoFar.withLock { $0 } + rest, as: UTF8.self)
            if let last = printed.split(separator: "\n").last(where: { $0.hasPrefix("committed ") }), let number = Int(last.dropFirst(10)) {
                lastReported = number
            }
            // Before anyone reopens it: what the crash left on disk is ciphertext.
            for suffix in ["", "-journal", "-wal"] where fileBytes(path + suffix).range(of: Data("PLAINTEXT-MARKER".utf8)) != nil {
                plaintextSeen = true
            }
            let db = try Connection(path: path, key: key, configuration: Configuration())
            #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
            // Killed before its first commit, the writer may not have made its tables yet.
            let started = try db.tableExists("counter")
            let counter = started ? try db.fetchScalar(Int.self, sql: "SELECT value FROM counter WHERE id = 1") ?? 0 : 0
            // Committed transactions survive; at most the one in flight when killed is added.
            #expect(counter >= lastReported && counter <= lastReported + 1, "round \(round): counter \(counter), last reported \(lastReported)")
            // Every transaction is whole: 50 rows each, none beyond the counter.
            let counts = started ? try db.fetchAll(sql: "SELECT txn, count(*) FROM entry WHERE writer = 1 GROUP BY txn").map { (try $0.value(Int.self, at: 0), try $0.value(Int.self, at: 1)) } : []
            #expect(counts.count == counter)
            #expect(counts.allSatisfy { $0.1 == 50 && $0.0 <= counter })
            try db.close()
            lastReported = counter
        }
        #expect(lastReported > 0, "the writer never committed")
        #expect(!plaintextSeen)
    }

    /// Several processes writing to one file at once: each waits for the others within the
    /// busy timeout instead of failing, and the file stays whole.
    @Test(arguments: ["delete", "wal"])
    func severalWriterProcessesShareOneFile(mode: String) throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("shared.db")
        // The file exists before the writers start: creating one new encrypted file from several
        // processes at the same instant is a known limitation (see README).
        try Connection(path: path, key: .passphrase("crash test key"), configuration: Configuration(journalMode: mode == "wal" ? .wal : .delete)).close()
        let writers = try (1...3).map { writer -> (Process, Pipe, Pipe) in
            let process = Process()
            process.executableURL = Self.writer
            process.arguments = [path, mode, String(writer)]
            let input = Pipe(), output = Pipe(), errors = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            input.fileHandleForWriting.write(Data("crash test key\n".utf8))
            try input.fileHandleForWriting.close()
            return (process, output, errors)
        }
        // Each writer derives its key first (slow for SQLCipher 4's defaults on a busy machine):
        // the two seconds of shared writing start at the first commit any of them reports.
        let printedSoFar = Mutex([Data](repeating: Data(), count: writers.count))
        for (index, writer) in writers.enumerated() {
            writer.1.fileHandleForReading.readabilityHandler = { handle in
                let chunk = handle.availableData
                printedSoFar.withLock { $0[index].append(chunk) }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !printedSoFar.withLock({ $0.contains { $0.range(of: Data("committed ".utf8)) != nil } }), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        Thread.sleep(forTimeInterval: 2)
        var printedByWriter: [String] = []
        for (index, (process, output, errors)) in writers.enumerated() {
            let stillRunning = process.isRunning
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            let printed = String(decoding: printedSoFar.withLock { $0[index] } + rest, as: UTF8.self)
            printedByWriter.append(printed)
            let lastCommit = printed.split(separator: "\n").last(where: { $0.hasPrefix("committed ") }) ?? "no commit"
            #expect(stillRunning, "a writer stopped early (after \(lastCommit)): \(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        }
        let db = try Connection(path: path, key: .passphrase("crash test key"))
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        var totalReported = 0
        for (index, printed) in printedByWriter.enumerated() {
            let writer = index + 1
            let reported = printed.split(separator: "\n").filter { $0.hasPrefix("committed ") }.count
            let counter = try db.fetchScalar(Int.self, sql: "SELECT value FROM counter WHERE id = ?", arguments: [writer]) ?? 0
            let groups = try db.fetchAll(sql: "SELECT count(*) FROM entry WHERE writer = ? GROUP BY txn", arguments: [writer]).map { try $0.value(Int.self, at: 0) }
            #expect(counter >= reported && counter <= reported + 1, "writer \(writer): counter \(counter), reported \(reported)")
            #expect(groups.count == counter && groups.allSatisfy { $0 == 50 })
            totalReported += reported
        }
        // SQLite's locks are not fair between processes: in rollback-journal mode one writer can
        // keep the others waiting (within their busy timeout) for the whole run.
        #expect(totalReported > 0, "no writer committed")
    }
}
