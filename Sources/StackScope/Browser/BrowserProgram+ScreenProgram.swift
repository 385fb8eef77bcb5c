import Foundation

// The browser as one of the runner's full-screen programs.
extension BrowserProgram: ScreenProgram {
    /// Starts the browser on its first entity (``start(openEntity:)``).
    public func begin() { start() }

    /// Feeds keys in as ``Action/key(_:)`` actions, drawn once after the last.
    public func dispatchKeys(_ keys: [Key]) { dispatch(keys.map { .key($0) }) }

    /// The terminal's new size, as ``Action/resized(_:)``.
    public func resized(to size: Size) { dispatch([.resized(size)]) }
}
