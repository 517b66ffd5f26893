//! HTML escaping, in one place: the characters HTML reads as markup
//! written as entities, for every report and chart that writes HTML.
//!
//! The HTML page (`html.rs`), its chart (`chart.rs`) and the HTML inside a
//! Markdown report (`markdown.rs`: the `<summary>` of a `<details>`, and
//! the `<`, `>` and `&` of the text outside code) all escape with
//! [`push_escaped`], so a string from the stream is never written as
//! markup, whichever writer writes it.

/// Append `c` to `out` as HTML reads it as text, in an element or inside
/// a quoted attribute: `<`, `>`, `&` and both quotes as entities, any other
/// character as it is.
pub(crate) fn push_escaped(out: &mut String, c: char) {
    match c {
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '&' => out.push_str("&amp;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&#39;"),
        c => out.push(c),
    }
}

/// `s` with `<`, `>`, `&` and quotes as HTML entities ([`push_escaped`]).
pub(crate) fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_become_entities() {
        assert_eq!(
            escape_html("</td><script>a & \"b\" 'c'"),
            "&lt;/td&gt;&lt;script&gt;a &amp; &quot;b&quot; &#39;c&#39;"
        );
        assert_eq!(escape_html("plain · text"), "plain · text");
    }
}
