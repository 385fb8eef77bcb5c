import Foundation

/// A full-screen program that ``BrowserRunner`` feeds with keys and resizes and hands the
/// terminal to: the browser (``BrowserProgram``), the diff view (``DiffViewProgram``) and the
/// store picker (``StorePickerProgram``). Every call comes on the main queue.
///
/// ```swift
/// let program: any ScreenProgram = DiffViewProgram(oldPath: "a.sqlite", newPath: "b.sqlite", backend: backend) { … }
/// program.begin()
/// program.dispatchKeys([.char("j")])
/// ```
public protocol ScreenProgram: AnyObject {
    /// Reads what it shows first and draws the first screen.
    func begin()
    /// Feeds keys read from the terminal in; draws once after the last.
    func dispatchKeys(_ keys: [Key])
    /// The terminal has a new size.
    func resized(to size: Size)
    /// Repaints everything (after a resume or Ctrl-L).
    func redraw()
    /// Ends its work: saves what needs saving, closes its stores; returns the line of a failed
    /// save, nil when all went well. Runs once.
    @discardableResult func shutDown() -> String?
    /// Nothing queued and no job scheduled (tests wait for it).
    var isIdle: Bool { get }
}
