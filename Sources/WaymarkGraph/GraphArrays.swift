
/// A ``RoadGraph``'s arrays while ``GraphBuilder`` fills them (a graph's own are read-only:
/// ``Column``s, so that a mapped graph file is used in place).
struct GraphArrays {
    var latitudes: [Int32] = []
    var longitudes: [Int32] = []
    var nodeFlags: [UInt8] = []
    var firstEdge: [UInt32] = [0]
    var edgeTarget: [UInt32] = []
    var edgeSegment: [UInt32] = []
    var edgeLength: [Float] = []
    var edgeDuration: [Float] = []
    var edgeWeight: [Float] = []
    var edgeDelay: [Float] = []
    var firstIncoming: [UInt32] = [0]
    var incomingEdge: [UInt32] = []
    var incomingSource: [UInt32] = []
    var shapeStart: [UInt32] = [0]
    var shapeLatitudes: [Int32] = []
    var shapeLongitudes: [Int32] = []
    var vertexNodeIDs: [Int64] = []
    var shapeNodeIDs: [Int64] = []
    var segmentName: [UInt32] = []
    var segmentRef: [UInt32] = []
    var segmentHighway: [UInt8] = []
    var segmentFlags: [UInt8] = []
    var segmentWayID: [Int64] = []
    var segmentSigns: [UInt32] = []
    var segmentLanes: [UInt8] = []
    var segmentModes: [UInt8] = []
    var signRows: [UInt32] = [0, 0, 0, 0, 0]
    var restrictionVia: [UInt32] = []
    var restrictionFrom: [UInt32] = []
    var restrictionTo: [UInt32] = []
    var restrictionKind: [UInt8] = []
    var restrictionPathStart: [UInt32] = [0]
    var restrictionPathEdges: [UInt32] = []
    var restrictionPathKind: [UInt8] = []
    var strings: [String] = [""]
}

extension RoadGraph {
    /// The graph of `parts` (their arrays kept, not copied).
    init(_ parts: GraphArrays) {
        self.init()
        latitudes = Column(parts.latitudes)
        longitudes = Column(parts.longitudes)
        nodeFlags = Column(parts.nodeFlags)
        firstEdge = Column(parts.firstEdge)
        edgeTarget = Column(parts.edgeTarget)
        edgeSegment = Column(parts.edgeSegment)
        edgeLength = Column(parts.edgeLength)
        edgeDuration = Column(parts.edgeDuration)
        edgeWeight = Column(parts.edgeWeight)
        edgeDelay = Column(parts.edgeDelay)
        firstIncoming = Column(parts.firstIncoming)
        incomingEdge = Column(parts.incomingEdge)
        incomingSource = Column(parts.incomingSource)
        shapeStart = Column(parts.shapeStart)
        shapeLatitudes = Column(parts.shapeLatitudes)
        shapeLongitudes = Column(parts.shapeLongitudes)
        vertexNodeIDs = Column(parts.vertexNodeIDs)
        shapeNodeIDs = Column(parts.shapeNodeIDs)
        segmentName = Column(parts.segmentName)
        segmentRef = Column(parts.segmentRef)
        segmentHighway = Column(parts.segmentHighway)
        segmentFlags = Column(parts.segmentFlags)
        segmentWayID = Column(parts.segmentWayID)
        segmentSigns = Column(parts.segmentSigns)
        segmentLanes = Column(parts.segmentLanes)
        // Kept only where some segment is travelled otherwise than its ferry flag says.
        let derived = parts.segmentFlags.lazy.map { EdgeFlags(rawValue: $0).contains(.ferry) ? UInt8(0x11) : 0 }
        segmentModes = parts.segmentModes.elementsEqual(derived) ? [] : Column(parts.segmentModes)
        signRows = Column(parts.signRows)
        restrictionVia = Column(parts.restrictionVia)
        restrictionFrom = Column(parts.restrictionFrom)
        restrictionTo = Column(parts.restrictionTo)
        restrictionKind = Column(parts.restrictionKind)
        restrictionPathStart = Column(parts.restrictionPathStart)
        restrictionPathEdges = Column(parts.restrictionPathEdges)
        restrictionPathKind = Column(parts.restrictionPathKind)
        strings = parts.strings
    }
}
