import Foundation

/// The `half-open` role: a process half way through opening a store, for the test that a closing
/// process never removes a `-shm` another process has opened but not yet locked.
enum HalfOpen {
    /// SQLite's lock bytes on the store file (os.h): the SHARED range starts 2 bytes past PENDING_BYTE.
    static let sharedFirst: off_t = 0x4000_0000 + 2

    static func run(store: String) -> Int32 {
        let db = open(store, O_RDWR)
        guard db >= 0 else {
            say("cannot open \(store)")
            return 2
        }
        var lock = flock()
        lock.l_type = Int16(F_RDLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = sharedFirst
        lock.l_len = 1
        guard fcntl(db, F_SETLK, &lock) == 0 else {
            say("cannot take a shared lock on \(store)")
            return 2
        }
        let shm = open(store + "-shm", O_RDWR)
        guard shm >= 0 else {
            say("no -shm beside \(store)")
            return 2
        }
        say("ready")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        var held = stat(), atPath = stat()
        let same = fstat(shm, &held) == 0 && stat(store + "-shm", &atPath) == 0
            && held.st_ino == atPath.st_ino && held.st_dev == atPath.st_dev
        say(same ? "kept" : "deleted")
        close(shm)
        close(db)
        return 0
    }
}
