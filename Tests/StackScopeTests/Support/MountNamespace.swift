import Foundation

/// Whether tests may mount file systems in a mount namespace of their own (`unshare -m`: root or CAP_SYS_ADMIN).
enum MountNamespace {
    static let available: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        p.arguments = ["-m", "sh", "-c", "mount -t tmpfs none /mnt 2>/dev/null"]
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()
}
