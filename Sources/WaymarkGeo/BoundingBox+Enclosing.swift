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
    /// One pass over the coordinates tracks the latitude range and the longitude range in two
    /// framings, -180…180 and 0…360. Any gap between longitudes wider than 180° contains 0° or
    /// 180°, so when either framing yields a span ≤ 180° that span is the smallest possible. Only
    /// when both exceed 180° (the points spread over more than half the globe) a second pass
    /// buckets longitudes into 4,096 fixed bins (64 KiB, independent of the input size) to find
    /// the widest empty gap; the result is then exact unless every gap is narrower than a bin
    /// (0.088°), when the box covers at least 359.9°.
    ///
    /// - Returns: `nil` for an empty input.
    /// - Throws: ``InvalidCoordinate`` naming the first NaN, infinite or out-of-range coordinate.
    /// - Complexity: O(n) time, O(1) extra memory.
    public static func enclosing(_ coordinates: UnsafeBufferPointer<Coordinate>) throws(InvalidCoordinate) -> BoundingBox? {
        guard !coordinates.isEmpty else { return nil }
        var minLat = Double.infinity, maxLat = -Double.infinity
        var minLon = Double.infinity, maxLon = -Double.infinity
        // For the 0…360 framing: the smallest non-negative and the largest negative longitude.
        // Kept as input values (no +360 arithmetic) so the box edges are exactly input longitudes.
        var minNonNegative = Double.infinity, maxNegative = -Double.infinity
        var invalid = 0
        for c in coordinates {
            let lat = c.latitude, lon = c.longitude
            // Counted, not branched on: NaN fails both comparisons, so it is caught here too.
            invalid &+= (lat.magnitude <= 90 ? 0 : 1) | (lon.magnitude <= 180 ? 0 : 1)
            minLat = Swift.min(minLat, lat)
            maxLat = Swift.max(maxLat, lat)
            minLon = Swift.min(minLon, lon)
            maxLon = Swift.max(maxLon, lon)
            let nonNegative = lon >= 0
            minNonNegative = Swift.min(minNonNegative, nonNegative ? lon : .infinity)
            maxNegative = Swift.max(maxNegative, nonNegative ? -.infinity : lon)
        }
        if invalid != 0 { throw firstInvalid(in: coordinates) }

        let direct = maxLon - minLon
        // Both signs present: the 0…360 framing runs from the smallest non-negative longitude east
        // across 180° to the largest negative one. Otherwise it equals the direct framing.
        let bothSigns = minLon < 0 && maxLon >= 0
        let shifted = bothSigns ? maxNegative + 360 - minNonNegative : direct
        if direct <= 180 || shifted <= 180 {
            if direct <= shifted {
                return BoundingBox(west: minLon, south: minLat, east: maxLon, north: maxLat)
            }
            return BoundingBox(west: minNonNegative, south: minLat, east: maxNegative, north: maxLat)
        }
        let (west, east) = widestGapComplement(coordinates)
        return BoundingBox(west: west, south: minLat, east: east, north: maxLat)
    }

    /// ``enclosing(_:)`` over an array.
    public static func enclosing(_ coordinates: [Coordinate]) throws(InvalidCoordinate) -> BoundingBox? {
        do {
            return try coordinates.withUnsafeBufferPointer { try enclosing($0) }
        } catch let error as InvalidCoordinate {
            throw error
        } catch {
            preconditionFailure("unreachable: \(error)")
        }
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
        let binWidth = 360.0 / Double(binCount)
        var low = [Double](repeating: .infinity, count: binCount)
        var high = [Double](repeating: -.infinity, count: binCount)
        for c in coordinates {
            let lon = c.longitude
            let bin = Swift.min(binCount - 1, Int((lon + 180) / binWidth))
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
