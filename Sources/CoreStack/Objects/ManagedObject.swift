import Foundation
open class ManagedObject {}
