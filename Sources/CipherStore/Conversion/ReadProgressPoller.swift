import CConversionIO
import CSQLCipher
import Dispatch
import Synchronization

/// Reports the progress of work that reads a whole file in a few SQL opcodes — `count(*)` and
/// `PRAGMA integrity_check` each run as one step of SQLite's virtual machine, so its progress
/// handler never fires during them — from a timer on another thread, by the bytes the
/// connection has read through the conversion VFS; and interrupts it when it is cancelled.
final class ReadProgressPoller {
    /// Set by the timer when it interrupts the work.
    private final class Interruption: Sendable {
        let happened = Atomic<Bool>(false)
    }

    /// The reads of other connections that count toward the work (a second reader of the same
    /// file, see ``OtherReads/counting(_:_:)``): their files while they are open, and what the ones done
    /// read. The timer reads a file only under the lock, so none is read after it closes.
    final class OtherReads: Sendable {
        private struct State {
            var open: [Int: (file: Int, start: Int64)] = [:]
            var done: Int64 = 0
            var nextID = 0
            /// Set once the work is cancelled: a file counted from then on fails at once.
            var interrupted = false
        }

        private let state = Mutex(State())

        /// Runs `body` (on any thread) while the reads of `db`, a second connection to the same
        /// file opened through the conversion VFS, count toward the work too, and fail once it is
        /// cancelled (at once, when it was cancelled before).
        func counting<T>(_ db: Connection, _ body: () throws -> T) rethrows -> T {
            guard let pointer = try? db.handle.pointer, let file = cipherstore_conversion_io_file(pointer, "main") else { return try body() }
            let id = add(file)
            defer { remove(id) }
            return try body()
        }

        private func add(_ file: UnsafeMutableRawPointer) -> Int {
            state.withLock {
                let id = $0.nextID
                $0.nextID += 1
                $0.open[id] = (Int(bitPattern: file), cipherstore_conversion_io_file_bytes_read(file))
                if $0.interrupted { cipherstore_conversion_io_file_interrupt(file) }
                return id
            }
        }

        private func remove(_ id: Int) {
            state.withLock {
                guard let (file, start) = $0.open.removeValue(forKey: id), let pointer = UnsafeRawPointer(bitPattern: file) else { return }
                $0.done += cipherstore_conversion_io_file_bytes_read(pointer) - start
            }
        }

        var bytesRead: Int64 {
            state.withLock { state in
                state.open.values.reduce(state.done) { total, other in
                    total + (UnsafeRawPointer(bitPattern: other.file).map { cipherstore_conversion_io_file_bytes_read($0) - other.start } ?? 0)
                }
            }
        }

        /// Makes the open files' reads fail, as the work's own when it is cancelled, and those
        /// counted later.
        func interrupt() {
            state.withLock { state in
                state.interrupted = true
                for other in state.open.values {
                    if let pointer = UnsafeMutableRawPointer(bitPattern: other.file) { cipherstore_conversion_io_file_interrupt(pointer) }
                }
            }
        }
    }

    private let timer: DispatchSourceTimer
    private let interruption = Interruption()
    let otherReads = OtherReads()

    /// Whether the work was interrupted because it was cancelled.
    var wasCancelled: Bool { interruption.happened.load(ordering: .acquiring) }

    /// Starts polling `db` every 0.1 s; `nil` when there is nothing to report or cancel, or the
    /// connection's file is not opened through the conversion VFS.
    /// - Parameters:
    ///   - expectedBytes: what the work reads in all.
    ///   - totalBytes: the size reported as the total.
    ///   - span: the share of the whole work it spans.
    init?(_ db: Connection, expectedBytes: Int64, totalBytes: Int64, options: DatabaseFileOptions,
          phase: DatabaseFileProgress.Phase, span: ClosedRange<Double>) {
        guard options.progress != nil || options.cancellation != nil,
              let pointer = try? db.handle.pointer,
              let file = cipherstore_conversion_io_file(pointer, "main") else { return nil }
        // The file lives as long as the connection is open: `stop()` runs before it closes.
        nonisolated(unsafe) let sharedFile = file
        nonisolated(unsafe) let sharedPointer = pointer
        let start = cipherstore_conversion_io_file_bytes_read(file)
        let expected = Double(max(expectedBytes, 1))
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + 0.1, repeating: 0.1)
        timer.setEventHandler { [interruption, otherReads] in
            if options.cancellation?.isCancelled == true {
                if !interruption.happened.exchange(true, ordering: .acquiringAndReleasing) {
                    // SQLite's interrupt, and failing reads for the steps it does not reach.
                    sqlite3_interrupt(sharedPointer)
                    cipherstore_conversion_io_file_interrupt(sharedFile)
                    otherReads.interrupt()
                }
                return
            }
            let read = Double(cipherstore_conversion_io_file_bytes_read(sharedFile) - start + otherReads.bytesRead)
            let fraction = span.lowerBound + min(read / expected, 1) * (span.upperBound - span.lowerBound)
            options.progress?(DatabaseFileProgress(phase: phase, bytesWritten: totalBytes, bytesTotal: totalBytes, fractionCompleted: fraction))
        }
        timer.resume()
    }

    /// Stops the timer and waits until its handler is done: after this, nothing touches the
    /// connection.
    func stop() {
        let done = DispatchSemaphore(value: 0)
        timer.setCancelHandler { done.signal() }
        timer.cancel()
        done.wait()
    }

    /// Runs `body` while polling `db`; the body gets the count of other reads (`nil` when there
    /// is nothing to report or cancel), to count a second reader's with ``OtherReads/counting(_:_:)``.
    /// - Throws: ``DatabaseFileError/cancelled`` when it was interrupted because the conversion
    ///   was cancelled, else the body's error.
    static func observe<T>(_ db: Connection, expectedBytes: Int64, totalBytes: Int64, options: DatabaseFileOptions,
                           phase: DatabaseFileProgress.Phase, span: ClosedRange<Double>, _ body: (OtherReads?) throws -> T) throws -> T {
        guard let poller = ReadProgressPoller(db, expectedBytes: expectedBytes, totalBytes: totalBytes, options: options,
                                              phase: phase, span: span) else { return try body(nil) }
        let result: Result<T, any Error> = Result { try body(poller.otherReads) }
        poller.stop()
        // Work that ended, or finished before the interrupt reached it, was still cancelled.
        if poller.wasCancelled { throw DatabaseFileError.cancelled }
        return try result.get()
    }
}
