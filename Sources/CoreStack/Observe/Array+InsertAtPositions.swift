extension Array {
    /// Inserts `elements` among the array's elements in one pass: `elements[j]` lands after the
    /// first `positions[j]` of the elements the array holds now and after `elements[0..<j]`
    /// (`positions` non-decreasing, each in `0...count`; out-of-range ones are clamped).
    ///
    /// Filled from the back, each element already there moves once, by a swap (no copy, no
    /// reference count), where one `insert(_:at:)` per new element moved every element after it
    /// each time: O(count + elements) instead of O(count × elements).
    ///
    /// ```swift
    /// var rows = [10, 20, 30]
    /// rows.insert([15, 25, 26], atPositions: [1, 2, 2])   // [10, 15, 20, 25, 26, 30]
    /// ```
    mutating func insert(_ elements: [Element], atPositions positions: [Int]) {
        let k = Swift.min(elements.count, positions.count)
        guard k > 0 else { return }
        var incoming = Array(elements.prefix(k))
        let n = count
        append(contentsOf: incoming)  // room, filled below
        var i = n - 1  // the last element of the old ones not yet moved
        var w = n + k - 1  // the last slot not yet filled
        for j in stride(from: k - 1, through: 0, by: -1) {
            let p = Swift.min(Swift.max(positions[j], 0), i + 1)
            while i >= p {
                swapAt(w, i)
                i -= 1
                w -= 1
            }
            swap(&self[w], &incoming[j])
            w -= 1
        }
    }
}
