/// The version of the CoreStack library.
///
/// ```swift
/// print(CoreStackVersion.string) // "0.1.0"
/// ```
public enum CoreStackVersion { public static let string = "0.1.0" }
