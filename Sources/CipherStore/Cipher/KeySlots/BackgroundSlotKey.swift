import Dispatch

/// A new slot's wrapping key, derived on another thread while the calling one opens an existing
/// slot: adding or changing a passphrase then waits for about one key derivation, not two.
///
/// The derivation is started with the parameters the new slot is expected to use. When the
/// opened slot calls for other ones (a change keeps the old slot's parameters, and they are
/// known only once it opened), ``key(for:)`` derives again with those. A wrong existing
/// passphrase wastes the background derivation; ``key(for:)`` or ``finish()`` waits for it
/// either way, so no work on the secret outlives the operation.
final class BackgroundSlotKey: Sendable {
    private let secret: SecureBytes
    private let guess: KeyDerivation
    private let done = DispatchGroup()
    private let result = Locked<Result<SlotSealer.NewSlotKey, any Error>?>(nil)

    /// Starts deriving a wrapping key for `secret` with `derivation`.
    init(secret: SecureBytes, derivation: KeyDerivation) {
        self.secret = secret
        self.guess = derivation
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [done, result] in
            let key = Result { try secret.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: derivation) } }
            result.withLock { $0 = key }
            done.leave()
        }
    }

    /// The wrapping key for a slot derived with `derivation`: the background one when it was
    /// derived with those parameters, otherwise one derived now.
    /// - Throws: ``KeySlotError/invalidKDF(reason:)``.
    func key(for derivation: KeyDerivation) throws -> SlotSealer.NewSlotKey {
        let background = finish()
        guard derivation == guess else {
            return try secret.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: derivation) }
        }
        return try background.get()
    }

    /// Waits for the background derivation and returns its outcome.
    @discardableResult
    func finish() -> Result<SlotSealer.NewSlotKey, any Error> {
        done.wait()
        // Set before the group was left.
        return result.withLock { $0! }
    }
}
