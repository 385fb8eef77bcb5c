import CoreStack
import Foundation

// The value inspector on an image: the picture mode, its lines and the area the picture fills.
extension ValueInspectorState {
    /// The modes this value has, in the order Tab goes through them (the picture first, for images only).
    ///
    /// ```swift
    /// ValueInspectorState(title: "Image.image", data: jpeg).modes  // [.picture, .tree, .hex, .json]
    /// ```
    public var modes: [Mode] {
        picture == nil ? Mode.allCases.filter { $0 != .picture } : Mode.allCases
    }

    /// The lines above the picture: its format, size in pixels and bytes, or why it cannot be shown.
    ///
    /// ```swift
    /// inspector.pictureLines  // ["JPEG · 728 × 486 pixels · 15603 bytes"]
    /// ```
    public var pictureLines: [String] {
        guard let picture else { return [] }
        switch picture {
        case let .success(p):
            var line = "\(p.format.rawValue) · \(p.sourceWidth) × \(p.sourceHeight) pixels · " + (data.count == 1 ? "1 byte" : "\(data.count) bytes")
            if p.width != p.sourceWidth { line += " · decoded at \(p.width) × \(p.height)" }
            return [line]
        case let .failure(error):
            return [error.description, "Tab shows the bytes"]
        }
    }

    /// The cells the picture is fitted into on a screen of `size`: inside the inspector's box,
    /// below the summary and the picture lines, above the keys; nil when not in picture mode,
    /// there is no picture or no room.
    public func pictureArea(on size: Size) -> Rect? {
        guard mode == .picture, case .success? = picture else { return nil }
        // The box's border, the summary, the picture lines and a blank line above; the keys line and the border below.
        let top = 1 + 1 + pictureLines.count + 1
        let area = Rect(x: 2, y: top, width: size.width - 4, height: size.height - top - 2)
        return area.width > 0 && area.height > 0 ? area : nil
    }

    /// The decoded picture, for images (nil otherwise): decoded when the inspector opens, a JPEG
    /// at a preview size.
    static func picture(_ data: Data, _ inspection: ValueInspection) -> Result<DecodedPicture, PictureDecodeError>? {
        guard case let .image(image) = inspection.format else { return nil }
        do {
            return .success(try PictureDecoder.decode(data, as: image.format))
        } catch {
            return .failure(error)
        }
    }
}
