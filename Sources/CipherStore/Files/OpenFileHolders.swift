import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which other processes have a file open, read from `/proc/PID/fd` on Linux.
///
/// A process is found by the file it holds (device and inode), whatever name it opened it by,
/// and also when that name has since been removed. Processes of other users are found only
/// when this process may read their `/proc/PID/fd` (root, or the same user). Elsewhere than
/// Linux nothing is found. This process itself is never listed: its own connections are
/// known to the caller.
enum OpenFileHolders {
    /// One process that holds one of the files open.
    struct Holder: Equatable, CustomStringConvertible {
        let pid: Int32
        /// The process's command name (`/proc/PID/comm`), or `nil` when unreadable.
        let command: String?
        /// The path, among those asked about, that it has open.
        let path: String

        var description: String { "process \(pid)" + (command.map { " (\($0))" } ?? "") + " has '\(path)' open" }
    }

    /// The other processes that have any of `paths` open; paths that do not exist are skipped.
    /// With `includingThisProcess`, this process too, when it has any of them open.
    static func processes(holding paths: [String], includingThisProcess: Bool = false) -> [Holder] {
        #if os(Linux)
        var wanted: [[UInt64]: String] = [:]
        for path in paths { if let identity = FileSystem.identity(path) { wanted[identity] = path } }
        guard !wanted.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let ourselves = includingThisProcess ? -1 : getpid()
        var holders: [Holder] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != ourselves,
                  let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/fd") else { continue }
            for descriptor in descriptors {
                // stat(2) follows the descriptor's link to the open file, even one without a name.
                guard let identity = FileSystem.identity("/proc/\(entry)/fd/\(descriptor)"), let path = wanted[identity] else { continue }
                holders.append(Holder(pid: pid, command: command(of: entry), path: path))
                break
            }
        }
        return holders.sorted { $0.pid < $1.pid }
        #else
        return []
        #endif
    }

    private static func command(of pid: String) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }
}
