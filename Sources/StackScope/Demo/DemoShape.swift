/// How many objects of each kind the demo generator makes for a size (chapters are drawn per book,
/// 2 to 12 each).
///
/// ```swift
/// let shape = DemoShape(size: 300)
/// shape.books        // 30 (every fifth a graphic novel)
/// ```
struct DemoShape: Sendable, Equatable {
    var publishers: Int
    var genres: Int
    var authors: Int
    var editors: Int
    var books: Int

    init(size: Int) {
        publishers = max(2, size / 60)
        genres = min(DemoLibrary.genreNames.count, max(3, size / 25))
        authors = max(3, size / 10)
        editors = max(2, size / 30)
        books = max(5, size / 10)
    }

    /// Objects other than chapters.
    var withoutChapters: Int { publishers + genres + authors + editors + books }

    /// The expected total: 7 chapters per book on average.
    var expectedTotal: Int { withoutChapters + books * 7 }
}
