public enum CoreStackVersion { public static let string = "0.1.0" }
