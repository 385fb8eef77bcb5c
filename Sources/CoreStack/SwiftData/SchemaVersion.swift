import Foundation

extension Schema {
    /// A schema's version, major.minor.patch (SwiftData's `Schema.Version`).
    ///
    /// ```swift
    /// static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    /// ```
    public struct Version: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The major version.
        public let major: Int
        /// The minor version.
        public let minor: Int
        /// The patch version.
        public let patch: Int

        /// A version.
        ///
        /// ```swift
        /// let v = Schema.Version(1, 2, 0)   // "1.2.0"
        /// ```
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Orders by major, then minor, then patch.
        public static func < (a: Version, b: Version) -> Bool {
            (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
        }

        /// `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }
    }
}
