@_spi(Tools) import CipherStore
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Reads keys from the sources the CLI accepts — a file, an environment variable, standard
/// input, or a prompt without echo — never from argv.
///
/// Every source is read by one rule, the library's (``DatabaseKey/passphrase(keyFileContents:)``):
/// the key is the whole content minus one trailing "\n" or "\r\n". Standard input is read to
/// its end; only when `rekey` reads both keys there is its first line the current key and the
/// rest the new key. The bytes read are wiped once the key is made.
enum KeyReader {
    /// Where one key comes from.
    struct Source {
        var file: String?
        var environment: String?
        var standardInput: Bool
        var raw: Bool
        /// The role for messages and the prompt: "key", "old key", "new key".
        var role: String
        /// The option prefix for messages: "--key", "--old-key", "--new-key".
        var optionPrefix: String
        /// Whether a prompt asks twice (for a key being set).
        var confirm: Bool

        var isGiven: Bool { file != nil || environment != nil || standardInput }

        /// The flag that makes this key a raw key: "--raw-key", "--old-raw-key", "--new-raw-key".
        var rawKeyOption: String { String(optionPrefix.dropLast(3)) + "raw-key" }
    }

    static func read(_ source: Source) throws -> DatabaseKey {
        try read(source, as: key(from:_:))
    }

    /// A passphrase (or recovery key) for a key slot, read by the same rule. A raw key opens
    /// no slot, so `--raw-key` is refused here.
    static func readPassphrase(_ source: Source) throws -> Passphrase {
        try read(source, as: passphrase(from:_:))
    }

    /// One secret from `source`, made by `make` from the bytes read, which are wiped after.
    static func read<Secret>(_ source: Source, as make: (ArraySlice<UInt8>, Source) throws -> Secret) throws -> Secret {
        try checkGivenOnce(source)
        var bytes: [UInt8]
        if let file = source.file {
            bytes = try readFile(file, role: source.role)
        } else if let name = source.environment {
            bytes = try readEnvironment(name, source)
        } else if source.standardInput {
            bytes = try readStandardInput(source)
        } else {
            bytes = try prompt(source)
        }
        defer { SecretInput.wipe(&bytes) }
        return try make(bytes[...], source)
    }

    /// The current and the new key of `rekey`. With both on standard input, its first line is
    /// the current key and the rest (minus one trailing line ending) the new key.
    static func readPair(current: Source, new: Source) throws -> (current: DatabaseKey, new: DatabaseKey) {
        try readPair(current: current, as: key(from:_:), new: new, as: key(from:_:))
    }

    /// Two secrets, each made by its own function, with the same rule for standard input as
    /// ``readPair(current:new:)``.
    static func readPair<Current, New>(current: Source, as makeCurrent: (ArraySlice<UInt8>, Source) throws -> Current,
                                       new: Source, as makeNew: (ArraySlice<UInt8>, Source) throws -> New) throws -> (current: Current, new: New) {
        guard current.standardInput && new.standardInput else {
            return (try read(current, as: makeCurrent), try read(new, as: makeNew))
        }
        try checkGivenOnce(current)
        try checkGivenOnce(new)
        var input = try readStandardInput(current)
        defer { SecretInput.wipe(&input) }
        guard let lineEnd = input.firstIndex(of: UInt8(ascii: "\n")) else {
            throw CLIError(exitCode: 64, message: "Standard input holds one line, and both keys were to be read there: the first line is the \(current.role), the rest the \(new.role). Nothing was changed.")
        }
        return (try makeCurrent(input[...lineEnd], current), try makeNew(input[(lineEnd + 1)...], new))
    }

    private static func checkGivenOnce(_ source: Source) throws {
        let given = [source.file != nil, source.environment != nil, source.standardInput].filter { $0 }.count
        guard given <= 1 else {
            throw CLIError(exitCode: 64, message: "Give the \(source.role) once: one of \(source.optionPrefix)-file, \(source.optionPrefix)-env or \(source.optionPrefix)-stdin.")
        }
    }

    static func passphrase(from bytes: ArraySlice<UInt8>, _ source: Source) throws -> Passphrase {
        if source.raw {
            let flag = source.rawKeyOption
            throw CLIError(exitCode: 64, message: "A key slot opens with a passphrase or a recovery key, not a raw key: leave out \(flag). (The raw data key opens the database without its slot file: verify, query and decrypt take it with --raw-key.)")
        }
        do {
            return try Passphrase(keyFileContents: bytes)
        } catch {
            guard let problem = ErrorText.keyProblem(error, rawKeyOption: source.rawKeyOption) else { throw error }
            throw CLIError(exitCode: 64, message: "The \(source.role) cannot be used: \(problem)")
        }
    }

    static func key(from bytes: ArraySlice<UInt8>, _ source: Source) throws -> DatabaseKey {
        do {
            return source.raw ? try DatabaseKey.rawKey(hexKeyFileContents: bytes) : try DatabaseKey.passphrase(keyFileContents: bytes)
        } catch let error as CipherStoreError {
            if let problem = ErrorText.keyProblem(error, rawKeyOption: source.rawKeyOption) {
                throw CLIError(exitCode: 64, message: "The \(source.role) cannot be used: \(problem)")
            }
            throw CLIError(exitCode: 64, message: "The \(source.role): \(error.description)")
        }
    }

