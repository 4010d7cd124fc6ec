/// A change was made on disk, but the sync that makes it survive a power cut failed.
///
/// The new state is in place and in use: ``nowOnDisk`` says what it is and what opens it.
/// Until the disk is healthy and synced, a power cut could bring back the state before the
/// command (``previousState``). Nothing was rolled back, since the new state is what the name
/// holds now: undoing it would be another write to a disk that just failed one.
///
/// `cipherstore` exits with 75 (temporary failure) for this error.
public struct NotDurableError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file whose name now leads to the new content.
    public let path: String
    /// The call that failed and the system's reason.
    public let failure: String
    /// What is in place now, and what opens it.
    public let nowOnDisk: String
    /// What a power cut before the next successful sync could bring back.
    public let previousState: String
    /// What to do next.
    public let nextStep: String

    public init(path: String, failure: String, nowOnDisk: String, previousState: String, nextStep: String) {
        self.path = path
        self.failure = failure
        self.nowOnDisk = nowOnDisk
        self.previousState = previousState
        self.nextStep = nextStep
    }

    public var description: String {
        "The change was made, but it is not confirmed on disk: \(failure). Now on disk: \(nowOnDisk). A power cut before the disk is synced could bring back \(previousState). \(nextStep)"
    }
}
