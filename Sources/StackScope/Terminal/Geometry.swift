/// A terminal size in cells.
///
/// ```swift
/// let size = Size(width: 120, height: 36)
/// ```
public struct Size: Sendable, Hashable, CustomStringConvertible {
    /// The number of columns (never negative).
    public var width: Int
    /// The number of rows (never negative).
    public var height: Int
    /// Creates a size; negative values become 0.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }
    /// The size as `width×height`.
    public var description: String { "\(width)×\(height)" }
}

/// A rectangle of cells: origin at the top left, x to the right, y down.
///
/// ```swift
/// let pane = Rect(x: 0, y: 1, width: 30, height: 20)
/// pane.contains(x: 3, y: 4)   // true
/// ```
public struct Rect: Sendable, Hashable {
    /// The leftmost column.
    public var x: Int
    /// The top row.
    public var y: Int
    /// The number of columns (never negative).
    public var width: Int
    /// The number of rows (never negative).
    public var height: Int

    /// Creates a rectangle; a negative width or height becomes 0.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The column just right of the rectangle.
    public var maxX: Int { x + width }
    /// The row just below the rectangle.
    public var maxY: Int { y + height }
    /// Whether the rectangle has no cells.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// Whether the cell at (`px`, `py`) is inside the rectangle.
    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    /// The rectangle shrunk by `n` cells on every side (a box's inside).
    public func inset(_ n: Int) -> Rect { Rect(x: x + n, y: y + n, width: width - 2 * n, height: height - 2 * n) }

    /// The row `dy` of the rectangle as a one-line rectangle.
    public func row(_ dy: Int) -> Rect { Rect(x: x, y: y + dy, width: width, height: dy < height ? 1 : 0) }
}
