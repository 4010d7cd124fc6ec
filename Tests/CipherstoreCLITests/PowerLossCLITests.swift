import CipherStore
import Foundation
import TestSupport
import Testing

/// Every writing command recorded call by call, then cut off by a simulated power cut at each of
/// its sync points (``PowerLossSimulator``): whatever the disk kept, the database opens with
/// every row, in the old form or the new one; once the command has reported success, only the
/// new form is left in what it made durable.
@Suite(.serialized) struct PowerLossCLITests {
    /// The files of a directory, by name.
    static func files(in directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
        }
        return files
    }

    /// Runs `command` (a `cipherstore` command line, or another program) in a copy of
    /// `template`, recording its file calls, and returns the simulator and the run's result.
    static func record(template: String, in workspace: TemporaryDirectory,
                       run command: (_ directory: String, _ environment: [String: String]) throws -> ProcessResult) throws -> (PowerLossSimulator, ProcessResult, String) {
        let run = workspace.path("run")
        try? FileManager.default.removeItem(atPath: run)
        try FileManager.default.copyItem(atPath: template, toPath: run)
        let initial = try files(in: run)
        let recordPath = workspace.path("record")
        try? FileManager.default.removeItem(atPath: recordPath)
        guard let library = FaultInjection.library else { throw FaultInjection.FaultInjectionError.noCompiler }
        let result = try command(run, ["LD_PRELOAD": library, "FAULT_DIR": run, "FAULT_RECORD": recordPath])
        let record = Array((try? Data(contentsOf: URL(fileURLWithPath: recordPath))) ?? Data())
        return (try PowerLossSimulator(directory: run, initialFiles: initial, record: record), result, run)
    }

    /// Checks every crash state; returns the states in which the database opened in neither form.
    static func badStates(_ simulator: PowerLossSimulator, workspace: TemporaryDirectory, before: [ExpectedDatabase.Opener],
                          after: [ExpectedDatabase.Opener], succeeded: Bool,
                          recoverAfterCrash: (@Sendable (String) -> Void)? = nil) throws -> (checked: Int, bad: [String]) {
        let statePath = workspace.path("state")
        var bad: [String] = []
        let states = simulator.crashStates()
        for state in states {
            try PowerLossSimulator.materialize(state, into: statePath)
            let database = ExpectedDatabase(path: statePath + "/app.db", rows: FaultInjectionCLITests.rows)
            let finalDurable = succeeded && state.description == "at the end, durable only"
            let scenario = FaultInjectionCLITests.Scenario(name: "", arguments: { _ in [] }, setUp: { _ in }, before: before, after: after,
                                                           recoverAfterCrash: recoverAfterCrash)
            let fine = finalDurable ? database.opens(with: after) : scenario.opensBeforeOrAfter(database, in: statePath)
            if !fine { bad.append(state.description) }
        }
        return (states.count, bad)
    }

    @Test(arguments: FaultInjectionCLITests.scenarios)
    func aPowerCutAtAnySyncPointLeavesTheOldOrTheNewDatabase(_ scenario: FaultInjectionCLITests.Scenario) throws {
        try #require(FaultInjection.library != nil, "no C compiler to build the recording library")
        let workspace = try TemporaryDirectory()
        let template = workspace.path("template")
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        try scenario.setUp(template)
        let (simulator, result, _) = try Self.record(template: template, in: workspace) { run, environment in
            try CLI.run(scenario.arguments(run), environment: environment)
        }
        try #require(result.status == 0, "\(scenario.name): \(result.errorOutput)")
        let syncs = simulator.operations.filter { if case .sync = $0 { return true } else { return false } }.count
        try #require(syncs > 0, "\(scenario.name) recorded no sync")
        let (checked, bad) = try Self.badStates(simulator, workspace: workspace, before: scenario.before, after: scenario.after, succeeded: true,
                                                recoverAfterCrash: scenario.recoverAfterCrash)
        print("power loss: \(scenario.name): \(simulator.operations.count) file calls, \(syncs) syncs, \(checked) crash states, \(bad.count) bad")
        #expect(bad.isEmpty, "\(scenario.name): \(bad)")
    }

    /// The test of the test: a new file written and renamed over the old one without syncing
    /// its data first — the classic bug — must be caught; the same with the sync must pass.
    @Test(arguments: [false, true])
    func aReplacementWithoutSyncIsCaught(syncingTheData: Bool) throws {
        try #require(FaultInjection.library != nil, "no C compiler to build the recording library")
        let workspace = try TemporaryDirectory()
        let template = workspace.path("template")
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        _ = try ExpectedDatabase.makePlaintext(at: template + "/app.db", rows: FaultInjectionCLITests.rows)
        try FileManager.default.copyItem(atPath: template + "/app.db", toPath: template + "/replacement.db")
        let script = """
            import os
            data = open('replacement.db', 'rb').read()
            fd = os.open('.new', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.write(fd, data)
            \(syncingTheData ? "os.fsync(fd)" : "pass")
            os.close(fd)
            os.rename('.new', 'app.db')
            directory = os.open('.', os.O_RDONLY)
            os.fsync(directory)
            os.close(directory)
            """
        let (simulator, result, _) = try Self.record(template: template, in: workspace) { run, environment in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script]
            process.currentDirectoryURL = URL(fileURLWithPath: run)
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            return ProcessResult.collect(process, output: output, errors: errors)
        }
        try #require(result.status == 0, "\(result.errorOutput)")
        try #require(simulator.operations.contains { if case .rename = $0 { return true } else { return false } }, "the rename was not recorded")
        let (_, bad) = try Self.badStates(simulator, workspace: workspace, before: [.plaintext], after: [.plaintext], succeeded: true)
        if syncingTheData {
            #expect(bad.isEmpty, "\(bad)")
        } else {
            #expect(!bad.isEmpty, "the simulator missed a rename of unsynced data")
        }
    }

    /// A `DatabasePool` (WAL, `synchronous` FULL, SQLite's default) committing transactions until
    /// it is killed: every crash state opens with whole transactions only (the counter matches
    /// the rows), and what was durable at the end holds every commit that had returned.
    @Test func aPoolCommitThatReturnedSurvivesAPowerCut() throws {
        try #require(FaultInjection.library != nil, "no C compiler to build the recording library")
        let workspace = try TemporaryDirectory()
        let template = workspace.path("template")
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        let passphrase = "pool power cut"
        // The database exists, in WAL mode, before the recorded run.
        _ = try Self.runWriter(in: template, passphrase: passphrase, commits: 1, environment: [:])
        var committed = 0
        let (simulator, _, _) = try Self.record(template: template, in: workspace) { run, environment in
            let (result, last) = try Self.runWriter(in: run, passphrase: passphrase, commits: 6, environment: environment)
            committed = last
            return result
        }
        try #require(committed >= 6, "the writer committed \(committed) transactions")
        let statePath = workspace.path("state")
        var bad: [String] = []
        let states = simulator.crashStates()
        for state in states {
            try PowerLossSimulator.materialize(state, into: statePath)
            do {
                let db = try Connection(path: statePath + "/app.db", key: .passphrase(passphrase))
                defer { try? db.close() }
                let value = try db.fetchScalar(Int.self, sql: "SELECT value FROM counter WHERE id = 1") ?? -1
                let rows = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM entry") ?? -1
                let integrity = try db.fetchScalar(String.self, sql: "PRAGMA integrity_check")
                let durableEnough = state.description != "at the end, durable only" || value >= committed
                if rows != value * 50 || integrity != "ok" || !durableEnough {
                    bad.append("\(state.description): counter \(value), \(rows) rows, \(integrity ?? "?")")
                }
            } catch {
                bad.append("\(state.description): \(error)")
            }
        }
        print("power loss: pool commits: \(simulator.operations.count) file calls, \(states.count) crash states, \(bad.count) bad")
        #expect(bad.isEmpty, "\(bad)")
    }

    /// Runs `crash-writer` on `directory/app.db` with a pool until it has printed `commits`
    /// commits, then kills it; returns the last commit it reported.
    static func runWriter(in directory: String, passphrase: String, commits: Int,
                          environment: [String: String]) throws -> (ProcessResult, Int) {
        let process = Process()
        process.executableURL = WriteCrashTests.writer
        process.arguments = [directory + "/app.db", "pool"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data((passphrase + "\n").utf8))
        try input.fileHandleForWriting.close()
        var text = ""
        var last = 0
        let deadline = Date().addingTimeInterval(60)
        while last < commits, Date() < deadline, process.isRunning {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            last = text.split(separator: "\n").compactMap { Int($0.replacingOccurrences(of: "committed ", with: "")) }.last ?? 0
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (ProcessResult(status: process.terminationStatus, output: text, errorOutput: errorText), last)
    }
}
