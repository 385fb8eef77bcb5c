import CoreStack
import Foundation

/// The full-screen value inspector: one binary value, decoded by `ValueInspector`, shown as a
/// tree, a hex dump or JSON (Tab or `m` switches), scrolled with the usual keys; `y` copies the
/// JSON; `:save-value FILE` writes the stored bytes. An image opens on its picture (decoded by
/// ``PictureDecoder`` when the inspector opens; see ValueInspectorState+Picture.swift).
///
/// The tree and JSON lines are made as far as they are shown (a keyed archive's objects decoded
/// as the tree reaches them, see `GrowingLines`); the hex dump's lines are made only for the rows
/// on screen, so a large value costs no more to open or scroll than a small one.
///
/// ```swift
/// var inspector = ValueInspectorState(title: "Image.image", data: jpeg)
/// inspector.summary        // "JPEG 728×486"
/// inspector.mode = .hex
/// inspector.lines(from: 0, count: 2)  // ["00000000  ff d8 ff e0 …", "00000010  …"]
/// ```
public struct ValueInspectorState: Sendable {
    /// What the inspector shows.
    public enum Mode: String, Sendable, CaseIterable {
        /// An image's picture (images only).
        case picture
        /// The decoded value as a tree, a hex dump, or JSON.
        case tree, hex, json
    }

    /// The value's owner and key (`Recipe “Pasta”.image`).
    public var title: String
    /// The bytes decoded: the whole value, or its first 256 KiB when it is larger than
    /// `ValueInspector/defaultDecodedSize` (the hex dump reads ``bytes``).
    public var data: Data
    /// The whole value, read a range at a time: the hex dump reads the rows on screen only
    /// (SQLite's blob I/O for a stored value, so a 100 MB value is never loaded whole).
    public var bytes: any ValueBytes
    /// Where the value is kept when not in the store's row (an external data file's path).
    public var location: String?
    /// The object and attribute the bytes are read from (what `:save-value FILE` writes again).
    public var source: (objectID: ManagedObjectID, key: String)?
    /// The cell of a table under "Other tables" the bytes are read from (what `:save-value FILE` writes again).
    public var plainCell: PlainCell?
    /// `ValueInspection/summary` with the size.
    public var summary: String
    /// The mode shown.
    public var mode: Mode = .tree
    /// An image value's pixels, or why they cannot be decoded; nil for a value that is no image.
    public let picture: Result<DecodedPicture, PictureDecodeError>?
    /// The first line shown, per mode.
    public var offsets: [Mode: Int] = [:]
    /// The tree's and the JSON's lines, made as far as they are shown (``GrowingLines``).
    private let treeLines: GrowingLines
    private let jsonLines: GrowingLines

    /// Decodes `data` and prepares the tree and JSON lines.
    public init(title: String, data: Data, source: (objectID: ManagedObjectID, key: String)? = nil) {
        let (inspection, budget) = Self.firstInspection(data)
        self.init(title: title, bytes: data, decoded: data, inspection: inspection, budget: budget, location: nil, source: source)
    }

    /// How many nodes the first screen of a binary property list (a keyed archive) decodes: the
    /// tree grows from there as it is scrolled (other formats are parsed whole by Foundation,
    /// so they are decoded up to the bound at once).
    static let firstBudget = 1_000

    /// `data` inspected for the first screen, and the node bound it was inspected with.
    static func firstInspection(_ data: Data) -> (ValueInspection, Int) {
        let full = ValueInspectionLimits()
        guard data.starts(with: Array("bplist00".utf8)) else { return (ValueInspector.inspect(data, limits: full), full.maximumNodes) }
        var limits = full
        limits.maximumNodes = min(firstBudget, full.maximumNodes)
        return (ValueInspector.inspect(data, limits: limits), limits.maximumNodes)
    }

    /// The inspector on `bytes`, of which `decoded` were decoded into `inspection` with a node
    /// bound of `budget`.
    init(
        title: String, bytes: any ValueBytes, decoded: Data, inspection: ValueInspection, budget: Int, location: String?,
        source: (objectID: ManagedObjectID, key: String)?
    ) {
        self.title = title
        self.data = decoded
        self.bytes = bytes
        self.location = location
        self.source = source
        let size = bytes.count == 1 ? "1 byte" : "\(bytes.count) bytes"
        summary = inspection.format == .binary || inspection.format == .empty ? inspection.summary : "\(size) · \(inspection.summary)"
        if let location { summary += " · in \(location)" }
        let maximum = ValueInspectionLimits().maximumNodes
        // The first lines come from the inspection made already; more (a larger bound) when scrolled to.
        let first = InspectedValueText.treeLines(inspection)
        let firstBudget = budget
        treeLines = GrowingLines(initialBudget: budget, maximum: maximum) { bound in
            let made = bound == firstBudget ? first : InspectedValueText.treeLines(Self.inspect(decoded, nodes: bound))
            // The summary heads the screen already: the tree without its first line.
            let tree = Array(made.lines.dropFirst())
            guard !tree.isEmpty else { return (["(no tree inside: Tab shows the bytes)"], nil) }
            return (tree, made.firstTruncated.map { $0 - 1 })
        }
        jsonLines = GrowingLines(initialBudget: budget, maximum: maximum) { bound in
            let made = bound == firstBudget ? inspection : Self.inspect(decoded, nodes: bound)
            let lines = InspectedValueText.json(made).rendered().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // A value left out is `{ "$elided": "more than N values", "$remaining": M }`: its first line is the `{`.
            let marker = "\"$elided\": \"more than \(bound) values\""
            let truncated = bound < maximum ? lines.firstIndex { $0.contains(marker) }.map { max(0, $0 - 1) } : nil
            return (lines, truncated)
        }
        picture = Self.picture(decoded, inspection)
        if picture != nil { mode = .picture }
    }

