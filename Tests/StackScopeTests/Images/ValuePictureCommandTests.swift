import CoreStack
import Foundation
import Testing

@testable import StackScope

/// `stackscope value … --as image`: a Recipes thumbnail (a JPEG Apple's sample wrote) as a picture
/// on standard output.
@Suite("value --as image")
struct ValuePictureCommandTests {
    static func thumbnail() throws -> (store: String, bytes: Data) {
        let store = try StoreOwnModelTests.copy(["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"]).path
        return (store, try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Image", id: "2", attribute: "image"))
    }

    @Test("the picture fitted to the width (rows from the aspect ratio) or to the area; none prints the size; a non-image is refused")
    func api() throws {
        let (store, bytes) = try Self.thumbnail()
        let style = PictureStyle(graphics: .symbols, colors: .truecolor)
        let out = try ValueCommand.picture(bytes, style: style, columns: 40, rows: nil)
        let lines = out.split(separator: "\n")
        // 728 × 486 in 40 columns of cells twice as high as wide: 13 rows.
        #expect(lines.count == 13, "\(lines.count)")
        #expect(out.contains("38;2;"))
        #expect(out.hasSuffix("\n"))
        #expect(try ValueCommand.picture(bytes, style: style, columns: 100, rows: 10).split(separator: "\n").count == 10)
        #expect(try ValueCommand.picture(bytes, style: PictureStyle(graphics: .none, colors: .truecolor), columns: 40, rows: nil)
            == "JPEG · 728 × 486 pixels · \(bytes.count) bytes (--graphics none: no picture)\n")
        let name = try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Recipe", id: "1", attribute: "name")
        #expect(throws: StackScopeError.self) { try ValueCommand.picture(name, style: style, columns: 40, rows: nil) }
        #expect(ValueCommand.pictureArea(width: nil, height: nil, terminal: Size(width: 100, height: 30)) == (100, 29))
        #expect(ValueCommand.pictureArea(width: 50, height: nil, terminal: Size(width: 100, height: 30)) == (50, 29))
        #expect(ValueCommand.pictureArea(width: nil, height: nil, terminal: nil) == (80, nil))
        #expect(ValueCommand.pictureArea(width: 30, height: 5, terminal: nil) == (30, 5))
    }

    @Test(
        "the binary, its output a file: symbols in the environment's colours, or the protocol --graphics names",
        .enabled(if: StackScopeBinary.url != nil))
    func binary() throws {
        let (store, bytes) = try Self.thumbnail()
        let args = ["value", store, "--entity", "Image", "--id", "2", "--attribute", "image", "--as", "image", "--width", "30"]
        let truecolor = try StackScopeBinary.run(args, environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": ""])
        #expect(truecolor.status == 0, "\(truecolor.stderr)")
        #expect(truecolor.stdout.contains("\u{1B}[") && truecolor.stdout.contains("38;2;"))
        #expect(truecolor.stdout.split(separator: "\n").count == 10)  // 30 columns: 10 rows
        let palette = try StackScopeBinary.run(args, environment: ["TERM": "xterm-256color", "COLORTERM": "", "NO_COLOR": ""])
        #expect(palette.stdout.contains("38;5;") || palette.stdout.contains("48;5;"))
        #expect(!palette.stdout.contains("38;2;"))
        let grey = try StackScopeBinary.run(args, environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"])
        #expect(grey.status == 0)
        #expect(!grey.stdout.contains("\u{1B}"))
        #expect(grey.stdout.split(separator: "\n").allSatisfy { $0.count == 30 })
        // Not a terminal: kitty's TERM alone does not send kitty graphics into a file; --graphics does.
        let file = try StackScopeBinary.run(args, environment: ["TERM": "xterm-kitty", "NO_COLOR": ""])
        #expect(!file.stdout.hasPrefix("\u{1B}_G"))
        let kitty = try StackScopeBinary.run(args + ["--graphics", "kitty"], environment: ["TERM": "xterm-kitty", "NO_COLOR": ""])
        #expect(kitty.stdout.hasPrefix("\u{1B}_G"))
        let sixel = try StackScopeBinary.run(args + ["--graphics", "sixel"], environment: ["NO_COLOR": ""])
        #expect(sixel.stdout.hasPrefix("\u{1B}P"))
        let none = try StackScopeBinary.run(args + ["--graphics", "none"])
        #expect(none.stdout == "JPEG · 728 × 486 pixels · \(bytes.count) bytes (--graphics none: no picture)\n")
        let badMode = try StackScopeBinary.run(args + ["--graphics", "ascii"])
        #expect(badMode.status != 0)
        #expect(badMode.stderr.contains("--graphics"), "\(badMode.stderr)")
        let notImage = try StackScopeBinary.run(["value", store, "--entity", "Recipe", "--id", "1", "--attribute", "name", "--as", "image"])
        #expect(notImage.status == 1)
        #expect(notImage.stderr == "stackscope: error: invalid --as image: the value is not an image (text · 8 chars · \"Recipe 1\"); use --as tree, hex or json, or --raw\n", "\(notImage.stderr)")
    }
}
