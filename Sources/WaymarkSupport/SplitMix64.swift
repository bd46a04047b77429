/// A small, fast, deterministic random number generator (SplitMix64, Steele, Lea & Flood 2014),
/// for property tests with fixed seeds, benchmarks and generated sample data: the same seed gives
/// the same sequence on every platform and Swift version, unlike `SystemRandomNumberGenerator`.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double uniformly distributed in `low..<high` (53 random bits).
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
