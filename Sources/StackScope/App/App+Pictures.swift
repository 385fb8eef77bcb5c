// MARK: - Pictures over the frame

extension App {
    /// The pictures the frame shows: the value inspector's image in picture mode, when nothing
    /// but the command line or a prompt (drawn on the two bottom rows, below the picture) is over it.
    ///
    /// ```swift
    /// App.render(state).pictures  // [FramePicture(area: Rect(x: 2, y: 4, …), picture: …)]
    /// ```
    static func pictures(_ s: AppState) -> [FramePicture] {
        guard let index = s.modals.lastIndex(where: { if case .valueInspector = $0 { true } else { false } }),
            case let .valueInspector(v) = s.modals[index],
            s.modals[(index + 1)...].allSatisfy({ modal in
                switch modal {
                case .commandLine, .prompt: true
                default: false
                }
            }),
            case let .success(picture)? = v.picture,
            let area = v.pictureArea(on: s.size)
        else { return [] }
        return [FramePicture(area: area, picture: picture)]
    }
}
