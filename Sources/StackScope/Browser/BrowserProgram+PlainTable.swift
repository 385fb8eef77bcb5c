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
        case let .inspect(cell):
            do {
                guard let inspector = try data.plainCellInspector(cell) else { return [.message("\(cell.title) is NULL", .info)] }
                return [.showModal(.valueInspector(inspector))]
            } catch {
                return [.message("\(cell.title): " + StackScopeErrorMessage.line(for: error), .error)]
            }
        case let .save(cell, path):
            do {
                let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
                let count = try data.writePlainCell(cell, to: url)
                return [.message("Wrote \(cell.title)'s \(count) bytes to \(url.path)", .info)]
            } catch {
                return [.message("\(cell.title): " + StackScopeErrorMessage.line(for: error), .error)]
            }
        }
    }
}
