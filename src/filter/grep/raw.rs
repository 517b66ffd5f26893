//! A plain `--grep` pattern rewritten to run over raw JSON lines: whatever
//! it matches in a decoded string, the rewrite matches in the string as
//! JSON writes it.
//!
//! A plain pattern (ASCII, no control character, no backslash, no quote)
//! has literal characters that JSON writes as they are, with three
//! exceptions: Go's encoder writes `<`, `>`, `&` as `\u003c`, `\u003e`,
//! `\u0026`, and some encoders write `/` as `\/`: each such literal is
//! either form. What else can match one decoded character (`.`, a class
//! `[^a]`, `[ -~]`) may meet one written escaped: a tab as `\t`, a quote as
//! `\"`, a character beyond ASCII as `\u00e9` (Python's `ensure_ascii`), or
//! one beyond the BMP as a surrogate pair; each may be an escape too, and
//! a character beyond ASCII as its UTF-8 bytes. Under `-i`, `k` and `s` also
//! match the Kelvin sign and the long s (`\u212a`, `\u017f`). Anchors (`^`,
//! `$`) say where a decoded string starts or ends, which is not where the
//! raw line does: they are left out (the rewrite matches more lines, never
//! fewer). The rewrite is done on the pattern's syntax tree, each piece
//! in a group of its own so that a quantifier after it (`.*`, `.{2}`)
//! repeats the whole of it.

use regex_syntax::ast::{self, AssertionKind, Ast, Flag, FlagsItemKind, Visitor};

/// One JSON escape: `\uXXXX` (a surrogate pair as two), or `\` and the
/// character it stands for.
const ESCAPE: &str = r"\\(?:u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?|[^u])";

/// `pattern` (plain, see the module docs) for raw lines, or `None` when it
/// cannot be parsed (it compiled as text: it can).
pub(super) fn raw_pattern(pattern: &str, ignore_case: bool) -> Option<String> {
    let ast = ast::parse::Parser::new().parse(pattern).ok()?;
    let edits = Rewrite {
        pattern,
        edits: Vec::new(),
        folded: Vec::new(),
        case_insensitive: false,
    };
    let mut edits = ast::visit(&ast, edits).ok()?;
    if ignore_case || edits.case_insensitive {
        edits.edits.append(&mut edits.folded);
    }
    edits.edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut at = 0;
    for (start, end, with) in edits.edits {
        out.push_str(&pattern[at..start]);
        out.push_str(&with);
        at = end;
    }
    out.push_str(&pattern[at..]);
    Some(out)
}

/// The pieces of the pattern to replace: `(start, end, replacement)`.
struct Rewrite<'p> {
    pattern: &'p str,
    edits: Vec<(usize, usize, String)>,
    /// `k` and `s`, replaced when the pattern ignores case.
    folded: Vec<(usize, usize, String)>,
    /// A `(?i)` flag somewhere (it may apply to part only: the rewrite of
    /// `k`, `s` everywhere is more than needed, never less).
    case_insensitive: bool,
}

impl<'p> Visitor for Rewrite<'p> {
    type Output = Rewrite<'p>;
    type Err = ();

    fn finish(self) -> Result<Rewrite<'p>, ()> {
        Ok(self)
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), ()> {
        let span = ast.span();
        let (start, end) = (span.start.offset, span.end.offset);
        let edit = match ast {
            Ast::Dot(_) => Some(format!("(?:(?u:.)|{ESCAPE})")),
            // Nested classes are items of this one: the whole is replaced.
            Ast::ClassBracketed(_) => {
                Some(format!("(?:(?u:{})|{ESCAPE})", &self.pattern[start..end]))
            }
            Ast::Literal(l) => match l.c {
                '<' => Some(r"(?:<|\\u003[cC])".to_string()),
                '>' => Some(r"(?:>|\\u003[eE])".to_string()),
                '&' => Some(r"(?:&|\\u0026)".to_string()),
                '/' => Some(r"(?:/|\\/)".to_string()),
                c @ ('k' | 'K' | 's' | 'S') => {
                    let code = if c.eq_ignore_ascii_case(&'k') {
                        "212[aA]"
                    } else {
                        "017[fF]"
                    };
                    self.folded
                        .push((start, end, format!(r"(?:(?u:{c})|\\u{code})")));
                    None
                }
                _ => None,
            },
            Ast::Assertion(a)
                if matches!(
                    a.kind,
                    AssertionKind::StartLine
                        | AssertionKind::EndLine
                        | AssertionKind::StartText
                        | AssertionKind::EndText
                ) =>
            {
                Some("(?:)".to_string())
            }
            Ast::Flags(f) => {
                self.note_flags(&f.flags);
                None
            }
            Ast::Group(g) => {
                if let ast::GroupKind::NonCapturing(flags) = &g.kind {
                    self.note_flags(flags);
                }
                None
            }
            _ => None,
        };
        if let Some(with) = edit {
            self.edits.push((start, end, with));
        }
        Ok(())
    }
}

impl Rewrite<'_> {
    fn note_flags(&mut self, flags: &ast::Flags) {
        let mut negated = false;
        for item in &flags.items {
            match item.kind {
                FlagsItemKind::Negation => negated = true,
                FlagsItemKind::Flag(Flag::CaseInsensitive) if !negated => {
                    self.case_insensitive = true;
                }
                FlagsItemKind::Flag(_) => {}
            }
        }
    }
}
