import CipherStore
import Foundation

// A child process for the key-slot crash tests, run until it is killed:
//   key-slot-changer DATABASE change   changes the passphrase back and forth between two,
//                                      printing "changed N" after each change;
//   key-slot-changer DATABASE rotate   rotates the data key, keeping the first passphrase,
//                                      printing "rotated N" after each rotation;
//   key-slot-changer DATABASE add-remove  adds the second passphrase (with the first) and
//                                      removes its slot again, printing "added N" and "removed N".
// The passphrases come on standard input, one per line, the current one first.

let arguments = CommandLine.arguments
guard arguments.count == 3, ["change", "rotate", "add-remove"].contains(arguments[2]), let first = readLine(), let second = readLine() else {
    FileHandle.standardError.write(Data("usage: key-slot-changer DATABASE change|rotate|add-remove (two passphrases on standard input)\n".utf8))
    exit(64)
}
let passphrases = try [Passphrase(first), Passphrase(second)]
// A tiny scrypt: each change is a few file writes, so kills land anywhere in them.
let kdf = KeySlotKDF.scrypt(log2N: 14, blockSize: 1, parallelism: 1)
var current = 0
var count = 0
while true {
    var done: String
    switch arguments[2] {
    case "change":
        try KeySlots.changePassphrase(path: arguments[1], from: passphrases[current], to: passphrases[1 - current], kdf: kdf)
        current = 1 - current
        done = "changed"
    case "rotate":
        try KeySlots.rotateDataKey(path: arguments[1], keeping: [passphrases[0]])
        done = "rotated"
    default:
        let added: KeySlotInfo
        do {
            added = try KeySlots.addPassphrase(path: arguments[1], existing: passphrases[0], new: passphrases[1], kdf: kdf)
        } catch KeySlotError.passphraseAlreadyInSlot(_, let slot) {
            // A run killed between its add and its removal left the second passphrase's slot.
            try KeySlots.removeSlot(path: arguments[1], id: slot, remaining: passphrases[0])
            continue
        }
        FileHandle.standardOutput.write(Data("added \(count + 1)\n".utf8))
        try KeySlots.removeSlot(path: arguments[1], id: added.id, remaining: passphrases[0])
        done = "removed"
    }
    count += 1
    // Written straight to the descriptor: nothing is left in a buffer when the process is killed.
    FileHandle.standardOutput.write(Data("\(done) \(count)\n".utf8))
}
