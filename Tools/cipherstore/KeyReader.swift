import CipherStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads keys from the sources the CLI accepts — a file, an environment variable, standard
/// input, or a prompt without echo — never from argv.
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
    }

    static func read(_ source: Source) throws -> DatabaseKey {
        let given = [source.file != nil, source.environment != nil, source.standardInput].filter { $0 }.count
        guard given <= 1 else {
            throw CLIError(exitCode: 64, message: "Give the \(source.role) once: one of \(source.optionPrefix)-file, \(source.optionPrefix)-env or \(source.optionPrefix)-stdin.")
        }
        var bytes: [UInt8]
        if let file = source.file {
            bytes = try readFile(file, role: source.role)
        } else if let name = source.environment {
            guard let value = getenv(name) else {
                throw CLIError(exitCode: 64, message: "The environment variable \(name) for the \(source.role) is not set. Export it, or use \(source.optionPrefix)-file.")
            }
            let count = strlen(value)
            bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: count))
            // Wipe the value where the kernel keeps the initial environment (it shows in
            // /proc/PID/environ), then drop the variable so child processes do not inherit it.
            explicit_bzero(value, count)
            unsetenv(name)
        } else if source.standardInput {
            bytes = readLineFromStandardInput()
        } else {
            bytes = try prompt(source)
        }
        defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        stripLineEnd(&bytes)
        do {
            return source.raw ? try DatabaseKey.rawKey(hex: bytes) : try DatabaseKey.passphrase(bytes: bytes)
        } catch CipherStoreError.invalidKey(let reason) {
            throw CLIError(exitCode: 64, message: "The \(source.role) cannot be used: \(reason)")
        } catch let error as CipherStoreError {
            throw CLIError(exitCode: 64, message: "The \(source.role): \(error.description)")
        }
    }

    private static func readFile(_ path: String, role: String) throws -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CLIError(exitCode: ExitCodes.ioFailure, message: "Cannot read the \(role) file '\(path)': \(String(cString: strerror(errno))).")
        }
        if status.st_mode & 0o077 != 0 {
            warn("the \(role) file '\(path)' is readable by group or others; restrict it with `chmod 600 \(path)`.")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(exitCode: ExitCodes.ioFailure, message: "Cannot read the \(role) file '\(path)'.")
        }
        return Array(data)
    }

    /// One line from standard input, read byte by byte so a second key on the next line stays unread.
    private static func readLineFromStandardInput() -> [UInt8] {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(STDIN_FILENO, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        return line
    }

    private static func prompt(_ source: Source) throws -> [UInt8] {
        guard let tty = fopen("/dev/tty", "r+") else {
            throw CLIError(exitCode: 64, message: "No \(source.role) given and no terminal to ask on. Use \(source.optionPrefix)-file, \(source.optionPrefix)-env or \(source.optionPrefix)-stdin.")
        }
        defer { fclose(tty) }
        let first = readWithoutEcho(tty, prompt: "Enter the \(source.role): ")
        if source.confirm {
            var second = readWithoutEcho(tty, prompt: "Enter the \(source.role) again: ")
            defer { second.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
            guard first == second else {
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
        tcsetattr(descriptor, TCSANOW, &silent)
        defer {
            tcsetattr(descriptor, TCSANOW, &saved)
            fputs("\n", tty)
        }
        fputs(prompt, tty)
        fflush(tty)
        var line: [UInt8] = []
        while true {
            let character = fgetc(tty)
            if character == EOF || character == 0x0A { break }
            line.append(UInt8(truncatingIfNeeded: character))
        }
        return line
    }

    private static func stripLineEnd(_ bytes: inout [UInt8]) {
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    }
}

/// Prints a warning on standard error.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("cipherstore: warning: \(message)\n".utf8))
}
