/// A passphrase made afresh for each benchmark run, so that no key lives in the repository.
///
/// The `sqlcipher` shell baselines can take a key only in SQL text (`PRAGMA key`, `ATTACH … KEY`),
/// which the benchmark sends on the shell's standard input, never in argv; a per-run random
/// value means that text names nothing that opens a real file.
public func throwawayPassphrase() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    var generator = SystemRandomNumberGenerator()
    return String((0..<24).map { _ in alphabet.randomElement(using: &generator)! })
}
