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
enum TemporaryFiles {
    static func path(for output: String) -> String {
        let directory = FileSystem.directory(of: output)
        let name = (output as NSString).lastPathComponent
        let random = UInt32.random(in: 0...UInt32.max)
        return directory + "/." + name + ".cipherstore-\(getpid())-\(String(random, radix: 16)).tmp"
    }

    /// Removes the temporary files (and their journals) of runs whose process is gone.
    /// - Returns: the paths removed.
    static func removeLeftovers(for output: String) -> [String] {
        let directory = FileSystem.directory(of: output)
        let prefix = "." + (output as NSString).lastPathComponent + ".cipherstore-"
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

    private static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
