/// A coordinate that failed validation, with its position in the input.
public struct InvalidCoordinate: Error, Sendable, Equatable, CustomStringConvertible {
    /// Zero-based index of the coordinate in the collection that was scanned.
    public var index: Int
    /// What is wrong with it.
    public var reason: CoordinateError

    public init(index: Int, reason: CoordinateError) {
        self.index = index
        self.reason = reason
    }

    public var description: String { "coordinate \(index): \(reason)" }
}

extension BoundingBox {
    /// The smallest box that contains every coordinate, with the shortest longitude range:
    /// points at 170°E and 170°W give a 20°-wide box across the antimeridian, not 340°.
    ///
    /// One pass tracks the latitude and longitude extremes, and the smallest non-negative and largest
    /// negative longitude, which bound the range that runs the other way round, across 180°. If the
    /// plain range spans at most 180° it is the answer: the gap it leaves is at least 180° wide, so
    /// no other gap is wider. Otherwise, since any gap wider than 180° contains 0° or 180°, the
    /// range across 180° is the answer if it spans at most 180°. Only when both exceed 180° (points
    /// over more than half the globe in both framings) a second pass buckets
    /// longitudes into 4,096 fixed bins (64 KiB, independent of the input size) to find the widest
    /// empty gap; exact unless every gap is narrower than a bin (0.088°), when the box covers at
    /// least 359.9° anyway. Edges are always input longitudes, never rounded.
    ///
    /// - Returns: `nil` for an empty input.
    /// - Throws: ``InvalidCoordinate`` naming the first NaN, infinite or out-of-range coordinate.
    /// - Complexity: O(n) time (one pass unless the points spread over more than half the globe's
    ///   longitudes both ways round), O(1) extra memory.
    public static func enclosing(_ coordinates: UnsafeBufferPointer<Coordinate>) throws(InvalidCoordinate)
        -> BoundingBox? {
        guard !coordinates.isEmpty else { return nil }
        // Two accumulators over alternate coordinates: their min/max chains are independent, so the
        // CPU overlaps them instead of waiting on one chain's latency per coordinate.
        var even = Extremes(), odd = Extremes()
        var i = 0
        let pairs = coordinates.count & ~1
        while i < pairs {
            even.add(coordinates[i])
            odd.add(coordinates[i + 1])
            i += 2
        }
        if i < coordinates.count { even.add(coordinates[i]) }
        let e = even.merged(with: odd)
        // Out-of-range values show in the extremes; NaN never wins a comparison but poisons the
        // sum (and ±infinity is out of range, or makes the sum NaN).
        guard e.checksum.isFinite, e.minLat >= -90, e.maxLat <= 90, e.minLon >= -180, e.maxLon <= 180 else {
            throw firstInvalid(in: coordinates)
        }
        if e.maxLon - e.minLon <= 180 {
            return BoundingBox(west: e.minLon, south: e.minLat, east: e.maxLon, north: e.maxLat)
        }
        // A span over 180° needs longitudes of both signs, so both of these are input values.
        let minNonNegative = Double(bitPattern: e.minNonNegativeBits)
        let maxNegative = Double(bitPattern: e.maxNegativeFlippedBits ^ Extremes.signBit)
        if maxNegative + 360 - minNonNegative <= 180 {
            return BoundingBox(west: minNonNegative, south: e.minLat, east: maxNegative, north: e.maxLat)
        }
        let (west, east) = widestGapComplement(coordinates)
        return BoundingBox(west: west, south: e.minLat, east: east, north: e.maxLat)
    }

    /// Running extremes of one pass.
    private struct Extremes {
        var minLat = Double.infinity, maxLat = -Double.infinity
        var minLon = Double.infinity, maxLon = -Double.infinity
        /// Σ (latitude + longitude): NaN or infinite if any input is.
        var checksum = 0.0
        /// The ends of the range that runs east across 180°, found without branches from bit
        /// patterns: non-negative doubles order like their bits as unsigned integers, and every
        /// negative one has the sign bit set, so the smallest bit pattern is the smallest
        /// non-negative longitude; with the sign bit flipped, the smallest is the negative longitude
        /// nearest zero (the largest negative). Exact: the edges stay input values.
        var minNonNegativeBits = UInt64.max, maxNegativeFlippedBits = UInt64.max
        static let signBit: UInt64 = 1 << 63

        @inline(__always)
        mutating func add(_ c: Coordinate) {
            minLat = Swift.min(minLat, c.latitude)
            maxLat = Swift.max(maxLat, c.latitude)
            minLon = Swift.min(minLon, c.longitude)
            maxLon = Swift.max(maxLon, c.longitude)
            checksum += c.latitude + c.longitude
            let bits = (c.longitude + 0).bitPattern // + 0 turns -0 into +0
            minNonNegativeBits = Swift.min(minNonNegativeBits, bits)
            maxNegativeFlippedBits = Swift.min(maxNegativeFlippedBits, bits ^ Extremes.signBit)
        }

        func merged(with other: Extremes) -> Extremes {
            Extremes(minLat: Swift.min(minLat, other.minLat), maxLat: Swift.max(maxLat, other.maxLat),
                     minLon: Swift.min(minLon, other.minLon), maxLon: Swift.max(maxLon, other.maxLon),
                     checksum: checksum + other.checksum,
                     minNonNegativeBits: Swift.min(minNonNegativeBits, other.minNonNegativeBits),
                     maxNegativeFlippedBits: Swift.min(maxNegativeFlippedBits, other.maxNegativeFlippedBits))
        }
    }

    /// ``enclosing(_:)`` over an array.
    public static func enclosing(_ coordinates: [Coordinate]) throws(InvalidCoordinate) -> BoundingBox? {
        try coordinates.withUnsafeBufferPointer { (buffer) throws(InvalidCoordinate) in try enclosing(buffer) }
    }

    private static func firstInvalid(in coordinates: UnsafeBufferPointer<Coordinate>) -> InvalidCoordinate {
        for (index, c) in coordinates.enumerated() {
            do {
                _ = try Coordinate(validatingLatitude: c.latitude, longitude: c.longitude)
            } catch {
                return InvalidCoordinate(index: index, reason: error)
            }
        }
        preconditionFailure("a coordinate was counted invalid but none is")
    }

    /// The longitude range left after removing the widest empty gap between the coordinates'
    /// longitudes, found with fixed-size bins. Returns (west, east): the input longitudes that end
    /// and start the gap, so no rounding is introduced.
    private static func widestGapComplement(_ coordinates: UnsafeBufferPointer<Coordinate>) -> (Double, Double) {
        let binCount = 4096
        let binsPerDegree = Double(binCount) / 360
        var low = [Double](repeating: .infinity, count: binCount)
        var high = [Double](repeating: -.infinity, count: binCount)
        for c in coordinates {
            let lon = c.longitude
            let bin = Swift.min(binCount - 1, Int((lon + 180) * binsPerDegree))
            low[bin] = Swift.min(low[bin], lon)
            high[bin] = Swift.max(high[bin], lon)
        }
        let occupied = (0..<binCount).filter { low[$0] <= high[$0] }
        // Start with the gap that wraps from the last occupied bin round to the first.
        var gapFrom = occupied.last!, gapTo = occupied.first!
        var widest = low[gapTo] + 360 - high[gapFrom]
        for (a, b) in zip(occupied, occupied.dropFirst()) where low[b] - high[a] > widest {
            widest = low[b] - high[a]
            gapFrom = a
            gapTo = b
        }
        if widest <= 0 { return (-180, 180) }
        // The box starts where the gap ends and ends where the gap starts.
        return (low[gapTo], high[gapFrom])
    }
}
