import Foundation

/// A directory of its own for one test, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cipherstore-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The bytes of a file, or empty when it is missing.
func fileBytes(_ path: String) -> Data {
    (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
}

extension Data {
    /// Whether `needle` occurs anywhere in the data.
    func contains(_ needle: String) -> Bool {
        range(of: Data(needle.utf8)) != nil
    }
}
