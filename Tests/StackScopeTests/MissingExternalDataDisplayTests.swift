import CoreStack
import Foundation
import StackScope
import Testing

/// An external binary value whose support file is missing is shown as such, not as its reference bytes.
@Suite("missing external data shown")
struct MissingExternalDataDisplayTests {
    @Test("the browser's cell and detail say 'missing external data <UUID>'; other bytes still show their size")
    func formatter() {
        let uuid = "11111111-2222-3333-4444-555555555555"
        let reference = AttributeValue.data(Data([0x02]) + Data(uuid.utf8) + Data([0]))
        #expect(ValueFormatter.cell(reference) == "missing external data \(uuid)")
        #expect(ValueFormatter.detail(reference) == "missing external data \(uuid)")
        #expect(ValueFormatter.cell(.data(Data([0x02, 0x41]))) == "2 bytes · 02 41")
    }
}
