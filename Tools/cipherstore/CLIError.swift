import ArgumentParser

/// A failure with a message for the user and the exit code scripts see.
struct CLIError: Error, CustomStringConvertible {
    let exitCode: Int32
    let message: String
    var description: String { message }
}
