import Foundation
import WaymarkSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only array of plain values that lives either in memory of its own (an array handed
/// over) or in place in a mapped graph file — loading a map copies nothing. Indexing is
/// bounds-checked as an `Array`'s is; search loops take the raw buffer.
public struct Column<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    @usableFromInline let base: UnsafePointer<Element>
    public let count: Int
    /// Keeps the values alive: the array's box or the file's mapping.
    @usableFromInline let owner: AnyObject?

    public typealias Index = Int
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable
    public subscript(i: Int) -> Element {
        precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "Column index out of range")
        return base[i]
    }

    /// The values of `array` (kept, not copied).
    public init(_ array: [Element]) {
        let box = ArrayBox(array)
        base = box.base
        count = array.count
        owner = box
    }

    public init<S: Sequence>(_ values: S) where S.Element == Element { self.init(Array(values)) }

    /// `count` values at `base`, kept alive by `owner` (which must never change them).
    init(base: UnsafePointer<Element>, count: Int, owner: AnyObject) {
        self.base = base
        self.count = count
        self.owner = owner
    }

    /// The values in `raw`, a part of `owner`'s bytes: in place where they are aligned for the
    /// type (a copy where not, as a crafted file's may be); nil when not a whole number of values.
    init?(raw: UnsafeRawBufferPointer, owner: AnyObject) {
        let stride = MemoryLayout<Element>.stride
        guard raw.count % stride == 0 else { return nil }
        let count = raw.count / stride
        guard count > 0, let start = raw.baseAddress else {
            self.init([])
            return
        }
        guard Int(bitPattern: start) % MemoryLayout<Element>.alignment == 0 else {
            self.init(GraphFile.values(raw, as: Element.self)!)
            return
        }
        self.init(base: start.bindMemory(to: Element.self, capacity: count), count: count, owner: owner)
    }

    @inlinable
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E)
        -> R {
        let result = try body(UnsafeBufferPointer(start: base, count: count))
        withExtendedLifetime(owner) {}
        return result
    }

    /// The values as an array of their own.
    public var array: [Element] { withUnsafeBufferPointer { Array($0) } }
}

extension Column: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension Column: Equatable where Element: Equatable {
    public static func == (a: Column, b: Column) -> Bool { a.elementsEqual(b) }
}

extension Column: CustomStringConvertible {
    public var description: String { array.description }
}

/// An array kept for a ``Column``: never changed after it is made, so its storage never moves.
private final class ArrayBox<Element>: @unchecked Sendable {
    let array: [Element]
    let base: UnsafePointer<Element>
    private static var empty: UnsafePointer<Element> {
        UnsafePointer(bitPattern: MemoryLayout<Element>.alignment)!
    }

    init(_ array: [Element]) {
        self.array = array
        // A native array's elements sit in its heap buffer, which this box keeps and nobody
        // mutates, so the address stays valid for the box's life.
        base = array.withUnsafeBufferPointer { $0.baseAddress } ?? ArrayBox.empty
    }
}

/// How a graph file's bytes are held while a map uses them.
public enum FileMemory: Sendable {
    /// Mapped from the file: a page is read when a query first touches it. The quickest start;
    /// the choice for a few queries.
    case mapped
    /// Read whole into memory of the process's own, in 2 MB pages where the system gives them
    /// (Linux's transparent huge pages): a query's jumps across the map then miss the processor's
    /// address cache far less often, for a slower start. The choice for many queries.
    case resident
}

