import Dispatch
import StatusFeed
import Synchronization

/// Timelines handed from an observing task to the demo's synchronous code, in order.
final class TimelineArrivals: Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    private let timelines = Mutex<[[TimelineEntry]]>([])

    func record(_ timeline: [TimelineEntry]) {
        timelines.withLock { $0.append(timeline) }
        arrived.signal()
    }

    /// The next timeline, waiting up to `timeout` seconds; `nil` when none came.
    func next(timeout seconds: Double) -> [TimelineEntry]? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return timelines.withLock { $0.removeFirst() }
    }
}

/// Waits, blocking the calling (non-task) thread, for a task's result.
func awaitResult<T: Sendable>(of task: Task<T, any Error>) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, any Error>?>(nil)
    Task {
        let outcome = await task.result
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
