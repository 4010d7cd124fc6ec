import Dispatch
import Foundation

/// Notices commits that other connections made to the database file — another process, such
/// as `cipherstore query --write`, or another queue of this process — while observations run.
///
/// SQLite calls no hook for them. A ``DatabaseFileWatcher`` tells when the file, its WAL or
/// its journal is written; then `PRAGMA data_version` is read on the writing connection, in a
/// block queued like any other: its value moves only when another connection committed (the
/// writer's own commits leave it), so the queue's or pool's own writes cost one pragma per
/// burst of file events and wake nobody. A moved value is handed to `onCommit` on the writer's
/// queue, and the observations re-fetch as after a commit of unknown tables.
///
/// Events that come while a check is queued share it. A WAL commit becomes visible when the
/// writer updates the shared-memory index, which makes no file event and follows the last
/// WAL write by as long as an `fsync` takes; so a few follow-up checks come after each burst
/// (``followUpDelays``, about four seconds in all) and then nothing runs until the next event.
final class ExternalCommitWatch: Sendable {
    private let writer: SerialConnection
    private let path: String
    private let onCommit: @Sendable (Connection) -> Void
    private let queue = DispatchQueue(label: "CipherStore.ExternalCommitWatch")
    private let state = Locked(State())

    /// After the check that follows a burst of events, more checks this long after each other.
    static let followUpDelays: [DispatchTimeInterval] = [.milliseconds(50), .milliseconds(250), .seconds(1), .seconds(3)]

    private struct State {
        var watcher: DatabaseFileWatcher?
        /// The writer's `data_version` at the last check.
        var dataVersion: Int?
        var isCheckQueued = false
        /// Counts bursts of events: a follow-up of an earlier burst stops when it moved.
        var burst = 0
        var followUps = 0
    }

    init(writer: SerialConnection, path: String, onCommit: @escaping @Sendable (Connection) -> Void) {
        self.writer = writer
        self.path = path
        self.onCommit = onCommit
    }

    /// Starts watching, unless already watching; called on the writer's queue with its
    /// connection. On a closed connection, or where the file cannot be watched, nothing starts.
    func start(on db: Connection) {
        guard state.withLock({ $0.watcher == nil }), let version = Self.dataVersion(db) else { return }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let watcher = DatabaseFileWatcher(path: resolved, queue: queue) { [weak self] in self?.filesChanged() }
        state.withLock { state in
            state.watcher = watcher
            state.dataVersion = version
        }
    }

    /// Takes the writer's new connection (a pool reopened after a key change) as it is now.
    func writerReopened(_ db: Connection) {
        let version = Self.dataVersion(db)
        state.withLock { $0.dataVersion = version }
    }

    /// Stops watching; the inotify descriptor is closed when this returns. Must not be called
    /// on the watch's own queue (it is called on the writer's, or by `close()`).
    func stop() {
        let watcher = state.withLock { state in
            defer { state.watcher = nil }
            return state.watcher
        }
        watcher?.stop()
    }

    /// Whether a watcher runs (for tests).
    var isWatching: Bool { state.withLock { $0.watcher != nil } }

    /// Called on the watch's queue when the files changed: a new burst, checked now.
    private func filesChanged() {
        state.withLock { state in
            state.burst &+= 1
            state.followUps = 0
        }
        queueCheck()
    }

    private func queueCheck() {
        let queueNow = state.withLock { state in
            defer { state.isCheckQueued = true }
            return !state.isCheckQueued && state.watcher != nil
        }
        guard queueNow else { return }
        writer.enqueue { [weak self] db in self?.check(db) }
    }

    /// On the writer's queue: tells `onCommit` when `data_version` moved, then schedules the
    /// burst's next follow-up.
    private func check(_ db: Connection) {
        state.withLock { $0.isCheckQueued = false }
        // Inside a transaction a queue's block left open, the pragma reads its snapshot: the
        // follow-ups look again.
        if !db.isInTransaction, let version = Self.dataVersion(db) {
            let moved = state.withLock { state in
                defer { state.dataVersion = version }
                return state.watcher != nil && state.dataVersion != nil && state.dataVersion != version
            }
            if moved { onCommit(db) }
        }
        let next = state.withLock { state -> (burst: Int, delay: DispatchTimeInterval)? in
            guard state.watcher != nil, state.followUps < Self.followUpDelays.count else { return nil }
            defer { state.followUps += 1 }
            return (state.burst, Self.followUpDelays[state.followUps])
        }
        guard let next else { return }
        queue.asyncAfter(deadline: .now() + next.delay) { [weak self] in
            guard let self, self.state.withLock({ $0.burst == next.burst }) else { return }
            self.queueCheck()
        }
    }

    /// `PRAGMA data_version`, or `nil` when it cannot be read now (closed connection, or the
    /// file locked by another process's commit for longer than the busy timeout).
    private static func dataVersion(_ db: Connection) -> Int? {
        try? db.fetchScalar(Int.self, sql: "PRAGMA data_version")
    }
}
