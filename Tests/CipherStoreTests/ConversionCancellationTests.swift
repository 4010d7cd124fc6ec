@testable import CipherStore
import Foundation
import TestSupport
import Synchronization
import Testing

/// Cancelling at any moment of a conversion is reported as cancellation, and leaves the source
/// as it was and nothing beside it.
@Suite(.serialized) struct ConversionCancellationTests {
    let directory: TemporaryDirectory
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        key = try DatabaseKey.rawKey(hex: String(repeating: "6b", count: 32))
    }

    /// Cancels once progress reaches `fraction` (copying is 0–0.35, the integrity check ends
    /// at 0.65, the comparison with the source at 0.94: see `ConversionShare`).
    @Test(arguments: [0.05, 0.2, 0.34, 0.35, 0.5, 0.65, 0.8, 0.95])
    func cancellingWhileConvertingIsReportedAsCancellation(at fraction: Double) throws {
        let source = directory.path("large.db")
        try SampleDatabases.makeLarge(at: source, rows: 8_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        let cancellation = DatabaseFileCancellation()
        let options = DatabaseFileOptions(progress: { progress in
            if progress.fractionCompleted >= fraction { cancellation.cancel() }
        }, cancellation: cancellation)
        #expect(throws: DatabaseFileError.cancelled) {
            try DatabaseFile.encrypt(path: source, key: key, to: .inPlace(), options: options)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["large.db"])
    }

    /// A full read-back reports its progress as it reads, and a cancellation in the middle of
    /// it interrupts the integrity check (one step of SQLite's machine, which no progress
    /// handler reaches).
    @Test func aFullReadBackReportsItsProgressAndStopsWhenCancelled() throws {
        let source = directory.path("large.db")
        try SampleDatabases.makeLarge(at: source, rows: 120_000)
        let seen = Mutex<[(Double, ContinuousClock.Instant)]>([])
        var options = DatabaseFileOptions(progress: { progress in
            if progress.phase == .verifying { seen.withLock { $0.append((progress.fractionCompleted, .now)) } }
        })
        options.fullReadBack = true
        try DatabaseFile.encrypt(path: source, key: key, to: .file(directory.path("whole.db")), options: options)
        let verifying = seen.withLock { $0 }
        #expect(verifying.contains { $0.0 > DatabaseFileProgress.ConversionShare.checked && $0.0 < 0.95 }, "\(verifying.map(\.0))")
        #expect(verifying.map(\.0) == verifying.map(\.0).sorted(), "progress went back")
        let wholeVerification = try #require(verifying.last?.1) - (try #require(verifying.first?.1))

        // Cancelled as verification starts: it stops within a fraction of its whole length,
        // whatever SQLite's interrupt reaches (SQLite 3.15's integrity check it does not).
        let cancellation = DatabaseFileCancellation()
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        options = DatabaseFileOptions(progress: { progress in
            if progress.phase == .verifying && progress.fractionCompleted > DatabaseFileProgress.ConversionShare.checked {
                cancelledAt.withLock { $0 = $0 ?? .now }
                cancellation.cancel()
            }
        }, cancellation: cancellation)
        options.fullReadBack = true
        #expect(throws: DatabaseFileError.cancelled) {
            try DatabaseFile.encrypt(path: source, key: key, to: .file(directory.path("cancelled.db")), options: options)
        }
        let stopped = ContinuousClock.now - (try #require(cancelledAt.withLock { $0 }))
        #expect(stopped < wholeVerification / 2 + .milliseconds(250), "stopped after \(stopped), the whole verification takes \(wholeVerification)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("cancelled.db")))
    }
}
