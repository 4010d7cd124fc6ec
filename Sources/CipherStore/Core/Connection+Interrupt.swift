extension Connection {
    /// Stops the statements running on this connection: each fails with a ``DatabaseError``
    /// of code `SQLITE_INTERRUPT` (``DatabaseError/isInterruptionError``). Callable from any
    /// thread, also while the connection closes; on a closed connection it does nothing.
    ///
    /// An interrupted `INSERT`, `UPDATE` or `DELETE` inside a transaction rolls the whole
    /// transaction back (SQLite does). A statement that starts once nothing runs any more is
    /// not affected. For a queue or pool, call ``DatabaseReader/interrupt()``, which is
    /// `Sendable`.
    ///
    /// See <https://www.sqlite.org/c3ref/interrupt.html>.
    public func interrupt() {
        handle.interrupter.interrupt()
    }

    /// Runs `body` on behalf of an `async` call whose task may be cancelled (`flag`): the
    /// caller's block inside it runs under ``interruptibly(_:)``.
    func withTaskCancellation<T>(_ flag: CancellationFlag, _ body: () throws -> T) rethrows -> T {
        let outer = taskCancellation
        taskCancellation = flag
        defer { taskCancellation = outer }
        return try body()
    }

    /// Runs a caller's block so that cancelling the task of the `async` call that runs it
    /// stops it: the statement running is interrupted, and every statement the block starts
    /// afterwards is refused the same way, until the block returns. The call then throws
    /// `CancellationError` (unless the block handled the interruption and returned).
    ///
    /// Only the caller's block: the statements of the library around it (`BEGIN`, `COMMIT`,
    /// `ROLLBACK`) run whatever happens, so a cancelled write is rolled back, never left open.
    /// The interrupt is made under the cancellation flag's lock, which the block's end takes
    /// too: a cancellation that comes later cannot reach the next block on the connection.
    /// Without an `async` call around it, or inside another such block, it just runs the block.
    func interruptibly<T>(_ block: (Connection) throws -> T) throws -> T {
        guard let flag = taskCancellation, !runsInterruptibleBlock else { return try block(self) }
        runsInterruptibleBlock = true
        let interrupter = handle.interrupter
        defer {
            interrupter.endCancellation()
            runsInterruptibleBlock = false
        }
        do {
            return try flag.whileRunning(onCancel: interrupter.cancel) { try block(self) }
        } catch let error as DatabaseError where error.isInterruptionError && flag.isSet {
            throw CancellationError()
        }
    }
}

extension Connection {
    /// Runs `body`, the library's own statement that ends what a block began (a rollback, a
    /// pragma put back), whatever interrupts meant for the block's statements do: it runs
    /// again when an interrupt hit it (an interrupt stops only the statements running when it
    /// is called), and a cancelled block's refusal of new statements does not apply to it.
    func ignoringInterrupts(_ body: () throws -> Void) throws {
        let interrupter = handle.interrupter
        var wasCancelled = false
        defer { if wasCancelled { interrupter.cancelStatements() } }
        var attempts = 0
        while true {
            if interrupter.takeCancellation() { wasCancelled = true }
            do {
                return try body()
            } catch ResultCode.SQLITE_INTERRUPT where attempts < 3 {
                attempts += 1
            }
        }
    }
}
