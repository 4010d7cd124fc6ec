/// The values of a fetch, observed: the current value first, then a fresh one after each
/// committed transaction that changed a table the fetch read.
///
/// Get one from `observe(_:)` of a ``DatabaseQueue`` or a ``DatabasePool`` and iterate it:
///
/// ```swift
/// for try await count in pool.observe({ db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? 0 }) {
///     print("notes:", count)
/// }
/// ```
///
/// - The observation starts when iteration starts, and each iterator is an observation of
///   its own. It ends when the iterating task is cancelled or the iterator is released (then
///   everything it holds is released), when the queue or pool closes (the sequence ends),
///   or when the fetch throws (the sequence throws that error).
/// - Which tables a fetch read is found out at each fetch, from the programs SQLite compiled
///   for its statements; when that cannot be exact (virtual, `WITHOUT ROWID` or attached
///   tables, `sqlite_master`), every commit counts. Commits that changed none of them, and
///   transactions rolled back, cause no fetch. Commits made with `execute(sql: "BEGIN")` …
///   `"COMMIT"` count like those of `inTransaction`.
/// - Commits made by another process, or by another queue or pool on the same file, count
///   as changes to every table: on Linux the file is watched while the observation runs (see
///   the Observation article); elsewhere they are not seen.
/// - Fetches run in a read-only transaction, never two at once for one observation, and
///   never on the caller's thread: on a ``DatabaseQueue``, after the blocks already queued;
///   on a ``DatabasePool``, on a reader, so the writer does not wait for them. Commits that
///   come faster than fetches share one value, so the last value always shows the last
///   commit, but not every commit has a value of its own.
/// - Values wait for the consumer in a buffer of one: a slow consumer gets the newest value.
public struct DatabaseObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value

    private let start: @Sendable () -> AsyncThrowingStream<Value, any Error>
    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    init(start: @escaping @Sendable () -> AsyncThrowingStream<Value, any Error>,
         isDuplicate: (@Sendable (Value, Value) -> Bool)? = nil) {
        self.start = start
        self.isDuplicate = isDuplicate
    }

    /// Starts the observation.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: start().makeAsyncIterator(), isDuplicate: isDuplicate)
    }

    /// Reads the observed values one by one.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Value, any Error>.AsyncIterator
        let isDuplicate: (@Sendable (Value, Value) -> Bool)?
        var last: Value?

        /// The next value, waiting for the next relevant commit; `nil` once the observation ended.
        /// - Throws: the fetch's error, which ends the observation.
        public mutating func next() async throws -> Value? {
            while let value = try await base.next() {
                if let isDuplicate, let last, isDuplicate(last, value) { continue }
                last = value
                return value
            }
            return nil
        }
    }
}

extension DatabaseObservation where Value: Equatable {
    /// The same observation without a value equal to the one before it.
    public func removingDuplicates() -> DatabaseObservation {
        DatabaseObservation(start: start, isDuplicate: { $0 == $1 })
    }
}

extension ObservationCenter {
    /// An observation of `fetch`, whose fetches `schedule` runs.
    func observation<Value: Sendable>(of fetch: @escaping @Sendable (Connection) throws -> Value,
                                      schedule: @escaping ValueObserver<Value>.Scheduler) -> DatabaseObservation<Value> {
        DatabaseObservation { [self] in
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: Value.self, throwing: (any Error).self,
                                                                        bufferingPolicy: .bufferingNewest(1))
            ValueObserver(fetch: fetch, schedule: schedule, continuation: continuation, center: self).start()
            return stream
        }
    }
}