    private static func readFile(_ path: String, role: String) throws -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CLIError(exitCode: ExitCodes.ioFailure, message: "Cannot read the \(role) file '\(path)': \(String(cString: strerror(errno))).")
        }
        // A named pipe too: whoever may open it can race the reader for the key. (An
        // anonymous pipe, as `<(pass show app)` gives, is the owner's alone.)
        if status.st_mode & 0o077 != 0 {
            warn("the \(role) file '\(path)' is readable by group or others; restrict it with `chmod 600 \(path)`.")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, let bytes = SecretInput.readAll(descriptor) else {
            let reason = errno == EFBIG ? "it holds more than \(SecretInput.limit / 1024) KiB, and a key file holds only the key. Nothing was changed" : String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw CLIError(exitCode: ExitCodes.ioFailure, message: "Cannot read the \(role) file '\(path)': \(reason).")
        }
        close(descriptor)
        guard !bytes.isEmpty else {
            throw CLIError(exitCode: 64, message: "The \(role) file '\(path)' is empty. Write the key into it (a trailing line ending is dropped).")
        }
        return bytes
    }

    private static func readEnvironment(_ name: String, _ source: Source) throws -> [UInt8] {
        guard let value = getenv(name) else {
            throw CLIError(exitCode: 64, message: "The environment variable \(name) for the \(source.role) is not set. Export it, or use \(source.optionPrefix)-file.")
        }
        let count = strlen(value)
        let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: count))
        // Wipe the value where the kernel keeps the initial environment (it shows in
        // /proc/PID/environ), then drop the variable so child processes do not inherit it.
        SecureMemory.wipe(UnsafeMutableRawBufferPointer(start: value, count: count))
        unsetenv(name)
        return bytes
    }

    /// All of standard input, which must be a pipe or a file: on a terminal the key would be
    /// echoed (the prompt is for that).
    private static func readStandardInput(_ source: Source) throws -> [UInt8] {
        if isatty(STDIN_FILENO) == 1 {
            throw CLIError(exitCode: 64, message: "\(source.optionPrefix)-stdin reads the \(source.role) from a pipe or a file, but standard input is a terminal, where the key would show. Leave out \(source.optionPrefix)-stdin to be asked without echo, or pipe the key in.")
        }
        guard let bytes = SecretInput.readAll(STDIN_FILENO) else {
            let reason = errno == EFBIG ? "it holds more than \(SecretInput.limit / 1024) KiB; pipe in only the key. Nothing was changed" : String(cString: strerror(errno))
            throw CLIError(exitCode: ExitCodes.ioFailure, message: "Cannot read the \(source.role) from standard input: \(reason).")
        }
        guard !bytes.isEmpty else {
            throw CLIError(exitCode: 64, message: "Nothing was read from standard input for the \(source.role) (\(source.optionPrefix)-stdin): it was empty. Pipe the key in, e.g. `< app.key`. Nothing was changed.")
        }
        return bytes
    }

    private static func prompt(_ source: Source) throws -> [UInt8] {
        guard let tty = fopen("/dev/tty", "r+") else {
            throw CLIError(exitCode: 64, message: "No \(source.role) given and no terminal to ask on. Use \(source.optionPrefix)-file, \(source.optionPrefix)-env or \(source.optionPrefix)-stdin.")
        }
        defer { fclose(tty) }
        var first = readWithoutEcho(tty, prompt: "Enter the \(source.role): ")
        if source.confirm {
            var second = readWithoutEcho(tty, prompt: "Enter the \(source.role) again: ")
            defer { SecretInput.wipe(&second) }
            guard first == second else {
                SecretInput.wipe(&first)
                throw CLIError(exitCode: 64, message: "The two entries of the \(source.role) differ. Nothing was changed; try again.")
            }
        }
        return first
    }

    private static func readWithoutEcho(_ tty: UnsafeMutablePointer<FILE>, prompt: String) -> [UInt8] {
        let descriptor = fileno(tty)
        var saved = termios()
        tcgetattr(descriptor, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        // Echo comes back however the prompt ends: Enter, end of input, an error, or a signal.
        return Interruption.withTerminalRestored(descriptor, to: saved) {
            tcsetattr(descriptor, TCSANOW, &silent)
            defer { fputs("\n", tty) }
            fputs(prompt, tty)
            fflush(tty)
            var line: [UInt8] = []
            line.reserveCapacity(1024)
            while true {
                let character = fgetc(tty)
                if character == EOF || character == 0x0A { break }
                line.append(UInt8(truncatingIfNeeded: character))
            }
            return line
        }
    }
}

/// Prints a warning on standard error.
func warn(_ message: String) {
    ProgressBar.endOpenLine()
    StandardStreams.writeError("cipherstore: warning: \(message)\n")
}
