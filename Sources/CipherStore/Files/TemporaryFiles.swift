import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names of the temporary files a conversion writes beside its output, and clean-up of the
/// ones a crashed run left behind.
///
/// A temporary file is `.<output name>.cipherstore-<pid>-<random>.tmp` in the output's
/// directory: on the same file system, so the final rename is atomic, and named after the
/// process that writes it, so a later run can tell a crashed run's leftover from a live one.
/// The output name in it is cut to 40 bytes followed by a hash of the whole name, so the
/// temporary name (and SQLite's `-journal`/`-wal` beside it) stays short whatever the
/// output's name.
enum TemporaryFiles {
    static func path(for output: String) -> String {
        let random = UInt32.random(in: 0...UInt32.max)
        return directory(of: output) + "/" + prefix(for: output) + "\(getpid())-\(String(random, radix: 16)).tmp"
    }

    /// Removes the temporary files (and their journals) of runs whose process is gone.
    /// - Returns: the paths removed.
    static func removeLeftovers(for output: String) -> [String] {
        let directory = directory(of: output)
        let prefix = prefix(for: output)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for entry in entries where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            guard rest.contains(".tmp"), let pid = Int32(rest.prefix { $0 != "-" }), !isRunning(pid) else { continue }
            let path = directory + "/" + entry
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed.sorted()
    }

    /// The directory, with a relative one spelled `./…` so that SQLite never reads the
    /// temporary path as a special name (`:memory:`, `file:` URIs).
    private static func directory(of output: String) -> String {
        let directory = FileSystem.directory(of: output)
        return directory.hasPrefix("/") || directory.hasPrefix("./") || directory == "." ? directory : "./" + directory
    }

    /// `.<name, at most 40 bytes>.<hash of the name>.cipherstore-`
    private static func prefix(for output: String) -> String {
        let name = (output as NSString).lastPathComponent
        var shortName = ""
        for character in name {
            guard shortName.utf8.count + character.utf8.count <= 40 else { break }
            shortName.append(character)
        }
        // FNV-1a: stable across runs (Swift's Hasher is seeded per process).
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return "." + shortName + "." + String(hash, radix: 16) + ".cipherstore-"
    }

    private static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
