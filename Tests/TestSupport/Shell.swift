import Foundation

/// Runs a command line with `/bin/sh` for test setup (mounting a small file system, for
/// example); its error output is discarded.
public enum Shell {
    /// Whether the command ran and exited with status 0.
    public static func succeeds(_ command: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " 2>/dev/null"]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
