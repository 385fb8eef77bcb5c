import Foundation

/// Unbuffered output: a log shows progress while a run goes on, and a child's last words survive its crash.
enum Output {
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
