import Foundation
import Synchronization

/// Slots of typed properties, by the bits of their key (see ``WrapperKey``: one word that names a
/// key's text for the life of the process, compared instead of the text). An entity keeps one
/// table for its attributes and one for its relationships.
///
/// Reads take no lock: an entry is written once, under a lock, into a fixed buffer, then published
/// by storing the new count with release ordering; a reader loads the count with acquire ordering
/// and scans that many entries. When the buffer is full, keys are looked up by name. A read
/// retains nothing.
///
/// ```swift
/// let table = WrapperSlotTable()
/// table.remember(3, forBits: WrapperKey.literal("title").bits)
/// table.slot(forBits: WrapperKey.literal("title").bits)   // 3
/// ```
///
/// `@unchecked Sendable`: the entries are written under `lock` and published through the atomic
/// `count`, as described above; nothing else in it changes.
@usableFromInline
final class WrapperSlotTable: @unchecked Sendable {
    /// The number of published entries.
    @usableFromInline let count = Atomic<Int>(0)
    /// The entries, `capacity` of them allocated; the first `count` are published.
    @usableFromInline let entries: UnsafeMutablePointer<WrapperSlotEntry> = .allocate(capacity: WrapperSlotTable.capacity)
    private static let capacity = 256
    private let lock = NSLock()

    @usableFromInline init() {}

    deinit {
        entries.deinitialize(count: count.load(ordering: .relaxed))
        entries.deallocate()
    }

    /// The slot remembered for a key with these bits, if any.
    // Inlinable so the wrappers' reads, inlined into the subclasses' modules, scan in place.
    @inlinable @inline(__always)
    func slot(forBits bits: UInt64) -> Int? {
        let n = count.load(ordering: .acquiring)
        var entry = UnsafePointer(entries)
        let end = entry + n
        while entry < end {
            if entry.pointee.bits == bits { return Int(entry.pointee.slot) }
            entry += 1
        }
        return nil
    }

    /// Remembers the slot of a key, by its bits (a no-op when it is known or the table is full).
    @usableFromInline
    func remember(_ slot: Int, forBits bits: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        let n = count.load(ordering: .relaxed)
        guard n < Self.capacity, self.slot(forBits: bits) == nil else { return }
        (entries + n).initialize(to: WrapperSlotEntry(bits: bits, slot: Int64(slot)))
        count.store(n + 1, ordering: .releasing)
    }
}