    /// `data` inspected with a node bound of `nodes`.
    static func inspect(_ data: Data, nodes: Int) -> ValueInspection {
        var limits = ValueInspectionLimits()
        limits.maximumNodes = nodes
        return ValueInspector.inspect(data, limits: limits)
    }

    /// The decoded value as JSON, what `y` copies.
    public var json: String { jsonLines.all().joined(separator: "\n") }

    /// How many lines the current mode has: in the tree and JSON, as many as are made so far
    /// (at least a screen past the first line shown; all once ``lineCountIsFinal``).
    public var lineCount: Int {
        switch mode {
        case .tree: treeLines.count(ensuring: offset + Self.linesAhead)
        case .json: jsonLines.count(ensuring: offset + Self.linesAhead)
        case .picture: pictureLines.count
        case .hex: (bytes.count + 15) / 16
        }
    }

    /// Whether ``lineCount`` counts every line of the mode (false while the tree or JSON of a
    /// large archive is made only as far as it is shown).
    public var lineCountIsFinal: Bool {
        switch mode {
        case .tree: treeLines.isComplete
        case .json: jsonLines.isComplete
        case .picture, .hex: true
        }
    }

    /// How many lines past the first shown the tree and JSON are made ahead.
    static let linesAhead = 256

    /// The first line shown in the current mode.
    public var offset: Int {
        get { offsets[mode] ?? 0 }
        set { offsets[mode] = newValue }
    }

    /// `count` lines of the current mode from line `start`.
    public func lines(from start: Int, count: Int) -> [String] {
        guard start >= 0, count > 0 else { return [] }
        switch mode {
        case .tree: return treeLines.lines(from: start, count: count)
        case .picture: return Array(pictureLines.dropFirst(start).prefix(count))
        case .json: return jsonLines.lines(from: start, count: count)
        case .hex: return hexLines(from: start, count: count)
        }
    }

    /// The last term searched (`/`), for `n` and `N`.
    public var searchTerm: String?

    /// Moves the first line shown to the next line after it (or before it, `forward` false) that
    /// contains `term`, wrapping around; in hex, to the row where the term's UTF-8 bytes start.
    /// Case-insensitive in the tree and JSON. Returns the line found, or nil (nothing moves).
    public mutating func find(_ term: String, forward: Bool = true) -> Int? {
        searchTerm = term
        guard !term.isEmpty, lineCount > 0 else { return nil }
        switch mode {
        case .tree, .json, .picture:
            let lines = mode == .tree ? treeLines.all() : mode == .json ? jsonLines.all() : pictureLines
            let n = lines.count
            for step in 1...n {
                let i = ((offset + (forward ? step : -step)) % n + n) % n
                if lines[i].range(of: term, options: .caseInsensitive) != nil {
                    offset = i
                    return i
                }
            }
            return nil
        case .hex:
            guard let row = findBytes(Data(term.utf8), forward: forward) else { return nil }
            offset = row
            return row
        }
    }

    /// Moves to the next mode.
    public mutating func nextMode() {
        let all = modes
        mode = all[((all.firstIndex(of: mode) ?? 0) + 1) % all.count]
    }

    /// Scrolls by `delta` lines (clamped) for a screen of `height` lines.
    public mutating func scroll(by delta: Int, height: Int) {
        // Lines are made as far as the move goes (a jump to the end makes them all).
        let (target, overflow) = offset.addingReportingOverflow(delta)
        let reach = overflow || target > Int.max - max(1, height) ? Int.max : target + max(1, height)
        switch mode {
        case .tree: _ = treeLines.count(ensuring: reach)
        case .json: _ = jsonLines.count(ensuring: reach)
        case .picture, .hex: break
        }
        let last = max(0, lineCount - max(1, height))
        offset = min(last, max(0, offset + delta))
    }
}
