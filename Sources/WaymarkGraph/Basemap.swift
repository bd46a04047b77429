import WaymarkGeo

/// What a map shows besides roads (`waymark build --basemap`): water, parks, woods and grass,
/// railways, buildings, and the names of places. Kept flat (one array per field, like the
/// graph): a feature is a run of parts, a part a run of points; an area's parts are its outer and
/// inner rings (drawn with the even-odd rule), a line's parts are lines.
public struct Basemap: Sendable, Equatable {
    /// What a feature is, in drawing order (lower first; the numbers are the file's).
    public enum Kind: UInt8, Sendable, CaseIterable {
        /// The sea the coastlines bound (``Coastline``): rings read with the even-odd rule.
        case sea = 8
        case grass = 0, wood, park, water, river, coastline, railway, building

        /// Whether its parts are closed rings (else lines).
        public var isArea: Bool {
            switch self {
            case .sea, .grass, .wood, .park, .water, .building: true
            case .river, .coastline, .railway: false
            }
        }
    }

    /// A named place (`place=*`), for labels.
    public struct Place: Sendable, Equatable {
        public enum Kind: UInt8, Sendable, CaseIterable {
            case city, town, village, suburb, quarter, neighbourhood, hamlet

            /// The zoom from which a place of this kind is named (OSM Carto's, roughly).
            public var minimumZoom: Double {
                switch self {
                case .city: 4
                case .town: 8
                case .village, .suburb: 11
                case .quarter: 13
                case .neighbourhood, .hamlet: 14
                }
            }
        }

        public var name: String
        public var kind: Kind
        public var coordinate: Coordinate

        public init(name: String, kind: Kind, coordinate: Coordinate) {
            self.name = name
            self.kind = kind
            self.coordinate = coordinate
        }
    }

    public private(set) var kinds: [Kind] = []
    /// Parts of feature f: `featureStart[f]..<featureStart[f + 1]`.
    private(set) var featureStart: [UInt32] = [0]
    /// Points of part p: `partStart[p]..<partStart[p + 1]`.
    private(set) var partStart: [UInt32] = [0]
    private(set) var latitudes: [Int32] = []
    private(set) var longitudes: [Int32] = []
    public var places: [Place] = []
    /// Rings that could not be closed (a multipolygon's ways that do not join up, an area drawn
    /// as an open way), left out.
    public var droppedRings = 0

    public init() {}

    public var featureCount: Int { kinds.count }

    /// Adds a feature (parts of fewer than two points, or rings of fewer than four, are skipped;
    /// nothing is added when no part is left).
    public mutating func add(_ kind: Kind, parts: [[Coordinate]]) {
        let kept = parts.filter { $0.count >= (kind.isArea ? 4 : 2) }
        guard !kept.isEmpty else { return }
        for part in kept {
            for c in part {
                latitudes.append(FixedPoint.encode(c.latitude))
                longitudes.append(FixedPoint.encode(c.longitude))
            }
            partStart.append(UInt32(latitudes.count))
        }
        kinds.append(kind)
        featureStart.append(UInt32(partStart.count - 1))
    }

    /// How many parts feature `f` has (an area's rings, a line's pieces).
    public func partCount(of f: Int) -> Int { Int(featureStart[f + 1] - featureStart[f]) }

    /// The parts of feature `f`, each its points.
    public func parts(of f: Int) -> [[Coordinate]] {
        (Int(featureStart[f])..<Int(featureStart[f + 1])).map { p in
            (Int(partStart[p])..<Int(partStart[p + 1])).map {
                Coordinate(latitude: FixedPoint.decode(latitudes[$0]), longitude: FixedPoint.decode(longitudes[$0]))
            }
        }
    }
}

/// Why stored basemap sections cannot be used.
public struct BasemapFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { "stored basemap: \(reason) (rebuild with 'waymark build --basemap')" }
}

extension Basemap {
    /// The basemap as graph-file sections.
    public var fileSections: [GraphFile.Section] {
        var nameBytes: [UInt8] = [], nameStart: [UInt32] = [0]
        for place in places {
            nameBytes += Array(place.name.utf8)
            nameStart.append(UInt32(nameBytes.count))
        }
        return [.init("BPRM", [1, Double(droppedRings)]), .init("BKND", kinds.map(\.rawValue)),
                .init("BFST", featureStart),
                .init("BPST", partStart), .init("BLAT", latitudes), .init("BLON", longitudes),
                .init("BPNM", nameBytes), .init("BPNS", nameStart), .init("BPKD", places.map(\.kind.rawValue)),
                .init("BPLA", places.map { FixedPoint.encode($0.coordinate.latitude) }),
                .init("BPLO", places.map { FixedPoint.encode($0.coordinate.longitude) })]
    }

