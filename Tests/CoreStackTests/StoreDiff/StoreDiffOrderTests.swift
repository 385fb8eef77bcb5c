import Foundation
import Testing

@testable import CoreStack

/// ``StoreDiff`` on ordered to-many relationships: members that changed place are reported as
/// moves (old index → new index), in stores written by CoreStack and changed in known ways.
@Suite("store diff: order moves")
struct StoreDiffOrderTests {
    /// Playlists with ordered tracks: a to-many without inverse (a join table with an order
    /// column), and albums with ordered songs through the songs' to-one (an order column on the
    /// destination's table). Names are unique, so two different stores match by name.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Music") {
            EntityDescription("Playlist", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("tracks", destination: "Track", toMany: true, isOrdered: true)
            }
            EntityDescription("Track", uniquenessConstraints: [["title"]]) {
                AttributeDescription("title", .string, isOptional: false)
                RelationshipDescription("album", destination: "Album", inverse: "songs")
            }
            EntityDescription("Album", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("songs", destination: "Track", inverse: "album", toMany: true, isOrdered: true)
            }
        }
    }

    /// Inserts the tracks named, then playlists and albums holding them in the order given.
    static func seed(
        _ c: ManagedObjectContext, tracks: [String], playlists: [(String, [String])], albums: [(String, [String])]
    ) throws {
        var byTitle: [String: ManagedObject] = [:]
        for t in tracks {
            let track = try c.insertObject(forEntityName: "Track")
            try track.setValue(t, forKey: "title")
            byTitle[t] = track
        }
        for (entity, key, list) in [("Playlist", "tracks", playlists), ("Album", "songs", albums)] {
            for (name, members) in list {
                let owner = try c.insertObject(forEntityName: entity)
                try owner.setValue(name, forKey: "name")
                for (i, m) in members.enumerated() { try owner.insert(try #require(byTitle[m]), at: i, inKey: key) }
            }
        }
    }

    static func moves(_ e: EntityDiff?, _ owner: AttributeValue) -> [RelationshipOrderMove]? {
        e?.reorders.first { $0.source == owner }?.moves
    }

    @Test("moves inside a copy (same store, matched by Z_PK): one member moved, members swapped among removed and inserted ones, and an append that is no move")
    func sameStoreCopy() throws {
        let model = try Self.model()
        let url = try Fixtures.temporaryFolder().appendingPathComponent("old.sqlite")
        try StoreDiffTests.write(url, model: model) {
            try Self.seed(
                $0, tracks: ["a", "b", "c", "d", "e", "x", "y", "z"],
                playlists: [("P1", ["a", "b", "c", "d", "e"]), ("P2", ["x", "y"])],
                albums: [("A1", ["a", "b", "c"]), ("A2", ["x", "y"])])
        }
        let copy = try StoreDiffTests.copy(url, to: "new.sqlite")
        try StoreDiffTests.write(copy, model: model) { c in
            // P1: e moves to the front. P2: z appended (a link, not a move).
            try StoreDiffTests.object("Playlist", "name", "P1", c).moveObject(from: 4, to: 0, inKey: "tracks")
            try StoreDiffTests.object("Playlist", "name", "P2", c).insert(try StoreDiffTests.object("Track", "title", "z", c), at: 2, inKey: "tracks")
            // A1: [a b c] → [c d a]: b removed, d inserted, a and c swapped.
            let a1 = try StoreDiffTests.object("Album", "name", "A1", c)
            try a1.removeObject(at: 1, fromKey: "songs")
            try a1.moveObject(from: 0, to: 1, inKey: "songs")
            try a1.insert(try StoreDiffTests.object("Track", "title", "d", c), at: 1, inKey: "songs")
        }
        let old = try SQLiteStore(url: url, model: model, readOnly: true)
        let new = try SQLiteStore(url: copy, model: model, readOnly: true)
        defer { old.close(); new.close() }
        func pk(_ table: String, _ column: String, _ value: String) throws -> Int64 {
            Int64(try RawSQLite.scalar("SELECT Z_PK FROM \(table) WHERE \(column) = '\(value)'", in: url))
        }
        for chunk in [1, 2, 2000] {
            let report = try StoreDiff(old: old, new: new, options: StoreDiffOptions(chunkSize: chunk)).run()
            let playlist = try #require(report.entities.first { $0.name == "Playlist" })
            #expect(playlist.reorderedCount == 1, "chunk \(chunk)")
            let p1 = try pk("ZPLAYLIST", "ZNAME", "P1")
            let e = try pk("ZTRACK", "ZTITLE", "e")
            #expect(Self.moves(playlist, .integer(p1)) == [RelationshipOrderMove(destination: .integer(e), oldIndex: 4, newIndex: 0)])
            let first = try #require(playlist.reorders.first)
            #expect((first.oldCount, first.newCount, first.relationship, first.destinationEntity) == (5, 5, "tracks", "Track"))
            #expect((first.oldPrimaryKey, first.newPrimaryKey) == (p1, p1))
            #expect(playlist.linkedCount == 1)
            let album = try #require(report.entities.first { $0.name == "Album" })
            #expect(album.reorderedCount == 1)
            let a1 = try pk("ZALBUM", "ZNAME", "A1"), a = try pk("ZTRACK", "ZTITLE", "a")
            // The shared members a, c: c keeps its place relative to nothing else, a moves after it.
            #expect(Self.moves(album, .integer(a1)) == [RelationshipOrderMove(destination: .integer(a), oldIndex: 0, newIndex: 2)])
            let a1Change = try #require(album.reorders.first)
            #expect((a1Change.oldCount, a1Change.newCount) == (3, 3))
        }
        // Limits keep the first order changes; counts stay exact.
        let limited = try StoreDiff(old: old, new: new, options: StoreDiffOptions(changeLimit: 0)).run()
        let limitedPlaylist = try #require(limited.entities.first { $0.name == "Playlist" })
        #expect((limitedPlaylist.reorderedCount, limitedPlaylist.reorders.count) == (1, 0))
        // A store compared with itself has no moves.
        #expect(try StoreDiff(old: old, new: old).run().entities.allSatisfy { $0.reorderedCount == 0 })
    }

    @Test("moves between two different stores (other primary keys) are matched and named by the uniqueness constraints' keys")
    func differentStores() throws {
        let model = try Self.model()
        let folder = try Fixtures.temporaryFolder()
        let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite")
        try StoreDiffTests.write(a, model: model) {
            try Self.seed(
                $0, tracks: ["t1", "t2", "t3", "t4"], playlists: [("P1", ["t1", "t2", "t3", "t4"]), ("P2", ["t1", "t2"])],
                albums: [("A1", ["t1", "t2", "t3"])])
        }
        // The new store: written in another order (other Z_PKs), P1 rotated, A1 reversed.
        try StoreDiffTests.write(b, model: model) {
            try Self.seed(
                $0, tracks: ["t4", "t3", "t2", "t1"], playlists: [("P2", ["t1", "t2"]), ("P1", ["t4", "t1", "t2", "t3"])],
                albums: [("A1", ["t3", "t2", "t1"])])
        }
        let old = try SQLiteStore(url: a, model: model, readOnly: true)
        let new = try SQLiteStore(url: b, model: model, readOnly: true)
        defer { old.close(); new.close() }
        let report = try StoreDiff(old: old, new: new, options: StoreDiffOptions(chunkSize: 1)).run()
        #expect(!report.matchedByPrimaryKey)
        let playlist = try #require(report.entities.first { $0.name == "Playlist" })
        #expect(playlist.match == .attribute(name: "name", source: "uniqueness constraint"))
        #expect((playlist.changedCount, playlist.linkedCount, playlist.unlinkedCount, playlist.reorderedCount) == (0, 0, 0, 1))
        #expect(Self.moves(playlist, "P1") == [RelationshipOrderMove(destination: "t4", oldIndex: 3, newIndex: 0)])
        let album = try #require(report.entities.first { $0.name == "Album" })
        // [t1 t2 t3] → [t3 t2 t1]: one of the three stays, two move.
        let moves = try #require(Self.moves(album, "A1"))
        #expect(moves.count == 2)
        #expect(moves.map(\.newIndex) == moves.map(\.newIndex).sorted())
        for m in moves {
            let title = try #require(m.destination.stringValue)
            #expect(m.oldIndex == ["t1", "t2", "t3"].firstIndex(of: title))
            #expect(m.newIndex == ["t3", "t2", "t1"].firstIndex(of: title))
        }
        // The objects named by those keys are found in each store.
        let diff = StoreDiff(old: old, new: new)
        let p1Old = try #require(try diff.primaryKey(of: "Playlist", matching: "P1", in: .old))
        let p1New = try #require(try diff.primaryKey(of: "Playlist", matching: "P1", in: .new))
        let p1Change = try #require(playlist.reorders.first)
        #expect((p1Change.oldPrimaryKey, p1Change.newPrimaryKey) == (p1Old, p1New))
        #expect(p1Old == Int64(try RawSQLite.scalar("SELECT Z_PK FROM ZPLAYLIST WHERE ZNAME = 'P1'", in: a)))
        #expect(p1New == Int64(try RawSQLite.scalar("SELECT Z_PK FROM ZPLAYLIST WHERE ZNAME = 'P1'", in: b)))
        #expect(try diff.primaryKey(of: "Playlist", matching: "P9", in: .new) == nil)
        #expect(try diff.primaryKey(of: "Track", matching: "t4", in: .old) != diff.primaryKey(of: "Track", matching: "t4", in: .new))
    }

    @Test("the fewest moves: a longest run keeping its order stays, repeated keys pair in order")
    func fewestMoves() {
        func moves(_ a: String, _ b: String) -> [String] {
            StoreDiffOrderMoves.moves(old: Array(a), new: Array(b)).map { "\($0.member)\($0.oldIndex)\($0.newIndex)" }
        }
        #expect(moves("abcde", "abcde") == [])
        #expect(moves("abcde", "eabcd") == ["e40"])
        #expect(moves("abcde", "bcdea") == ["a04"])
        #expect(moves("abc", "xaybzc") == [])  // only insertions
        #expect(moves("abcd", "db") == ["b11"])  // removals and a move (d keeps its place, b goes after it)
        #expect(moves("aab", "aba") == ["a12"])  // the second a pairs with the second a, and moves after b
        #expect(moves("abcdef", "fedcba").count == 5)
    }
}
