/// What one render produces: the buffer, where the cursor is (nil: hidden) and whether the app
/// wants mouse events. Backends change the terminal's cursor and mouse mode only when these change.
///
/// ```swift
/// let frame = Frame(buffer: ScreenBuffer(size: size), cursor: nil, mouse: true)
/// ```
public struct Frame: Sendable, Equatable {
    /// The cells to show.
    public var buffer: ScreenBuffer
    /// Where the cursor is shown, or nil to hide it.
    public var cursor: (x: Int, y: Int)?
    /// Whether the app wants mouse events.
    public var mouse: Bool
    /// Pictures drawn over the cells (the value inspector's image preview).
    public var pictures: [FramePicture]

    /// Creates a frame; by default the cursor is hidden, mouse events are on and there is no picture.
    public init(buffer: ScreenBuffer, cursor: (x: Int, y: Int)? = nil, mouse: Bool = true, pictures: [FramePicture] = []) {
        self.buffer = buffer
        self.cursor = cursor
        self.mouse = mouse
        self.pictures = pictures
    }

    /// Whether two frames have the same buffer, cursor position, mouse mode and pictures.
    public static func == (a: Frame, b: Frame) -> Bool {
        a.buffer == b.buffer && a.cursor?.x == b.cursor?.x && a.cursor?.y == b.cursor?.y && a.mouse == b.mouse
            && a.pictures == b.pictures
    }
}

/// Paints frames and reports the terminal's size: curses in a terminal, a plain buffer in tests.
public protocol TerminalBackend: AnyObject {
    /// The terminal's size now.
    var size: Size { get }
    /// Paints a frame (only what changed since the last one).
    func draw(_ frame: Frame)
    /// Forgets what is on the screen, so the next draw repaints everything (after a resize,
    /// resume or Ctrl-L).
    func invalidate()
}

/// A backend that keeps the last frame in memory: the app's screen in tests and benchmarks.
///
/// ```swift
/// let backend = HeadlessBackend(size: Size(width: 80, height: 24))
/// // … run the app …
/// print(backend.frame.buffer.text)
/// ```
public final class HeadlessBackend: TerminalBackend {
    /// The size reported to the app; a test sets it to simulate a resize.
    public var size: Size
    /// The last frame drawn.
    public private(set) var frame: Frame
    /// How many frames were drawn.
    public private(set) var drawCount = 0
    /// Called with each frame drawn (a test watching what showed between two keys).
    public var onDraw: ((Frame) -> Void)?

    /// Creates a backend of `size`, showing a blank frame.
    public init(size: Size) {
        self.size = size
        self.frame = Frame(buffer: ScreenBuffer(size: size))
    }

    /// Keeps `frame` as the last frame and calls `onDraw`.
    public func draw(_ frame: Frame) {
        self.frame = frame
        drawCount += 1
        onDraw?(frame)
    }

    /// Does nothing: the backend keeps no screen to forget.
    public func invalidate() {}

    /// The last frame as text lines.
    public var lines: [String] { frame.buffer.lines() }
    /// The last frame as text.
    public var text: String { frame.buffer.text }
}
