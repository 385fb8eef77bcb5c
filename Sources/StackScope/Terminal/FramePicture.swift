/// A picture a frame shows over its cells: a decoded image fitted into an area of the screen.
/// The cells under it are blank in the frame's buffer; the backend writes the picture's escapes
/// there after painting the cells (``CursesBackend``), and repaints the screen when it goes away.
///
/// ```swift
/// var frame = Frame(buffer: buffer)
/// frame.pictures = [FramePicture(area: Rect(x: 2, y: 3, width: 60, height: 20), picture: picture)]
/// ```
public struct FramePicture: Sendable, Equatable {
    /// The cells the picture is fitted into (it keeps its aspect ratio, centred across).
    public var area: Rect
    /// The pixels.
    public var picture: DecodedPicture

    /// Creates a picture for a frame.
    public init(area: Rect, picture: DecodedPicture) {
        self.area = area
        self.picture = picture
    }

    /// The same area and the same decoded picture (by identity).
    public static func == (a: FramePicture, b: FramePicture) -> Bool {
        a.area == b.area && a.picture === b.picture
    }
}
