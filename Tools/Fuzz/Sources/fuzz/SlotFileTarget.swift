import CipherStore
import Foundation

// The slot-file parser and the opening of recovery-key slots (AES-GCM, HKDF: no stretching), on
// fuzzed slot files beside a real slot database. Only thrown errors are acceptable.
// Passphrase slots are never opened here: a fuzzed file may ask for up to 1 GiB of scrypt (the
// caps), which is checked by the parser, not worth running thousands of times a second.

/// A slot database and the recovery key of its second slot, made once.
let slotDatabase: (path: String, recoveryKey: String) = {
    let path = scratchPath("slots.db")
    for suffix in ["", ".keys"] { unlink(path + suffix) }
    let passphrase = try! Passphrase("fuzz passphrase")
    try! Connection(path: path, key: nil).execute(sql: "CREATE TABLE t(x)")
    try! KeySlots.encrypt(path: path, passphrase: passphrase, kdf: .scrypt(log2N: 13, blockSize: 1, parallelism: 1))
    let recovery = try! KeySlots.addRecoveryKey(path: path, existing: passphrase)
    return (path, recovery.text)
}()

func fuzzSlotFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let (path, recoveryKey) = slotDatabase
    guard (try? Data(bytes: data, count: size).write(to: URL(fileURLWithPath: KeySlots.slotFilePath(forDatabase: path)))) != nil else { return 0 }
    if let slots = try? KeySlots.list(path: path) {
        // A file that parses lists labels without control characters.
        for slot in slots where slot.label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            FileHandle.standardError.write(Data("a label with control characters was accepted\n".utf8))
            abort()
        }
    }
    _ = try? KeySlots.unlock(path: path, passphrase: Passphrase(recoveryKey))
    return 0
}

/// The slot file of ``slotDatabase``: the seed of this target.
func slotFileSeed() -> Data {
    (try? Data(contentsOf: URL(fileURLWithPath: KeySlots.slotFilePath(forDatabase: slotDatabase.path)))) ?? Data()
}