    /// The basemap a graph file stores, every index and value checked; nil where there is none.
    public init?(fileSections sections: FileSections) throws(BasemapFileError) {
        guard sections.contains("BPRM") else { return nil }
        func array<T: BitwiseCopyable>(_ tag: String, _ type: T.Type) throws(BasemapFileError) -> [T] {
            try sections.values(tag, as: type) { BasemapFileError(reason: $0) }.array
        }
        func check(_ ok: Bool, _ what: String) throws(BasemapFileError) {
            if !ok { throw BasemapFileError(reason: what) }
        }
        guard let parameters = sections.column("BPRM", as: Double.self)?.array, parameters.count == 2,
            parameters[0] == 1
        else {
            throw BasemapFileError(reason: "written in another format")
        }
        try check(parameters[1] >= 0 && parameters[1] < 1e12 && parameters[1] == parameters[1].rounded(),
                  "dropped-ring count out of range")
        let kindValues = try array("BKND", UInt8.self)
        let featureStart = try array("BFST", UInt32.self), partStart = try array("BPST", UInt32.self)
        let latitudes = try array("BLAT", Int32.self), longitudes = try array("BLON", Int32.self)
        let kinds = kindValues.compactMap(Kind.init(rawValue:))
        try check(kinds.count == kindValues.count, "unknown feature kind")
        try check(
            featureStart.count == kinds.count + 1 && featureStart.first == 0
                && Int(featureStart.last!) == partStart.count - 1,
                  "features do not fit their parts")
        try check(
            partStart.first == 0 && Int(partStart.last!) == latitudes.count && longitudes.count == latitudes.count,
                  "parts do not fit their points")
        try check(zip(featureStart, featureStart.dropFirst()).allSatisfy { $0 < $1 }, "a feature without parts")
        for (f, kind) in kinds.enumerated() {
            for p in Int(featureStart[f])..<Int(featureStart[f + 1]) {
                try check(
                    partStart[p] <= partStart[p + 1] && Int(partStart[p + 1] - partStart[p]) >= (kind.isArea ? 4 : 2),
                    "a part too short")
            }
        }
        try check(latitudes.allSatisfy { abs($0) <= 900_000_000 } && longitudes.allSatisfy { abs($0) <= 1_800_000_000 },
                  "coordinate off the globe")
        let nameBytes = try array("BPNM", UInt8.self), nameStart = try array("BPNS", UInt32.self)
        let placeKinds = try array("BPKD", UInt8.self), placeLat = try array("BPLA", Int32.self),
            placeLon = try array("BPLO", Int32.self)
        try check(
            nameStart.count == placeKinds.count + 1 && placeLat.count == placeKinds.count
                && placeLon.count == placeKinds.count,
                  "places do not fit their names")
        try check(
            nameStart.first == 0 && Int(nameStart.last!) == nameBytes.count
                && zip(nameStart, nameStart.dropFirst()).allSatisfy { $0 <= $1 },
                  "place names out of order")
        try check(
            placeLat.allSatisfy { abs($0) <= 900_000_000 } && placeLon.allSatisfy { abs($0) <= 1_800_000_000 },
            "place off the globe")
        var places: [Place] = []
        for i in placeKinds.indices {
            guard let kind = Place.Kind(rawValue: placeKinds[i]),
                  let name = String(validating: nameBytes[Int(nameStart[i])..<Int(nameStart[i + 1])], as: UTF8.self)
              else {
                throw BasemapFileError(reason: "place \(i) has an unknown kind or a name that is not UTF-8")
            }
            places.append(Place(name: name, kind: kind,
                                coordinate: Coordinate(latitude: FixedPoint.decode(placeLat[i]),
                                                       longitude: FixedPoint.decode(placeLon[i]))))
        }
        self.init()
        self.kinds = kinds
        self.featureStart = featureStart
        self.partStart = partStart
        self.latitudes = latitudes
        self.longitudes = longitudes
        self.places = places
        droppedRings = Int(parameters[1])
    }
}
