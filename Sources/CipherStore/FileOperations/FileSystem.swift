#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations CipherStore needs, in one place.
enum FileSystem {
    /// Creates a missing file with mode 0600, so a database (and the journals SQLite gives the
    /// same mode) never starts out readable by others. Returns the path when it created it.
    static func createOwnerOnlyFileIfMissing(_ path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            // Exists already, or cannot be created: SQLite's own open reports the latter precisely.
            return nil
        }
        close(descriptor)
        return path
    }

    /// Removes a file, ignoring a missing one.
    static func removeIfPresent(_ path: String) {
        unlink(path)
    }
}
