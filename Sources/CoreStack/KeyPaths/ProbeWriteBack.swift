import Foundation

/// A writable key path: writes its own value back on an object (for the probe's write check).
protocol ProbeWriteBack {
    func writeBack(on object: AnyObject)
}

extension ReferenceWritableKeyPath: ProbeWriteBack {
    func writeBack(on object: AnyObject) {
        guard let root = object as? Root else { return }
        root[keyPath: self] = root[keyPath: self]
    }
}
