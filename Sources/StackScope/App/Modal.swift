import CoreStack

/// A layer over the base screen: keys go to the top modal first. Values, so any stack can be
/// rebuilt in a test and a stale popup cannot come back.
///
/// ```swift
/// state.modals.append(.help(HelpState()))
/// ```
public enum Modal: Sendable {
    /// The `:` command line, with the completion shown and the history position.
    case commandLine(CommandLineState)
    /// A one-line prompt: the filter (predicate) or the search.
    case prompt(PromptState)
    /// The help screen, generated from the keymap.
    case help(HelpState)
    /// A yes/no question with what it is about (or, as a report, lines to read and close).
    case confirm(ConfirmState)
    /// The attribute editor.
    case editor(EditorState)
    /// The model view: entities, their properties and relationships (``ModelViewState``).
    case model(ModelViewState)
    /// A binary value full screen: tree, hex dump or JSON.
    case valueInspector(ValueInspectorState)
    /// A table under "Other tables" full screen, as plain rows (``PlainTableViewState``).
    case plainTable(PlainTableViewState)
}

/// The `:` command line.
public struct CommandLineState: Sendable, Hashable {
    /// The typed text.
    public var line = LineEditor()
    /// Position in the history while cycling with ↑/↓ (nil: editing a new line).
    public var historyIndex: Int?
    /// Creates an empty command line.
    public init() {}
}

/// A prompt for a filter or a search term.
public struct PromptState: Sendable, Hashable {
    /// What a prompt is for: a filter or a search.
    public enum Purpose: Sendable, Hashable { case filter, search }
    /// What this prompt's text is for.
    public var purpose: Purpose
    /// The typed text.
    public var line: LineEditor
    /// The last parse error: its message and the character offset it points at.
    public var error: String?
    /// The character offset of `error` in the text, if it has one.
    public var errorOffset: Int?
    /// Creates a prompt for `purpose`, starting with `text`.
    public init(purpose: Purpose, text: String = "") {
        self.purpose = purpose
        self.line = LineEditor(text: text)
    }

    /// Parses the text as a predicate and notes the error and its position (none when it parses
    /// or is empty); true when it can be applied.
    @discardableResult
    mutating func checkFilter() -> Bool {
        error = nil
        errorOffset = nil
        let text = line.text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return true }
        do {
            _ = try CoreStack.Predicate(format: text)
            return true
        } catch {
            (self.error, errorOffset) = App.predicateError(error)
            return false
        }
    }
}

/// The help screen: a filter and a selection over the keymap's rows.
public struct HelpState: Sendable, Hashable {
    /// The filter text, narrowing the rows shown.
    public var filter = LineEditor()
    /// The selected row and scroll offset.
    public var scroll = ScrollState()
    /// Creates a help screen with no filter.
    public init() {}
}

/// A question: a title, lines of detail and what to do on yes.
public struct ConfirmState: Sendable {
    /// The question or report title.
    public var title: String
    /// The lines of detail shown under the title.
    public var lines: [String]
    /// What yes does; nil: a report with nothing to confirm (any of Enter, Esc, q closes it).
    public var onYes: Action?
    /// Further answers offered by a key (a conflict's "refresh keeping my changes").
    public var choices: [ConfirmChoice] = []
    /// The scroll offset of the lines.
    public var scroll = ScrollState()
    /// Lines that Enter turns into the table's filter (a statistics report's values), by line
    /// index; empty for other reports.
    public var filters: [Int: String] = [:]
    /// The selected line among ``filters`` (↑↓ move it), nil when there are none.
    public var selectedLine: Int?
    /// Creates a question; with `onYes` nil, a report.
    public init(title: String, lines: [String], onYes: Action?, choices: [ConfirmChoice] = []) {
        self.title = title
        self.lines = lines
        self.onYes = onYes
        self.choices = choices
    }

    /// The footer of the box: the keys it answers to.
    public var keysLine: String {
        let answers = choices.filter { !$0.label.isEmpty }.map { "\($0.key) \($0.label)" }
        if !filters.isEmpty { return (answers + ["↑↓ a value or a bin", "Enter filters the table to it", "Esc close"]).joined(separator: " · ") }
        return (onYes == nil ? answers + ["Enter/Esc close"] : ["y/Enter yes"] + answers + ["n/Esc no"]).joined(separator: " · ")
    }
}

/// An extra answer to a question, on its own key.
public struct ConfirmChoice: Sendable {
    /// The key that gives this answer.
    public var key: Key
    /// What the footer shows for the key (empty: not shown).
    public var label: String
    /// The action sent when the key is pressed.
    public var action: Action
    /// Creates a choice.
    public init(key: Key, label: String, action: Action) {
        self.key = key
        self.label = label
        self.action = action
    }
}
