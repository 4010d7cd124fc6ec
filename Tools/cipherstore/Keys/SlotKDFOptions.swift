import ArgumentParser
import CipherStore

/// `--slot-kdf`, `--slot-kdf-ms`: how a new passphrase slot stretches its passphrase.
struct SlotKDFOptions: ParsableArguments {
    enum Algorithm: String, ExpressibleByArgument, CaseIterable {
        case scrypt, pbkdf2
    }

    @Option(name: .customLong("slot-kdf"), help: "Key derivation of a new passphrase slot: scrypt (the default) or pbkdf2 (PBKDF2-HMAC-SHA256). `keys change` keeps the old slot's unless this or --slot-kdf-ms is given.")
    var algorithm: Algorithm?

    @Option(name: .customLong("slot-kdf-ms"), help: ArgumentHelp("Calibrate the key derivation to take about this long on this machine, paid once per open (default 250; 1 to 60000).", valueName: "milliseconds"))
    var milliseconds: Int?

    func validate() throws {
        if let milliseconds, !(1...60_000).contains(milliseconds) {
            throw ValidationError("--slot-kdf-ms must be from 1 to 60000 milliseconds, got \(milliseconds).")
        }
    }

    /// The choice given, or `nil` when neither option is.
    var given: KeySlotKDF? {
        guard algorithm != nil || milliseconds != nil else { return nil }
        return kdf
    }

    /// The choice given, with the defaults for what is left out.
    var kdf: KeySlotKDF {
        let target = Duration.milliseconds(milliseconds ?? 250)
        switch algorithm ?? .scrypt {
        case .scrypt: return .scrypt(targetDuration: target)
        case .pbkdf2: return .pbkdf2SHA256(targetDuration: target)
        }
    }
}
