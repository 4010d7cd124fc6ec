import Synchronization

/// A flag one side sets and the other waits for.
final class Signal: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .acquiring) }

    @Sendable func set() { flag.store(true, ordering: .releasing) }

    /// Waits (polling, suspended) until the flag is set.
    func wait() async throws {
        while !isSet { try await Task.sleep(for: .milliseconds(2)) }
    }
}

/// A count shared with `@Sendable` closures.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
