import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which other processes have a file open, read from `/proc/PID/fd` on Linux.
///
/// Replacing a database while another program has it open leaves that program reading and
/// writing a file that no longer has the name: its next statement fails ("file is not a
/// database") or its writes are lost. Tools that replace a file in place ask this first and
/// name the processes they find.
///
/// A process is found by the file it holds (device and inode), whatever name it opened it by,
/// and also when that name has since been removed. Processes of other users are found only
/// when this process may read their `/proc/PID/fd` (root, or the same user). Elsewhere than
/// Linux nothing is checked and nothing is found (``isSupported`` is `false`). This process
/// itself is never listed: its own connections are known to the caller.
public enum OpenFileHolders {
    /// One process that holds one of the files open.
    public struct Holder: Equatable, Sendable, CustomStringConvertible {
        /// The process's id.
        public let pid: Int32
        /// The process's command name (`/proc/PID/comm`), or `nil` when unreadable.
        public let command: String?
        /// The path, among those asked about, that it has open.
        public let path: String

        /// "process 1234 (python3) has 'app.db' open".
        public var description: String { "process \(pid)" + (command.map { " (\($0))" } ?? "") + " has '\(path)' open" }
    }

    /// Whether this system tells which processes hold a file (Linux, through `/proc`). When
    /// `false`, ``processes(holding:includingThisProcess:)`` always returns an empty array: an empty answer then
    /// proves nothing.
    public static var isSupported: Bool {
        #if os(Linux)
        return FileManager.default.fileExists(atPath: "/proc/self/fd")
        #else
        return false
        #endif
    }

    /// The other processes that have any of `paths` open, by process id; paths that do not
    /// exist are skipped. Each process is listed once, with the first of `paths` it holds.
    /// With `includingThisProcess`, this process too, when it has any of them open.
    public static func processes(holding paths: [String], includingThisProcess: Bool = false) -> [Holder] {
        #if os(Linux)
        var wanted: [[UInt64]: String] = [:]
        for path in paths.reversed() { if let identity = FileSystem.identity(path) { wanted[identity] = path } }
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

    /// How many other processes this process may not look into (their `/proc/PID/fd`: processes
    /// of other users, unless this one is root): a file one of them holds is not found by
    /// ``processes(holding:includingThisProcess:)``, so an empty answer then proves nothing
    /// about them. 0 elsewhere than Linux, where ``isSupported`` says nothing is checked.
    public static func uncheckedProcessCount() -> Int {
        #if os(Linux)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        let ourselves = getpid()
        return entries.reduce(0) { count, entry in
            guard let pid = Int32(entry), pid != ourselves else { return count }
            // A process that ended meanwhile has no directory left: not an unchecked one.
            let unreadable = access("/proc/\(entry)/fd", R_OK | X_OK) != 0 && errno != ENOENT
            return unreadable ? count + 1 : count
        }
        #else
        return 0
        #endif
    }

    /// The other processes that have the database at `path` open, or its rollback journal,
    /// write-ahead log or shared-memory index (a WAL reader may hold only the latter two).
    public static func processes(holdingDatabase path: String) -> [Holder] {
        processes(holding: [path] + DatabaseSideFiles.suffixes.map { path + $0 })
    }

    private static func command(of pid: String) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }
}
