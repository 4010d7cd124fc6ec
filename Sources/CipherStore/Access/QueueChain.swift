#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The queues and pools whose blocks the current thread is running inside, outermost first.
///
/// `DispatchQueue.getSpecific` sees only the innermost queue, so `a → b → a` would pass its
/// check and deadlock in `sync`. Each block instead runs with the chain of its caller plus its
/// own queue, set on whichever thread runs it (`sync` may run the block on the calling thread
/// or on another one) and restored afterwards. A thread-local, not a task-local: a task
/// started inside a block inherits task-locals but does not run inside the block, and may
/// well wait for the queue.
enum QueueChain {
    /// The chain of the current thread.
    static var current: [ObjectIdentifier] { storage?.queues ?? [] }

    /// The chain for a block of `owner` called from the current thread.
    /// - Throws: ``CipherStoreError/reentrantQueueAccess`` when the current thread is already
    ///   inside a block of `owner`, directly or through other queues.
    static func enter(_ owner: ObjectIdentifier) throws -> [ObjectIdentifier] {
        let chain = current
        guard !chain.contains(owner) else { throw CipherStoreError.reentrantQueueAccess }
        return chain + [owner]
    }

    /// Runs `body` with `chain` as the current thread's chain, then restores the previous one.
    static func with<T>(_ chain: [ObjectIdentifier], _ body: () throws -> T) rethrows -> T {
        let box = storage ?? makeStorage()
        let previous = box.queues
        box.queues = chain
        defer { box.queues = previous }
        return try body()
    }

    /// One per thread, released when the thread exits.
    private final class Box {
        var queues: [ObjectIdentifier] = []
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let code = pthread_key_create(&key) { releaseBox($0) }
        precondition(code == 0, "pthread_key_create failed (\(code)): the process is out of thread-local keys")
        return key
    }()

    private static var storage: Box? {
        pthread_getspecific(key).map { Unmanaged<Box>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func makeStorage() -> Box {
        let box = Box()
        pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
        return box
    }
}

private func releaseBox(_ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    Unmanaged<AnyObject>.fromOpaque(pointer).release()
}
