import CoreStack
import Foundation

extension BrowserProgram {
    /// Runs a read of the plain table view: the actions it produces (the view opened, rows
    /// loaded, the value inspector on a cell, or a message saying what failed).
    func plainTableActions(_ request: PlainTableCommand) -> [Action] {
        switch request {
        case let .open(table):
            do {
                return [.showModal(.plainTable(try data.openPlainTable(table, height: App.plainTableHeight(state))))]
            } catch {
                return [.message("\(table): " + StackScopeErrorMessage.line(for: error), .error)]
            }
        case let .load(table, query, range, generation):
            return [.plainRowsLoaded(data.plainRows(table, query: query, range: range, generation: generation))]
        case let .inspect(table, column, rowID):
            let title = "\(table).\(column) · row \(rowID)"
            do {
                guard let value = try data.plainCellValue(table, column: column, rowID: rowID) else {
                    return [.message("\(title) is NULL", .info)]
                }
                return [.showModal(.valueInspector(try ValueInspectorState(title: title, value: value)))]
            } catch {
                return [.message("\(title): " + StackScopeErrorMessage.line(for: error), .error)]
            }
        }
    }
}
