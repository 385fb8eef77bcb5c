/// The moves that turn one order of an ordered relationship's members into another: the members
/// both orders share are paired (a repeated key pairs its occurrences in order), and those outside
/// a longest run that keeps its relative order (a longest increasing subsequence of their new
/// positions, taken in old order) are the moves.
enum StoreDiffOrderMoves {
    /// The moved members of `old` → `new` as (member, old index, new index), in new order; empty
    /// when the shared members keep their order.
    static func moves<Member: Hashable>(old: [Member], new: [Member]) -> [(member: Member, oldIndex: Int, newIndex: Int)] {
        var newIndexes: [Member: [Int]] = [:]
        for (j, v) in new.enumerated() { newIndexes[v, default: []].append(j) }
        var used: [Member: Int] = [:]
        var pairs: [(oldIndex: Int, newIndex: Int)] = []
        for (i, v) in old.enumerated() {
            guard let list = newIndexes[v] else { continue }
            let k = used[v, default: 0]
            guard k < list.count else { continue }
            used[v] = k + 1
            pairs.append((i, list[k]))
        }
        let kept = longestIncreasing(pairs.map(\.newIndex))
        guard kept.count < pairs.count else { return [] }
        return pairs.indices.filter { !kept.contains($0) }
            .map { (old[pairs[$0].oldIndex], pairs[$0].oldIndex, pairs[$0].newIndex) }
            .sorted { $0.2 < $1.2 }
    }

    /// The positions in `values` of a longest strictly increasing subsequence (patience sorting, O(n log n)).
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions in `values` of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var result = Set<Int>()
        var p = tails.last ?? -1
        while p >= 0 {
            result.insert(p)
            p = previous[p]
        }
        return result
    }
}
