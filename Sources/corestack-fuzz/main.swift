// Fuzzes the predicate format parser: random token soups and mutations of valid predicates.
// Usage: corestack-fuzz [COUNT] [SEED]   (default 1,000,000 inputs, seed 1)
// corestack-fuzz values [COUNT] [SEED] fuzzes the value inspector instead (ValueFuzz.swift);
// corestack-fuzz pictures [COUNT] [SEED] its image decoders and libchafa output (PictureFuzz.swift).
// Every input must parse or throw a CoreStackError; a crash stops the run with the input printed
// first (inputs are printed to stderr before parsing when CORESTACK_FUZZ_TRACE=1).
import CoreStack
import Foundation

struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}

let arguments = CommandLine.arguments
/// `corestack-fuzz NAME [COUNT] [SEED]`: the fuzzer of that name, then exit.
func runFuzzer(named name: String, defaultCount: Int, _ run: (_ count: Int, _ seed: UInt64, _ trace: Bool) -> Void) {
    guard arguments.count > 1, arguments[1] == name else { return }
    run(
        arguments.count > 2 ? Int(arguments[2]) ?? defaultCount : defaultCount,
        arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1,
        ProcessInfo.processInfo.environment["CORESTACK_FUZZ_TRACE"] == "1")
    exit(0)
}
runFuzzer(named: "pictures", defaultCount: 5_000, PictureFuzz.run)
runFuzzer(named: "values", defaultCount: 20_000, ValueFuzz.run)
let count = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let seed = arguments.count > 2 ? UInt64(arguments[2]) ?? 1 : 1
let trace = ProcessInfo.processInfo.environment["CORESTACK_FUZZ_TRACE"] == "1"
var rng = SplitMix64(state: seed)

let seeds = [
    "title BEGINSWITH[cd] %@ AND pages > %d", "ANY authors.name == 'x' OR NOT (a == 1)",
    "SUBQUERY(books, $b, $b.pages > 100).@count > 0", "pages BETWEEN {1, 5}", "title IN {'a', \"b\"}",
    "books.@avg.pages < 3.5e2", "#in == $VAR && SELF != nil", "CAST(12.0, 'NSDate') < born",
    "title MATCHES '^[a-z]+$' || title LIKE[c] '*x?'", "ALL chapters.title ENDSWITH 'z'", "TRUEPREDICATE",
]
let pieces = [
    "(", ")", "{", "}", ",", ".", "[", "]", "[cd]", "[c]", "==", "=", "!=", "<>", "<", "<=", ">", ">=", "=<", "=>",
    "&&", "||", "!", " AND ", " OR ", " NOT ", " IN ", " ANY ", " ALL ", " NONE ", " SOME ", " BETWEEN ",
    " CONTAINS ", " BEGINSWITH ", " ENDSWITH ", " LIKE ", " MATCHES ", "nil", "NULL", "YES", "NO", "TRUE",
    "FALSE", "SELF", "SUBQUERY(", "CAST(", "TRUEPREDICATE", "FALSEPREDICATE", "%@", "%K", "%d", "%ld", "%f",
    "%s", "%", "$x", "$", "#", "@count", "@sum", "@", "title", "a.b.c", "'str'", "\"q\\\"x\"", "'", "\"",
    "\\u00e9", "\\", "0x1f", "1e309", "-3", "9223372036854775808", ".5", "é", "日本", "🙂", " ", "\n", "\0",
]
let argumentPool: [Any?] = ["x", 1, 2.5, nil, ["a", "b"], Date(timeIntervalSinceReferenceDate: 0), UUID(), true, "pages"]

var parsed = 0
var rejected = 0
for n in 0..<count {
    var input: String
    if rng.below(2) == 0 {
        // Random soup of pieces.
        input = ""
        for _ in 0..<(1 + rng.below(12)) { input += pieces[rng.below(pieces.count)] }
    } else {
        // Mutation of a valid predicate: delete, insert, replace or swap characters.
        var chars = Array(seeds[rng.below(seeds.count)])
        for _ in 0..<(1 + rng.below(4)) {
            let at = rng.below(chars.count + 1)
            switch rng.below(4) {
            case 0: if at < chars.count { chars.remove(at: at) }
            case 1: chars.insert(contentsOf: Array(pieces[rng.below(pieces.count)]), at: at)
            case 2: if at < chars.count { chars[at] = Array(pieces[rng.below(pieces.count)]).first ?? "x" }
            default: if at + 1 < chars.count { chars.swapAt(at, at + 1) }
            }
        }
        input = String(chars)
    }
    let args = (0..<rng.below(4)).map { _ in argumentPool[rng.below(argumentPool.count)] }
    if trace { FileHandle.standardError.write(Data("\(n)\t\(input.debugDescription)\n".utf8)) }
    do {
        let p = try Predicate(format: input, argumentArray: args)
        // What parses must print and parse again.
        _ = try? Predicate(format: p.predicateFormat)
        parsed += 1
    } catch is CoreStackError {
        rejected += 1
    } catch {
        print("unexpected error type for \(input.debugDescription): \(error)")
        exit(1)
    }
}
print("fuzzed \(count) inputs (seed \(seed)): \(parsed) parsed, \(rejected) rejected with CoreStackError, 0 crashes")
