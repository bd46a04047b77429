import Foundation

/// Reads one line of an answer. On a terminal, with line editing: the terminal goes into raw mode
/// for the line (and back after it, whatever happens), and the editor handles the keys itself —
/// left and right arrows, Home and End (and Ctrl-A, Ctrl-E), Backspace, Delete (and Ctrl-D),
/// Ctrl-U and Ctrl-K; other control keys and escape sequences are ignored, never stored. Ctrl-C,
/// and Ctrl-D on an empty line, end the input (nil), like the end of a file. Elsewhere (a pipe, a
/// file) a plain line is read.
enum LineEditor {
    static func read(prompt: String) -> String? {
        guard Terminal.stdinIsTTY, let saved = enterRawMode() else {
            Output.write(prompt)
            return readLine(strippingNewline: true)
        }
        defer {
            var restore = saved
            tcsetattr(STDIN_FILENO, TCSADRAIN, &restore)
        }
        var line = EditedLine()
        var decoder = KeyDecoder()
        Output.write(prompt)
        while true {
            var byte: UInt8 = 0
            let count = Foundation.read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else {
                Output.write("\r\n")
                return nil
            }
            guard let key = decoder.feed(byte) else { continue }
            switch line.apply(key) {
            case .editing:
                Output.write("\r" + prompt + String(line.characters) + "\u{1B}[K")
                let back = line.characters.count - line.cursor
                if back > 0 { Output.write("\u{1B}[\(back)D") }
            case .done:
                Output.write("\r\n")
                return String(line.characters)
            case .endOfInput:
                Output.write("\r\n")
                return nil
            }
        }
    }

    /// Switches standard input to raw mode; returns the settings to restore, nil when it cannot.
    private static func enterRawMode() -> termios? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0 else { return nil }
        return saved
    }
}

/// A key the line editor acts on.
enum EditKey: Equatable {
    case text(Character)
    case left, right, home, end, backspace, delete, killToStart, killToEnd, enter, interrupt, endOfFile
    /// Anything else (arrows up and down, function keys, other control keys): ignored.
    case ignored
}

/// Turns terminal input bytes into keys: UTF-8 text, control keys, and the escape sequences
/// terminals send for arrows, Home, End and Delete (`ESC [ …` and `ESC O …`).
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// The key completed by `byte`, or nil while a sequence is still coming.
    mutating func feed(_ byte: UInt8) -> EditKey? {
        pending.append(byte)
        let first = pending[0]
        if first == 0x1B {
            if pending.count == 1 { return nil }
            guard pending[1] == UInt8(ascii: "[") || pending[1] == UInt8(ascii: "O") else { return finish(.ignored) }
            if pending.count == 2 { return nil }
            // Parameters (digits, ';') until a final byte in @…~.
            guard (0x40...0x7E).contains(byte) else { return pending.count > 16 ? finish(.ignored) : nil }
            let parameters = String(decoding: pending[2..<(pending.count - 1)], as: UTF8.self)
            switch (Character(UnicodeScalar(byte)), parameters) {
            case ("D", _): return finish(.left)
            case ("C", _): return finish(.right)
            case ("H", _), ("~", "1"), ("~", "7"): return finish(.home)
            case ("F", _), ("~", "4"), ("~", "8"): return finish(.end)
            case ("~", "3"): return finish(.delete)
            default: return finish(.ignored)
            }
        }
        if first < 0x80 {
            switch first {
            case 0x0D, 0x0A: return finish(.enter)
            case 0x7F, 0x08: return finish(.backspace)
            case 0x01: return finish(.home)
            case 0x05: return finish(.end)
            case 0x02: return finish(.left)
            case 0x06: return finish(.right)
            case 0x15: return finish(.killToStart)
            case 0x0B: return finish(.killToEnd)
            case 0x03: return finish(.interrupt)
            case 0x04: return finish(.endOfFile)
            case 0x00..<0x20: return finish(.ignored)
            default: return finish(.text(Character(UnicodeScalar(first))))
            }
        }
        // UTF-8: the lead byte says how many bytes the character has.
        let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
        if pending.count < length { return nil }
        let text = String(decoding: pending, as: UTF8.self)
        return finish(
            text.count == 1 && !text.containsControlCharacters && text != "\u{FFFD}" ? .text(text.first!) : .ignored)
    }

    private mutating func finish(_ key: EditKey) -> EditKey {
        pending.removeAll()
        return key
    }
}

/// The line being edited and where the cursor is.
struct EditedLine {
    enum Outcome { case editing, done, endOfInput }

    private(set) var characters: [Character] = []
    private(set) var cursor = 0

    mutating func apply(_ key: EditKey) -> Outcome {
        switch key {
        case let .text(c):
            characters.insert(c, at: cursor)
            cursor += 1
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = characters.count
        case .backspace:
            if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete:
            if cursor < characters.count { characters.remove(at: cursor) }
        case .killToStart:
            characters.removeSubrange(0..<cursor)
            cursor = 0
        case .killToEnd: characters.removeSubrange(cursor...)
        case .enter: return .done
        case .interrupt: return .endOfInput
        case .endOfFile:
            if characters.isEmpty { return .endOfInput }
            if cursor < characters.count { characters.remove(at: cursor) }
        case .ignored: break
        }
        return .editing
    }
}
