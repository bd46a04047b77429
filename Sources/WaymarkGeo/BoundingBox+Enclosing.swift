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
        var minShifted = Double.infinity, maxShifted = -Double.infinity
        var invalid = 0
        for c in coordinates {
            let lat = c.latitude, lon = c.longitude
            // Counted, not branched on: NaN fails both comparisons, so it is caught here too.
            invalid &+= (lat.magnitude <= 90 ? 0 : 1) | (lon.magnitude <= 180 ? 0 : 1)
            minLat = Swift.min(minLat, lat)
            maxLat = Swift.max(maxLat, lat)
            minLon = Swift.min(minLon, lon)
            maxLon = Swift.max(maxLon, lon)
            let shifted = lon < 0 ? lon + 360 : lon
            minShifted = Swift.min(minShifted, shifted)
            maxShifted = Swift.max(maxShifted, shifted)
        }
        if invalid != 0 { throw firstInvalid(in: coordinates) }

        let direct = maxLon - minLon
        let shifted = maxShifted - minShifted
        if direct <= 180 || shifted <= 180 {
            if direct <= shifted {
                return BoundingBox(west: minLon, south: minLat, east: maxLon, north: maxLat)
            }
            return BoundingBox(west: minShifted > 180 ? minShifted - 360 : minShifted, south: minLat,
                               east: maxShifted > 180 ? maxShifted - 360 : maxShifted, north: maxLat)
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
    /// longitudes, found with fixed-size bins. Returns (west, east) in -180…180.
    private static func widestGapComplement(_ coordinates: UnsafeBufferPointer<Coordinate>) -> (Double, Double) {
        let binCount = 4096
        let binWidth = 360.0 / Double(binCount)
        var low = [Double](repeating: .infinity, count: binCount)
        var high = [Double](repeating: -.infinity, count: binCount)
        for c in coordinates {
            let lon = c.longitude + 180 // 0…360
            let bin = Swift.min(binCount - 1, Int(lon / binWidth))
            low[bin] = Swift.min(low[bin], lon)
            high[bin] = Swift.max(high[bin], lon)
        }
        let occupied = (0..<binCount).filter { low[$0] <= high[$0] }
        // Gap that wraps from the last occupied bin round to the first.
        var gapStart = high[occupied.last!], gapEnd = low[occupied.first!] + 360
        var widest = gapEnd - gapStart
        for (a, b) in zip(occupied, occupied.dropFirst()) where low[b] - high[a] > widest {
            widest = low[b] - high[a]
            gapStart = high[a]
            gapEnd = low[b]
        }
        if widest <= 0 { return (-180, 180) }
        // The box starts where the gap ends and ends where the gap starts.
        var west = gapEnd - 180, east = gapStart - 180
        if west > 180 { west -= 360 }
        if east > 180 { east -= 360 }
        return (west, east)
    }
}