/// A file's bytes, read-only: mapped from the file (private, so nothing written through it could
/// reach the file) or read into memory of their own (``FileMemory``), released when the last
/// ``Column`` using them goes.
///
/// A graph file in use must not be changed in place or truncated — `waymark build` never does,
/// it writes a new file and renames it over the old, and a mapping keeps the old one's pages.
final class MappedFile: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    /// Whether the bytes were read into ``LargePages`` (``FileMemory/resident``) rather than mapped.
    private let resident: Bool
    /// For a large file: its identity in ``CheckedFiles``, and whether that lists it.
    let identity: String?
    let alreadyChecked: Bool
    #if os(Linux)
    /// Every page mapped at once (the checksum reads them all anyway): one call instead of a fault per few pages.
    private let mapFlags = MAP_PRIVATE | MAP_POPULATE
    #else
    private let mapFlags = MAP_PRIVATE
    #endif

    init(path: String, memory: FileMemory = .mapped) throws(GraphFileError) {
        // Non-blocking, so that a FIFO is refused below instead of waiting for a writer.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw .notFound(path) }
            throw .unreadable(path, String(cString: strerror(code)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path, String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(path, info.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file")
        }
        let size = Int(info.st_size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            resident = false
            identity = nil
            alreadyChecked = false
            return
        }
        // A large file's identity, and whether it was checked in full before (``CheckedFiles``).
        var header = [UInt8](repeating: 0, count: 32)
        if size >= CheckedFiles.minimumSize, pread(fd, &header, 32, 0) == 32 {
            let stated = header[24..<32].reversed().map { String(format: "%02x", $0) }.joined()
            identity = "\(info.st_dev) \(info.st_ino) \(size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) "
                + "\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec) \(stated)"
        } else {
            identity = nil
        }
        alreadyChecked = identity.map(CheckedFiles.contains) ?? false
        if memory == .resident, let read = MappedFile.readWhole(fd, size: size) {
            bytes = UnsafeRawBufferPointer(read)
            resident = true
            return
        }
        resident = false
        // A file to check is read whole anyway: all its pages mapped in one call. One checked
        // before is read only where queries go.
        guard let address = mmap(nil, size, PROT_READ,
                                 alreadyChecked ? MAP_PRIVATE : mapFlags, fd, 0), address != MAP_FAILED else {
            throw .unreadable(path, String(cString: strerror(errno)))
        }
        bytes = UnsafeRawBufferPointer(start: address, count: size)
    }

    deinit {
        guard let start = bytes.baseAddress else { return }
        if resident {
            LargePages.release(UnsafeMutableRawPointer(mutating: start), byteCount: bytes.count)
        } else {
            munmap(UnsafeMutableRawPointer(mutating: start), bytes.count)
        }
    }

    /// The file's `size` bytes read into ``LargePages``, then made read-only; nil where the memory
    /// cannot be had or the read fails (the file is then mapped).
    private static func readWhole(_ fd: Int32, size: Int) -> UnsafeMutableRawBufferPointer? {
        guard let start = LargePages.allocate(size) else { return nil }
        var done = 0
        while done < size {
            let n = pread(fd, start + done, size - done, off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                LargePages.release(start, byteCount: size)
                return nil
            }
            done += n
        }
        _ = mprotect(start, LargePages.span(size), PROT_READ)
        return UnsafeMutableRawBufferPointer(start: start, count: size)
    }
}

/// Bytes copied into memory of their own (a graph file given as `Data`, a section set in a test).
final class OwnedBytes: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer

    init(_ source: UnsafeRawBufferPointer) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
        if source.count > 0 { copy.copyMemory(from: source) }
        bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(copy)[0..<source.count])
    }

    static func copy(_ array: [UInt8]) -> OwnedBytes { array.withUnsafeBytes { OwnedBytes($0) } }

    deinit { UnsafeMutableRawPointer(mutating: bytes.baseAddress)?.deallocate() }
}

/// A graph file's sections besides the graph's own (a hierarchy, guidance tables, a snap index,
/// a basemap), by four-character tag, in place in the file's mapping.
public struct FileSections: @unchecked Sendable, ExpressibleByDictionaryLiteral {
    private struct Entry {
        let raw: UnsafeRawBufferPointer
        let owner: AnyObject
    }
    private var entries: [String: Entry] = [:]

    public init() {}

    public init(_ sections: [String: [UInt8]]) {
        for (tag, bytes) in sections { self[tag] = bytes }
    }

    public init(dictionaryLiteral elements: (String, [UInt8])...) {
        for (tag, bytes) in elements { self[tag] = bytes }
    }

    /// `raw`, a part of `owner`'s bytes, as section `tag`.
    mutating func set(_ tag: String, _ raw: UnsafeRawBufferPointer, owner: AnyObject) {
        entries[tag] = Entry(raw: raw, owner: owner)
    }

    /// A section's bytes (a copy); setting one replaces or adds it, nil removes it.
    public subscript(tag: String) -> [UInt8]? {
        get { entries[tag].map { entry in Array(entry.raw) } }
        set {
            if let newValue {
                let owned = OwnedBytes.copy(newValue)
                entries[tag] = Entry(raw: owned.bytes, owner: owned)
            } else {
                entries[tag] = nil
            }
        }
    }

    public func contains(_ tag: String) -> Bool { entries[tag] != nil }

    public var tags: [String] { entries.keys.sorted() }

    /// The sections `renaming` names, under the tags it gives them (the bytes shared, not copied).
    public func renamed(_ renaming: [String: String]) -> FileSections {
        var kept = FileSections()
        for (from, to) in renaming { if let entry = entries[from] { kept.entries[to] = entry } }
        return kept
    }

    /// The sections whose tags pass `isIncluded`.
    public func filter(_ isIncluded: (String) -> Bool) -> FileSections {
        var kept = FileSections()
        kept.entries = entries.filter { isIncluded($0.key) }
        return kept
    }

    /// Section `tag` as values, in place where it is aligned for them (a copy where not); nil
    /// when there is no such section or it is not a whole number of values (see ``contains(_:)``).
    public func column<T: BitwiseCopyable>(_ tag: String, as _: T.Type) -> Column<T>? {
        guard let entry = entries[tag] else { return nil }
        return Column(raw: entry.raw, owner: entry.owner)
    }

    /// The values of section `tag` (see ``column(_:as:)``), `count` of them when given; otherwise
    /// `refuse`'s error, for the table that reads them (the hierarchy, the snap index, …).
    public func values<T: BitwiseCopyable, E: Error>(_ tag: String, as _: T.Type, count: Int? = nil,
                                                    refuse: (String) -> E) throws(E) -> Column<T> {
        guard contains(tag) else { throw refuse("section \(tag) missing") }
        guard let values = column(tag, as: T.self) else { throw refuse("section \(tag) has a partial element") }
        if let count, values.count != count { throw refuse("section \(tag) does not fit the graph") }
        return values
    }

    /// The section as a graph-file section to write again (from where it lies).
    public func section(_ tag: String) -> GraphFile.Section? {
        column(tag, as: UInt8.self).map { GraphFile.Section(tag, $0) }
    }
}
