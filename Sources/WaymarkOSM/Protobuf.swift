/// What is wrong with a protocol buffer message or a PBF file, in a few words.
struct PBFFormatError: Error, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Reads a protocol buffer message field by field, straight from its bytes: no generated code,
/// no schema object. Every read is bounds-checked and throws on truncated or malformed input;
/// nothing it returns is larger than the message it reads.
///
/// Wire types: 0 varint, 1 fixed 64 bits, 2 length-delimited (strings, sub-messages, packed
/// repeated fields), 5 fixed 32 bits. Groups (3, 4) are long deprecated and rejected.
struct ProtobufReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position >= bytes.count }

    /// The next field's number and wire type, or nil at the end of the message.
    @inline(__always)
    mutating func field() throws(PBFFormatError) -> (number: UInt64, wire: UInt64)? {
        guard position < bytes.count else { return nil }
        let key = try varint()
        let number = key >> 3
        guard number > 0 else { throw PBFFormatError("field number 0") }
        return (number, key & 7)
    }

    /// An unsigned varint (at most ten bytes).
    @inline(__always)
    mutating func varint() throws(PBFFormatError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw PBFFormatError("varint overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { throw PBFFormatError("varint longer than ten bytes") }
        }
        throw PBFFormatError("truncated varint")
    }

    /// A zigzag-encoded signed varint (`sint32`, `sint64`).
    @inline(__always)
    mutating func signedVarint() throws(PBFFormatError) -> Int64 {
        ProtobufReader.zigzag(try varint())
    }

    @inline(__always)
    static func zigzag(_ n: UInt64) -> Int64 {
        Int64(bitPattern: (n >> 1) ^ (0 &- (n & 1)))
    }

    /// A length-delimited field's bytes (a view into the message).
    @inline(__always)
    mutating func lengthDelimited() throws(PBFFormatError) -> UnsafeRawBufferPointer {
        let length = try varint()
        guard length <= UInt64(bytes.count - position) else {
            throw PBFFormatError(
                "a field of \(length) bytes runs past the end of its message (\(bytes.count - position) left)")
        }
        let start = position
        position += Int(length)
        return UnsafeRawBufferPointer(rebasing: bytes[start..<position])
    }

    /// Skips a field of a type this reader does not need.
    mutating func skip(wire: UInt64) throws(PBFFormatError) {
        switch wire {
        case 0: _ = try varint()
        case 1: try advance(8)
        case 2: _ = try lengthDelimited()
        case 5: try advance(4)
        default: throw PBFFormatError("unsupported wire type \(wire)")
        }
    }

    private mutating func advance(_ n: Int) throws(PBFFormatError) {
        guard bytes.count - position >= n else { throw PBFFormatError("truncated fixed-width field") }
        position += n
    }

    /// A repeated varint field, packed (wire type 2) or as one value (wire type 0): calls `body`
    /// with each value in order.
    @inline(__always)
    mutating func repeatedVarints(wire: UInt64,
                                  _ body: (UInt64) throws(PBFFormatError) -> Void) throws(PBFFormatError) {
        switch wire {
        case 0:
            try body(try varint())
        case 2:
            var packed = ProtobufReader(try lengthDelimited())
            while !packed.isAtEnd { try body(try packed.varint()) }
        default:
            throw PBFFormatError("repeated integer field with wire type \(wire)")
        }
    }

    /// A repeated `sint64` field delta-coded (each value the difference from the one before, as
    /// PBF stores ids, refs and dense coordinates): appends the running sums to `values`.
    /// Overflow wraps (a corrupt file gives wrong numbers, which callers range-check, not a trap).
    /// A packed field's values are counted first (by their last bytes, the ones without the
    /// continuation bit) and decoded straight into room made for them, not appended one by one.
    @inline(__always)
    mutating func repeatedDeltas(wire: UInt64, into values: inout [Int64]) throws(PBFFormatError) {
        var running: Int64 = 0
        guard wire == 2 else {
            try repeatedVarints(wire: wire) { raw in
                running &+= ProtobufReader.zigzag(raw)
                values.append(running)
            }
            return
        }
        let field = try lengthDelimited()
        var count = 0
        for byte in field where byte < 0x80 { count += 1 }
        if field.isEmpty { return }
        // Where the field's last byte ends a value, every value ends inside the field: they are
        // read without looking for the field's end at each byte, one and two bytes at a glance.
        if field[field.count - 1] < 0x80 {
            let decoded = try [Int64](unsafeUninitializedCapacity: count) {
                (buffer, initialized) throws(PBFFormatError) in
                var p = field.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let end = p + field.count
                var k = 0
                while p < end {
                    let b0 = p[0]
                    var value: UInt64
                    if b0 < 0x80 {
                        value = UInt64(b0)
                        p += 1
                    } else if p[1] < 0x80 {
                        value = UInt64(b0 & 0x7F) | UInt64(p[1]) << 7
                        p += 2
                    } else {
                        value = UInt64(b0 & 0x7F) | UInt64(p[1] & 0x7F) << 7
                        p += 2
                        var shift: UInt64 = 14
                        while true {
                            let byte = p[0]
                            p += 1
                            if shift == 63
                                && byte > 1 { initialized = k; throw PBFFormatError("varint overflows 64 bits") }
                            value |= UInt64(byte & 0x7F) << shift
                            if byte < 0x80 { break }
                            shift += 7
                            if shift > 63 { initialized = k; throw PBFFormatError("varint longer than ten bytes") }
                        }
                    }
                    running &+= ProtobufReader.zigzag(value)
                    buffer[k] = running // k < count: each value ended at a counted byte
                    k += 1
                }
                initialized = k
            }
            if values.isEmpty { values = decoded } else { values += decoded }
            return
        }
        var failure: PBFFormatError?
        let decoded = [Int64](unsafeUninitializedCapacity: count) { buffer, initialized in
            var packed = ProtobufReader(field), k = 0
            while !packed.isAtEnd {
                do throws(PBFFormatError) {
                    running &+= ProtobufReader.zigzag(try packed.varint())
                } catch {
                    failure = error
                    break
                }
                buffer[k] = running // k < count: each value ended at a counted byte
                k += 1
            }
            initialized = k
        }
        if let failure { throw failure }
        if values.isEmpty { values = decoded } else { values += decoded }
    }

    /// The field as a varint, checking its wire type.
    @inline(__always)
    mutating func varint(wire: UInt64) throws(PBFFormatError) -> UInt64 {
        guard wire == 0 else { throw PBFFormatError("integer field with wire type \(wire)") }
        return try varint()
    }

    /// The field as length-delimited bytes, checking its wire type.
    @inline(__always)
    mutating func lengthDelimited(wire: UInt64) throws(PBFFormatError) -> UnsafeRawBufferPointer {
        guard wire == 2 else { throw PBFFormatError("bytes field with wire type \(wire)") }
        return try lengthDelimited()
    }
}
