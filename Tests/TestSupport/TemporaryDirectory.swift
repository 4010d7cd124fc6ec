import Foundation

/// A directory of its own for one test, removed when released: the one fixture directory of
/// the library's and the tool's tests.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cipherstore-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes a key file with mode 0600; returns its path.
    public func keyFile(_ name: String, _ key: String) throws -> String {
        let path = self.path(name)
        try Data(key.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The bytes of a file, or empty when it is missing.
public func fileBytes(_ path: String) -> Data {
    (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
}

extension Data {
    /// Whether `needle` occurs anywhere in the data.
    public func contains(_ needle: String) -> Bool {
        range(of: Data(needle.utf8)) != nil
    }
}
