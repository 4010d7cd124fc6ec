import CipherStore
import Foundation
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

    /// Cancels once progress reaches `fraction` (copying is 0–0.8, verifying 0.8–0.95).
    @Test(arguments: [0.05, 0.3, 0.6, 0.79, 0.8, 0.95])
    func cancellingWhileConvertingIsReportedAsCancellation(at fraction: Double) throws {
        let source = directory.path("large.db")
        try SampleDatabases.makeLarge(at: source, rows: 8_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        let cancellation = ConversionCancellation()
        let options = ConversionOptions(progress: { progress in
            if progress.fractionCompleted >= fraction { cancellation.cancel() }
        }, cancellation: cancellation)
        #expect(throws: ConversionError.cancelled) {
            try DatabaseMaintenance.encrypt(path: source, key: key, to: .inPlace(), options: options)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["large.db"])
    }
}
