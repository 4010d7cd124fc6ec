import Dispatch

/// The permits of a pool's reading connections, one per connection.
///
/// A caller that finds no permit free waits without holding a thread of its own: what it will
/// do next is queued, and the `release()` that frees a permit hands it over and starts that
/// next step. A burst of `async` reads, or of observation fetches, thus waits as suspended
/// tasks and queued closures — never as one blocked thread each (GCD would start hundreds). A
/// blocking caller waits on a semaphore of its own. Waiters are served in arrival order.
final class ReaderPermits: Sendable {
    private struct State {
        var available: Int
        var waiters: [@Sendable () -> Void] = []
    }

    private let state: Locked<State>

    init(count: Int) {
        state = Locked(State(available: count))
    }

    /// Takes a permit and calls `granted` — at once when one is free, otherwise from the
    /// `release()` that frees one. `granted` must be quick: hand any work over to a queue.
    func acquire(then granted: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.available > 0 else {
                state.waiters.append(granted)
                return false
            }
            state.available -= 1
            return true
        }
        if now { granted() }
    }

    /// Takes a permit, blocking the calling thread until one is free.
    func acquire() {
        let semaphore = DispatchSemaphore(value: 0)
        acquire { semaphore.signal() }
        semaphore.wait()
    }

    /// Takes a permit, suspending the calling task (not its thread) until one is free.
    func acquire() async {
        await withCheckedContinuation { continuation in
            acquire { continuation.resume() }
        }
    }

    /// Gives a permit back: to the first waiter, if any.
    func release() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?()
    }
}
