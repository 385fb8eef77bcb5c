/// A keyed archive's reference to an object of its `$objects` table (a `CF$UID`), as
/// ``BinaryPropertyListReader`` reads it (``KeyedArchive/uid(_:)`` reads its number).
///
/// ```swift
/// KeyedArchive.uid(ArchiveUID(value: 3))  // 3
/// ```
struct ArchiveUID: Sendable, Equatable {
    let value: Int
}
