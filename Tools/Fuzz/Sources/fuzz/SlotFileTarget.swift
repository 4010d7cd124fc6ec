@_spi(Fuzzing) import CipherStore
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
    try! KeySlots.encrypt(path: path, passphrase: passphrase, kdf: .scrypt(log2N: 14, blockSize: 1, parallelism: 1))
    let recovery = try! KeySlots.addRecoveryKey(path: path, existing: passphrase)
    return (path, recovery.text)
}()

func fuzzSlotFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    // Parsed in memory: no file per run.
    guard let (slots, _) = try? KeySlots.parseAndOpenRecoverySlots(Array(UnsafeBufferPointer(start: data, count: size)),
                                                                   recoveryKey: recoveryPassphrase) else { return 0 }
    // A file that parses lists labels without control or formatting characters.
    let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
    for slot in slots where slot.label.unicodeScalars.contains(where: { hidden.contains($0.properties.generalCategory) }) {
        FileHandle.standardError.write(Data("a label with hidden characters was accepted\n".utf8))
        abort()
    }
    return 0
}

let recoveryPassphrase = try! Passphrase(slotDatabase.recoveryKey)

/// The slot file of ``slotDatabase``: the seed of this target.
func slotFileSeed() -> Data {
    (try? Data(contentsOf: URL(fileURLWithPath: KeySlots.slotFilePath(forDatabase: slotDatabase.path)))) ?? Data()
}
