import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The device and inode of the file at a path (links followed), to notice that another process
/// replaced a store file (a new inode) or deleted it (no file).
///
/// ```swift
/// let opened = StoreFileIdentity(url: url)
/// if StoreFileIdentity(url: url) != opened { print("replaced or deleted") }
/// ```
package struct StoreFileIdentity: Equatable, Sendable {
    package let device: UInt64
    package let inode: UInt64

    /// The identity of the file at `url`; nil when there is none.
    package init?(url: URL) {
        var st = stat()
        guard stat(url.path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}
