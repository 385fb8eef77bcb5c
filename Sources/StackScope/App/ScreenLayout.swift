/// Where each pane goes for a terminal size and state: one pure function that both `render` and
/// `update` use (page sizes, visible rows, mouse hits), so they cannot disagree.
///
/// Wide terminals (≥ 100 columns): entities | objects | detail side by side, saves below.
/// Narrow ones: entities above objects, detail behind `v`. Below 60×15 only a notice is drawn.
///
/// ```swift
/// let layout = ScreenLayout(size: Size(width: 120, height: 36), state: state)
/// layout.tableRows   // data rows visible in the objects pane
/// ```
public struct ScreenLayout: Sendable, Hashable {
    /// The smallest size that gets a layout; below it only a notice is drawn.
    public static let minimum = Size(width: 60, height: 15)

    /// The terminal size laid out.
    public var size: Size
    /// Whether the terminal is below `minimum` (every pane rectangle is then empty or nil).
    public var tooSmall: Bool
    /// The title line at the top.
    public var title: Rect = .zero
    /// The entities pane, or nil when not shown.
    public var entities: Rect?
    /// The objects pane, or nil when not shown.
    public var table: Rect?
    /// The detail pane, or nil when not shown.
    public var detail: Rect?
    /// The saves pane, or nil when not shown.
    public var saves: Rect?
    /// The status line, second from the bottom.
    public var status: Rect = .zero
    /// The footer of key hints, at the bottom.
    public var footer: Rect = .zero

    /// Lays out the panes for `size`, given the state's focus, zoom and detail settings.
    public init(size: Size, state: AppState) {
        self.size = size
        tooSmall = size.width < Self.minimum.width || size.height < Self.minimum.height
        guard !tooSmall else { return }
        title = Rect(x: 0, y: 0, width: size.width, height: 1)
        status = Rect(x: 0, y: size.height - 2, width: size.width, height: 1)
        footer = Rect(x: 0, y: size.height - 1, width: size.width, height: 1)
        let main = Rect(x: 0, y: 1, width: size.width, height: size.height - 3)
        if state.zoomed {
            let r = main
            switch state.focus {
            case .entities: entities = r
            case .table: table = r
            case .detail: detail = r
            case .saves: saves = r
            }
            return
        }
        let savesHeight = max(4, min(10, main.height / 4))
        saves = Rect(x: 0, y: main.maxY - savesHeight, width: size.width, height: savesHeight)
        let upper = Rect(x: 0, y: main.y, width: size.width, height: main.height - savesHeight)
        if size.width >= 100 {
            let treeWidth = min(32, max(22, size.width / 5))
            entities = Rect(x: 0, y: upper.y, width: treeWidth, height: upper.height)
            let rest = size.width - treeWidth
            if state.showDetail {
                let detailWidth = max(30, rest * 2 / 5)
                table = Rect(x: treeWidth, y: upper.y, width: rest - detailWidth, height: upper.height)
                detail = Rect(x: size.width - detailWidth, y: upper.y, width: detailWidth, height: upper.height)
            } else {
                table = Rect(x: treeWidth, y: upper.y, width: rest, height: upper.height)
            }
        } else {
            let treeHeight = max(4, min(8, upper.height / 3))
            entities = Rect(x: 0, y: upper.y, width: size.width, height: treeHeight)
            let below = Rect(x: 0, y: upper.y + treeHeight, width: size.width, height: upper.height - treeHeight)
            // The detail pane is hidden on narrow terminals until toggled; then it takes the lower half.
            if state.detailOnNarrow {
                let half = below.height / 2
                table = Rect(x: 0, y: below.y, width: size.width, height: below.height - half)
                detail = Rect(x: 0, y: below.y + below.height - half, width: size.width, height: half)
            } else {
                table = below
            }
        }
    }

    /// The rect of a pane, if shown.
    public func rect(of pane: Pane) -> Rect? {
        switch pane {
        case .entities: entities
        case .table: table
        case .detail: detail
        case .saves: saves
        }
    }

    /// Panes shown, in Tab order.
    public var panes: [Pane] { Pane.allCases.filter { rect(of: $0) != nil } }

    /// Data rows visible in the objects pane (inside the box, below the header).
    public var tableRows: Int { max(1, (table?.height ?? 3) - 3) }
    /// Rows visible in the entities pane.
    public var entityRows: Int { max(1, (entities?.height ?? 3) - 2) }
    /// Rows visible in the detail pane.
    public var detailRows: Int { max(1, (detail?.height ?? 3) - 3) }
    /// Rows visible in the saves pane.
    public var savesRows: Int { max(1, (saves?.height ?? 3) - 2) }

    /// Rows of a pane's list (for page moves).
    public func rows(of pane: Pane) -> Int {
        switch pane {
        case .entities: entityRows
        case .table: tableRows
        case .detail: detailRows
        case .saves: savesRows
        }
    }

    /// The pane under a screen cell.
    public func pane(atX x: Int, y: Int) -> Pane? {
        panes.first { rect(of: $0)?.contains(x: x, y: y) == true }
    }
}
