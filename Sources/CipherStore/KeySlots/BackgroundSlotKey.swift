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
    private let work: BackgroundWork<SlotSealer.NewSlotKey>

    /// Starts deriving a wrapping key for `secret` with `derivation`.
    init(secret: SecureBytes, derivation: KeyDerivation) {
        self.secret = secret
        self.guess = derivation
        let counter = KeyDerivation.derivationCounter
        work = BackgroundWork {
            try KeyDerivation.$derivationCounter.withValue(counter) {
                try secret.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: derivation) }
            }
        }
    }

    /// The wrapping key for a slot derived with `derivation`: the background one when it was
    /// derived with those parameters, otherwise one derived now.
    /// - Throws: ``KeySlotError/invalidKDF(reason:)``.
    func key(for derivation: KeyDerivation) throws -> SlotSealer.NewSlotKey {
        work.wait()
        guard derivation == guess else {
            return try secret.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: derivation) }
        }
        return try work.value()
    }

    /// Waits for the background derivation.
    func finish() {
        work.wait()
    }
}
