//! Text.JSON's string literals, with its escaping: every JSON text the
//! programs write quotes its strings with it (`write::json`), and the
//! readers quote names in their error messages the same way.

/// Append `s` as a JSON string literal with Text.JSON's escaping (see below).
///
/// `"` and `\` are escaped with a backslash; backspace, form feed, line feed,
/// carriage return and tab use their short escapes; every other character
/// below U+0020 is written as `\u00xx` with lower-case hex digits. Everything
/// else is written raw, including `/`, DEL and all non-ASCII characters.
pub fn write_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut run = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0C => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x00..=0x1F => "",
            _ => continue,
        };
        // Every escaped character is ASCII, so `i` is a character boundary.
        out.push_str(s.get(run..i).unwrap_or(""));
        if short.is_empty() {
            out.push_str("\\u00");
            out.push(hex_digit(b >> 4));
            out.push(hex_digit(b & 0x0F));
        } else {
            out.push_str(short);
        }
        run = i + 1;
    }
    out.push_str(s.get(run..).unwrap_or(""));
    out.push('"');
}

/// The lower-case hex digit for a value below 16.
fn hex_digit(n: u8) -> char {
    char::from_digit(u32::from(n), 16).unwrap_or('0')
}
