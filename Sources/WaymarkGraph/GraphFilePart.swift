/// One part of a graph file: the sections one piece of code writes and reads back (the graph
/// itself, its basemap, and what preparing a map makes once: the hierarchy, the turn tables, the
/// snap index, guidance's tables). Every part a file may hold is listed once, in
/// `GraphFileLayout` (the `WaymarkRouting` facade, which knows them all); writing a map and
/// loading one both go by that list.
public protocol GraphFilePart {
    /// The part's name, for a reader of the file (`waymark inspect`).
    static var partName: String { get }
    /// The tags of the sections the part writes, in the order it writes them; the first one
    /// marks the part as stored.
    static var sectionTags: [String] { get }
    /// Tags only older files hold, still read.
    static var olderTags: [String] { get }
}

extension GraphFilePart {
    public static var olderTags: [String] { [] }

    /// How many sections the part writes (known before it is made).
    public static var fileSectionCount: Int { sectionTags.count }

    /// Whether graph-file sections hold the part.
    public static func isStored(in sections: FileSections) -> Bool { sections.contains(sectionTags[0]) }

    /// Whether `tag` is one of the part's, now or in older files.
    public static func owns(_ tag: String) -> Bool { sectionTags.contains(tag) || olderTags.contains(tag) }
}

extension RoadGraph: GraphFilePart {
    public static let partName = "road graph"
    public static let sectionTags = ["NLAT", "NLON", "NFLG", "EFST", "ETGT", "ESEG", "ELEN", "EDUR", "EWGT",
                                     "IFST", "IEDG", "ISRC",
                                     "SSHP", "SLAT", "SLON", "NOID", "SOID", "SNAM", "SREF", "SHWY", "SFLG", "SWAY",
                                     "SSGN", "SGNR", "SLAN", "STRO", "STRB",
                                     "RVIA", "RFRM", "RTO_", "RKND", "RPST", "RPED", "RPKN", "REPT", "DSID", "PROF",
                                     "EDLY", "CNAM", "CEDG", "CSTA", "CDUR", "CWGT", "CSRC", "TOFR", "TOTO", "TODU",
                                     "TOWT"]
}

extension Basemap: GraphFilePart {
    public static let partName = "basemap"
    public static let sectionTags = ["BPRM", "BKND", "BFST", "BPST", "BLAT", "BLON", "BPNM", "BPNS", "BPKD", "BPLA",
                                     "BPLO"]
}
