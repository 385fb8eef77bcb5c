import Foundation

/// What a ``StoreFinder`` search found: the stores, in path order, and what it could not look into.
///
/// ```swift
/// let search = try StoreFinder().search(["~/Projects"])
/// print("\(search.stores.count) stores, \(search.skippedFolders.count) folders skipped")
/// ```
public struct StoreSearch: Sendable, Equatable {
    /// A folder or file that could not be read, and why (one line).
    public struct Skipped: Sendable, Equatable {
        /// The path as met during the search.
        public var path: String
        /// The system's reason.
        public var reason: String
    }

    /// The stores found, by path.
    public var stores: [FoundStore] = []
    /// Folders that could not be listed (skipped, their contents unseen).
    public var skippedFolders: [Skipped] = []
    /// Files that could not be read to tell whether they are stores.
    public var skippedFiles: [Skipped] = []
    /// Folders listed.
    public var foldersSearched = 0
    /// Regular files looked at.
    public var filesExamined = 0
    /// Symbolic links to a folder already searched (a loop, or two ways to one folder), not followed again.
    public var linksNotFollowed = 0

    /// An empty result.
    ///
    /// ```swift
    /// var search = StoreSearch()
    /// search.foldersSearched += 1
    /// ```
    public init() {}
}
