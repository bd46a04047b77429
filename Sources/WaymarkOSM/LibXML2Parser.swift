import CLibXML2
import Foundation

// Every libxml2 call Waymark makes is in this file and GPXReader.swift (a trace, read whole). The
// map parser streams: libxml2's SAX2 interface calls back per element start and end with
// attribute values as byte ranges into its buffer, and nothing of the document is kept. Input
// comes through `GzipInput` (zlib), so .osm and .osm.gz read alike and progress is known.

/// Streams an OSM XML file into an ``OSMElementDecoder``.
enum LibXML2Parser {
    /// What the callbacks share: the decoder, the input, and the first error.
    private final class Context {
        let decoder: OSMElementDecoder
        let input: GzipInput
        var parser: xmlParserCtxtPtr?
        var error: (line: Int, message: String)?
        var attributeLine = 0

        init(decoder: OSMElementDecoder, input: GzipInput) {
            self.decoder = decoder
            self.input = input
        }
    }

    /// Parses the whole input, calling the decoder per element.
    /// - Throws: ``OSMReadError/xml(function:path:line:message:)`` for malformed XML (naming the
    /// libxml2 function, the file and the line), ``OSMReadError/invalidAttribute(path:line:element:attribute:value:)``
    ///   for bad coordinates or ids, ``OSMReadError/read(path:reason:)`` when inflating fails.
    static func parse(_ input: GzipInput, into decoder: OSMElementDecoder) throws(OSMReadError) {
        waymark_silence_generic_errors()
        let context = Context(decoder: decoder, input: input)
        let opaque = Unmanaged.passUnretained(context).toOpaque()
        var handler = makeHandler()

        guard let parser = xmlCreateIOParserCtxt(&handler, opaque, readCallback, closeCallback,
                                                 Unmanaged.passUnretained(input).toOpaque(), XML_CHAR_ENCODING_NONE)
        else {
            throw .xml(function: "xmlCreateIOParserCtxt", path: input.path, line: 0,
                       message: "could not create a parser")
        }
        defer { xmlFreeParserCtxt(parser) }
        context.parser = parser
        // No network access and no entity substitution: a map file is data, not a document to resolve.
        // HUGE lifts libxml2's size limits, which country extracts can exceed.
        xmlCtxtUseOptions(parser,
                          Int32(XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_HUGE.rawValue))
        let status = withExtendedLifetime(context) { xmlParseDocument(parser) }

        if let root = decoder.root, root != "osm" {
            throw .notOSM(path: input.path, found: "its root element is <\(root)>, not <osm>")
        }
        if let failure = decoder.failure {
            throw .invalidAttribute(path: input.path, line: context.attributeLine, element: failure.element,
                                    attribute: failure.attribute, value: failure.value)
        }
        if let readFailure = input.failure { throw .read(path: input.path, reason: readFailure) }
        // Bytes the declared encoding cannot convert: libxml2 says so only through its (silenced)
        // generic errors, then reports whatever the damaged text looks like; say what happened.
        if let buffer = parser.pointee.input?.pointee.buf, buffer.pointee.error != 0 {
            let declared = buffer.pointee.encoder?.pointee.name.map { String(cString: $0) }
                ?? "in the declared encoding"
            throw .xml(function: "xmlParseDocument", path: input.path, line: Int(xmlSAX2GetLineNumber(parser)),
                       message: "the bytes are not valid \(declared)")
        }
        if let error = context.error {
            throw .xml(function: "xmlParseDocument", path: input.path, line: error.line, message: error.message)
        }
        if status != 0 || parser.pointee.wellFormed == 0 {
            throw .xml(function: "xmlParseDocument", path: input.path, line: Int(xmlSAX2GetLineNumber(parser)),
                       message: "document is not well-formed")
        }
    }

    private static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { ctx, localname, _, _, _, _, attributeCount, _, attributes in
            guard let ctx, let localname else { return }
            let context = Unmanaged<Context>.fromOpaque(ctx).takeUnretainedValue()
            context.decoder.start(bytes(localname),
                                  attributes: SAXAttributes(base: attributes, count: Int(attributeCount)))
            if context.decoder.failure != nil, let parser = context.parser {
                context.attributeLine = Int(xmlSAX2GetLineNumber(parser))
                xmlStopParser(parser)
            }
        }
        handler.endElementNs = { ctx, localname, _, _ in
            guard let ctx, let localname else { return }
            Unmanaged<Context>.fromOpaque(ctx).takeUnretainedValue().decoder.end(bytes(localname))
        }
        handler.serror = { ctx, error in
            guard let ctx, let error else { return }
            let context = Unmanaged<Context>.fromOpaque(ctx).takeUnretainedValue()
            guard context.error == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
            context.error = (Int(error.pointee.line), message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return handler
    }

}

/// libxml2's attribute array for one element (five pointers per attribute: local name, prefix,
/// URI, value start, value end) read in place, without copying.
private struct SAXAttributes: Sequence, IteratorProtocol {
    let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int
    var index = 0

    init(base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
        self.base = base
        self.count = base == nil ? 0 : count
    }

    mutating func next() -> OSMElementDecoder.Attribute? {
        while index < count {
            let entry = base! + 5 * index
            index += 1
            guard let name = entry[0], let start = entry[3], let end = entry[4] else { continue }
            return (bytes(name), UnsafeBufferPointer(start: start, count: end - start))
        }
        return nil
    }
}

/// A NUL-terminated libxml2 string as a byte range.
private func bytes(_ string: UnsafePointer<xmlChar>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: string, count: Int(xmlStrlen(string)))
}

private let readCallback: xmlInputReadCallback = { context, buffer, length in
    guard let context, let buffer else { return -1 }
    return Unmanaged<GzipInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: length)
}

private let closeCallback: xmlInputCloseCallback = { _ in 0 }
