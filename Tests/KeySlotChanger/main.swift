import CipherStore
import Foundation

// A child process for the key-slot crash tests: changes the passphrase of a slot database back
// and forth between two passphrases until it is killed, printing "changed N" after each change.
// Usage: key-slot-changer DATABASE   (the two passphrases on standard input, one per line,
// the first being the current one)

let arguments = CommandLine.arguments
guard arguments.count == 2, let first = readLine(), let second = readLine() else {
    FileHandle.standardError.write(Data("usage: key-slot-changer DATABASE (two passphrases on standard input)\n".utf8))
    exit(64)
}
let passphrases = try [Passphrase(first), Passphrase(second)]
// A tiny scrypt: each change is a few file writes, so kills land anywhere in them.
let kdf = KeySlotKDF.scrypt(log2N: 4, blockSize: 1, parallelism: 1)
var current = 0
var changes = 0
while true {
    try KeySlots.changePassphrase(path: arguments[1], from: passphrases[current], to: passphrases[1 - current], kdf: kdf)
    current = 1 - current
    changes += 1
    // Written straight to the descriptor: nothing is left in a buffer when the process is killed.
    FileHandle.standardOutput.write(Data("changed \(changes)\n".utf8))
}
