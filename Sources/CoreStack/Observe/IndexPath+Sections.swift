import Foundation

// UIKit and AppKit give IndexPath its `section`/`row` accessors; Foundation on Linux does not.
#if !canImport(UIKit) && !canImport(AppKit)
/// `section` and `row`, as UIKit and AppKit give them, for fetched results controllers on Linux.
extension IndexPath {
    /// An index path of a row in a section, as UIKit spells it.
    ///
    /// ```swift
    /// let first = IndexPath(row: 0, section: 0)   // same as [0, 0]
    /// ```
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section (the first index).
    ///
    /// ```swift
    /// IndexPath(row: 3, section: 1).section // 1
    /// ```
    public var section: Int { self[0] }

    /// The row within the section (the second index).
    ///
    /// ```swift
    /// IndexPath(row: 3, section: 1).row // 3
    /// ```
    public var row: Int { self[1] }
}
#endif

extension IndexPath {
    /// Section and row, for code that must compile with and without UIKit's accessors.
    var sectionAndRow: (section: Int, row: Int)? {
        count == 2 ? (self[0], self[1]) : nil
    }
}
