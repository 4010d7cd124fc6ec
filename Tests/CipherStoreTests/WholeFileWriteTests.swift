@_spi(Tools) @testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The steps every command that writes a whole database file shares: nothing takes the
/// output's name before the file is verified, and a stop at the last moment leaves nothing.
@Suite struct WholeFileWriteTests {
    let directory: TemporaryDirectory
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        key = try DatabaseKey.rawKey(hex: String(repeating: "5d", count: 32))
    }

    /// An encrypted database with `rows` rows in table `t`.
    func makeDatabase(at path: String, rows: Int = 50) throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        for id in 1...rows { try db.execute(sql: "INSERT INTO t(body) VALUES (?)", arguments: ["row \(id)"]) }
    }

    func bytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func directoryContents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// A fill step that writes a real database into the temporary file.
    func fill(_ file: WholeFileWrite.Context) throws {
        try makeDatabase(at: file.temporaryPath, rows: 3)
    }

    @Test func aFailedVerificationLeavesTheFileUnderTheNameAsItWas() throws {
        let output = directory.path("out.db")
        try makeDatabase(at: output)
        let before = try bytes(output)
        let write = try WholeFileWrite(output: output, source: nil, publication: .newName(overwrite: true), options: DatabaseFileOptions(),
                                       started: Date(), nowOnDisk: { "" }, nextStep: "")
        #expect(throws: DatabaseFileError.verificationFailed(detail: "rows differ")) {
            _ = try write.run(fill: fill, verify: { _, _ -> (Void, SchemaCopy.Pending?) in
                throw DatabaseFileError.verificationFailed(detail: "rows differ")
            })
        }
        #expect(try bytes(output) == before)
        #expect(try directoryContents() == ["out.db"])
    }

    @Test func aVerifiedFileTakesTheNameAndIsReportedFromTheDisk() throws {
        let output = directory.path("out.db")
        let phases = Locked<[DatabaseFileProgress.Phase]>([])
        let options = DatabaseFileOptions(progress: { progress in phases.withLock { $0.append(progress.phase) } })
        let write = try WholeFileWrite(output: output, source: nil, publication: .newName(overwrite: false), options: options,
                                       started: Date(), nowOnDisk: { "" }, nextStep: "")
        let written = try write.run(fill: fill, verify: { _, file -> (Int64, SchemaCopy.Pending?) in
            (FileSystem.size(file.temporaryPath), nil)
        })
        #expect(written.outputBytes == FileSystem.size(output))
        #expect(written.value == written.outputBytes)
        #expect(phases.withLock { $0 } == [.replacing, .done])
        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 3)
        #expect(try directoryContents() == ["out.db"])
    }

    /// A cancellation that arrives as the file is about to take its name (the replacing phase)
    /// stops every command there: the output's name is as it was, and no file is left beside it.
    @Test(arguments: ["backup", "restore", "repair"])
    func cancellingAtTheLastMomentLeavesTheOutputAsItWas(command: String) throws {
        let database = directory.path("app.db")
        try makeDatabase(at: database)
        let backup = directory.path("app-backup.db")
        if command == "restore" { try DatabaseBackup.backup(path: database, key: key, to: backup) }
        let before = try directoryContents()
        let databaseBytes = try bytes(database)
        let cancellation = DatabaseFileCancellation()
        let options = DatabaseFileOptions(progress: { if $0.phase == .replacing { cancellation.cancel() } }, cancellation: cancellation)
        #expect(throws: DatabaseFileError.cancelled) {
            switch command {
            case "backup": try DatabaseBackup.backup(path: database, key: key, to: directory.path("new.db"), options: options)
            case "restore": try DatabaseBackup.restore(backup: backup, key: key, over: database, options: options)
            default: try DatabaseRepair.salvage(path: database, key: key, to: directory.path("new.db"), options: options)
            }
        }
        #expect(cancellation.isCancelled)
        #expect(try directoryContents() == before)
        #expect(try bytes(database) == databaseBytes)
    }

    @Test func aSmallFileReplacesTheOldOneWholeAndLeavesNothingBeside() throws {
        let path = directory.path("notes.bin")
        try DurableFile.replace(path, with: Array("first".utf8))
        try DurableFile.replace(path, with: Array("second".utf8))
        #expect(try bytes(path) == Data("second".utf8))
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try directoryContents() == ["notes.bin"])
    }

    @Test func aNewFileNeverReplacesOne() throws {
        let path = directory.path("raw.key")
        try NewFileWrite.write(Array("kept".utf8), to: path)
        #expect(throws: NewFileWrite.Failure.self) { try NewFileWrite.write(Array("other".utf8), to: path) }
        #expect(try bytes(path) == Data("kept".utf8))
        #expect(try directoryContents() == ["raw.key"])
    }
}
