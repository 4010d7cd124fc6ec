import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Tells when a database file, its WAL or its rollback journal is written, created, replaced
/// or removed — by any process — with Linux's inotify.
///
/// The watch is on the file's directory, so that a WAL or journal created later, or a file
/// renamed over the database, is seen too; events for other files of the directory are read
/// and dropped. The inotify descriptor is read by a dispatch source: while nothing is written,
/// nothing runs. The handler is called on the watcher's own queue, once per batch of events
/// read, and must not wait for anything that waits for ``stop()``.
///
/// Where inotify is missing (not Linux) or refused (the per-user limit of watches or
/// descriptors is reached), there is no watcher: `init` returns `nil`.
final class DatabaseFileWatcher: @unchecked Sendable {
    // @unchecked Sendable: `source` is set once in `init` and only cancelled afterwards
    // (DispatchSource's cancel is thread-safe); `closed` is a semaphore.
    private let source: any DispatchSourceRead
    /// Signalled by the source's cancel handler, once the descriptor is closed.
    private let closed = DispatchSemaphore(value: 0)
    private let isStopped = Locked(false)

    #if canImport(Glibc)
    /// Watches the file at `path` (already resolved: no symbolic link), calling `onChange` on
    /// `queue`; `nil` when inotify cannot watch its directory.
    init?(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        let (directory, name) = Self.split(path)
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        let names: Set<String> = [name, name + "-wal", name + "-journal"]
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            if Self.drain(fd, concerning: names) { onChange() }
        }
        source.setCancelHandler { [closed] in
            close(fd)
            closed.signal()
        }
        source.resume()
    }

    /// Reads every pending event; `true` when one concerns the database's files, or when the
    /// kernel dropped events (its queue overflowed), which may have.
    private static func drain(_ fd: Int32, concerning names: Set<String>) -> Bool {
        let headerSize = MemoryLayout<inotify_event>.size
        var concerned = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return concerned }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + headerSize <= count {
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameBytes = bytes[(offset + headerSize)..<(offset + headerSize + Int(event.len))]
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 || names.contains(name) { concerned = true }
                    offset += headerSize + Int(event.len)
                }
            }
        }
    }
    #else
    /// No inotify on this platform: no watcher.
    init?(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        return nil
    }
    #endif

    /// Stops watching and closes the inotify descriptor before it returns. Must not be called
    /// on the watcher's queue. Stopping again does nothing.
    func stop() {
        let wasStopped = isStopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        source.cancel()
        closed.wait()
    }

    deinit {
        // Not `stop()`: the last reference may go on the watcher's queue, where waiting for
        // the cancel handler would never end. The handler still closes the descriptor.
        if !isStopped.withLock({ $0 }) { source.cancel() }
    }

    /// The directory and the file name of `path`.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
