import ArgumentParser

/// A failure with a message for the user and the exit code scripts see.
struct CLIError: Error, CustomStringConvertible {
    let exitCode: Int32
    let message: String
    /// What went wrong, as `--json` names it in `error.kind`; when `nil`, the kind of failure
    /// the exit code stands for (see ``JSONOutput/kind(of:)``).
    var kind: String? = nil
    var description: String { message }
}
