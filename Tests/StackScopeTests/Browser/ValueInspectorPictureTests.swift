import CoreStack
import Foundation
import Testing

@testable import StackScope

/// The value inspector on images, headless: the picture mode, the frame's picture, Tab to the
/// other modes and back, a damaged image's typed error.
@Suite("value inspector: pictures")
struct ValueInspectorPictureTests {
    /// A store of photos: a PNG (the quadrants, 96 × 64), a truncated WebP and a JPEG (a gradient, 320 × 200).
    static func harness() throws -> (BrowserHarness, png: Data) {
        let model = try ManagedObjectModel(versionName: "Photos", versionIdentifiers: ["1"]) {
            EntityDescription("Photo") {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("image", .binaryData)
            }
        }
        let png = try ImageFixture.quadrantsFile(.png)
        let webp = try ImageFixture.quadrantsFile(.webp)
        let jpeg = try ImageFixture.encode(.jpeg, ImageFixture.gradient(width: 320, height: 200), width: 320, height: 200)
        let session = try BrowserSession.stack(over: InMemoryStore(model: model))
        let root = try #require(session.stack).privateQueueContext
        try root.performAndWait {
            for (name, data) in [("a quadrants", png), ("b broken", webp.prefix(webp.count / 2)), ("c gradient", jpeg)] {
                let photo = try root.insertObject(forEntityName: "Photo")
                try photo.setValue(name, forKey: "name")
                try photo.setValue(Data(data), forKey: "image")
            }
            try root.save()
        }
        return (try BrowserHarness(session: session, open: "Photo"), png)
    }

    /// Opens the inspector on the image of the photo named `name` (from the table).
    static func open(_ h: BrowserHarness, _ name: String) throws -> ValueInspectorState {
        h.press("g")
        for _ in 0..<3 {
            h.press("Enter")
            let properties = h.state.detail.snapshot?.properties ?? []
            if properties.contains(where: { $0.name == "name" && $0.value.contains(name) }) {
                let image = try #require(properties.firstIndex { $0.name == "image" })
                for _ in 0..<image { h.press("j") }
                h.press("Enter")
                guard case let .valueInspector(v)? = h.state.modals.last else { throw InspectorNotOpen() }
                return v
            }
            h.press("Esc j")
        }
        throw InspectorNotOpen()
    }

    struct InspectorNotOpen: Error {}

    @Test("an image opens on its picture: format, size, bytes; the frame carries the picture in the box; Tab goes round the modes")
    func pictureMode() throws {
        let (h, png) = try Self.harness()
        let v = try Self.open(h, "a quadrants")
        #expect(v.mode == .picture)
        #expect(v.modes == [.picture, .tree, .hex, .json])
        #expect(h.screen.contains(".image · picture"))
        #expect(h.screen.contains("PNG · 96 × 64 pixels · \(png.count) bytes"))
        #expect(h.screen.contains("Tab/m picture/tree/hex/json"))
        let pictures = h.onMain { h.backend.frame.pictures }
        #expect(pictures.count == 1)
        let shown = try #require(pictures.first)
        #expect((shown.picture.width, shown.picture.height) == (96, 64))
        #expect(shown.picture.pixel(x: 0, y: 0) == DecodedPicture.RGBA(red: 230, green: 40, blue: 30))
        // Inside the box, below the summary and the picture's line, above the keys line.
        #expect(shown.area == Rect(x: 2, y: 4, width: 116, height: 30))
        // The cells under it are blank.
        let lines = h.lines
        for y in shown.area.y..<shown.area.maxY {
            let row = Array(lines[y])
            #expect(String(row[shown.area.x..<shown.area.maxX]).allSatisfy { $0 == " " }, "row \(y): \(lines[y])")
        }
        // The command line (on the bottom rows) keeps the picture.
        h.press(":")
        #expect(h.onMain { h.backend.frame.pictures.count } == 1)
        h.press("Esc")
        h.press("Tab")
        #expect(h.screen.contains(".image · tree"))
        #expect(h.onMain { h.backend.frame.pictures.isEmpty })
        h.press("Tab")
        #expect(h.screen.contains("00000000  89 50 4e 47"))
        h.press("Tab Tab")
        #expect(h.screen.contains(".image · picture"))
        #expect(h.onMain { h.backend.frame.pictures.count } == 1)
        // A smaller screen: the area follows.
        h.resize(Size(width: 80, height: 24))
        #expect(h.onMain { h.backend.frame.pictures.first?.area } == Rect(x: 2, y: 4, width: 76, height: 18))
        h.press("Esc")
        #expect(h.state.modals.isEmpty)
        #expect(h.onMain { h.backend.frame.pictures.isEmpty })
    }

    @Test("a truncated WebP: the typed error in the picture mode, no picture in the frame, the bytes a Tab away")
    func damagedImage() throws {
        let (h, _) = try Self.harness()
        let v = try Self.open(h, "b broken")
        #expect(v.mode == .picture)
        guard case let .failure(error)? = v.picture else {
            Issue.record("the truncated WebP decoded")
            return
        }
        #expect(error.kind == .damaged)
        #expect(h.screen.contains("cannot decode WebP: "), "\(h.screen)")
        #expect(h.screen.contains("Tab shows the bytes"))
        #expect(h.onMain { h.backend.frame.pictures.isEmpty })
        h.press("Tab Tab")
        #expect(h.screen.contains("00000000  52 49 46 46"))
    }

    @Test("a JPEG: its size from the file; values that are no image have no picture mode")
    func jpegAndNonImages() throws {
        let (h, _) = try Self.harness()
        let v = try Self.open(h, "c gradient")
        #expect(h.screen.contains("JPEG · 320 × 200 pixels"))
        #expect(h.onMain { h.backend.frame.pictures.first?.picture.sourceWidth } == 320)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: ["x"]), requiringSecureCoding: false)
        var other = ValueInspectorState(title: "Note.body", data: archive)
        #expect(other.picture == nil)
        #expect(other.mode == .tree)
        #expect(other.modes == [.tree, .hex, .json])
        other.nextMode()
        other.nextMode()
        other.nextMode()
        #expect(other.mode == .tree)
        #expect(other.pictureArea(on: Size(width: 120, height: 36)) == nil)
        #expect(v.pictureArea(on: Size(width: 120, height: 36)) == Rect(x: 2, y: 4, width: 116, height: 30))
    }
}
