//! The rule of arrows (docs/architecture.md): the crate's top-level modules
//! stand on floors, and a module names only modules of floors below its
//! own. This test reads every source file under `src/`, collects the
//! `crate::<module>` paths of its code (comments and `#[cfg(test)]` code
//! left out: a test may reach anywhere), and fails on a path that points
//! sideways or up, or at a module the table does not know.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The floors, lowest first. A module may name the modules of lower floors
/// only.
const FLOORS: &[&[&str]] = &[
    &["file"],
    &["time", "parallel"],
    &["index"],
    &["json", "input"],
    &["event"],
    &["decode"],
    &["session"],
    &["render"],
    &["filter", "diag", "error"],
    &["run"],
    &["cli"],
    &["drive"],
];

/// The floor of a top-level module.
fn floor(module: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&module))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file under `src/` belongs to (`None` for the
/// crate root and the binary, which may name anything).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_string())
}

/// The code of a file that counts: comments and test code dropped.
fn code(text: &str, path: &Path) -> String {
    if path
        .file_name()
        .is_some_and(|n| n == "tests.rs" || n == "testing.rs")
    {
        return String::new();
    }
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // The next item is test code: a `mod x;` line, or a block
            // that ends at the closing brace in the first column.
            let next = lines.next().unwrap_or("");
            if next.trim_end().ends_with('{') {
                for l in lines.by_ref() {
                    if l.starts_with('}') {
                        break;
                    }
                }
            }
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line.split(" //").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The top-level modules named as `crate::<name>` in `code`.
fn named(code: &str) -> BTreeSet<String> {
    code.match_indices("crate::")
        .filter(|(at, _)| {
            // Not `streamview_crate::` or the like.
            code[..*at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
        .map(|(at, m)| {
            code[at + m.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|name| name.chars().next().is_some_and(char::is_lowercase))
        .collect()
}

#[test]
fn modules_name_only_the_floors_below_their_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut seen = BTreeSet::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        seen.insert(module.clone());
        let Some(own) = floor(&module) else {
            wrong.push(format!(
                "{}: module `{module}` has no floor in FLOORS",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for other in named(&code(&text, file)) {
            if other == module {
                continue;
            }
            match floor(&other) {
                Some(f) if f < own => {}
                Some(_) => wrong.push(format!(
                    "{}: `{module}` names `crate::{other}`, which is not below it",
                    file.display()
                )),
                None => wrong.push(format!(
                    "{}: `crate::{other}` is not a module in FLOORS",
                    file.display()
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows that do not point down:\n{}",
        wrong.join("\n")
    );
    // The table lists no module that is gone.
    for f in FLOORS.iter().flat_map(|f| f.iter()) {
        assert!(
            seen.contains(*f),
            "FLOORS lists `{f}`, which is not in src/"
        );
    }
}

#[test]
fn the_checker_sees_an_arrow_that_points_up() {
    let text = "use crate::event::Event;\n\
                // crate::render in a comment does not count\n\
                fn f() { crate::render::x(); } // nor crate::cli here\n\
                #[cfg(test)]\nmod tests {\n    use crate::run::Runner;\n}\n";
    let found = named(&code(text, Path::new("src/decode/x.rs")));
    let want: BTreeSet<String> = ["event", "render"].map(String::from).into();
    assert_eq!(found, want);
    assert!(floor("render") > floor("decode"));
}

/// The file of `decode/` a `decode/…` file stands for: `x` for `x.rs` and
/// the files of its folder `x/`, `mod` for `mod.rs`.
fn decode_node(decode: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(decode).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_str()
        .unwrap();
    first.strip_suffix(".rs").unwrap_or(first).to_string()
}

/// The first identifier after each `prefix` in `code`, and of each path in
/// a group (`prefix{a, b::c}`).
fn after(code: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    let mut out = Vec::new();
    for (at, m) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + m.len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                out.extend(group.split(',').map(ident));
            }
            None => out.push(ident(rest)),
        }
    }
    out
}

/// Which files of `decode/` each one names: `super::x` (or
/// `crate::decode::x`) names `x.rs` when there is one, else an item of
/// `mod.rs`; `mod.rs` names `x.rs` with `x::`.
fn decode_arrows(decode: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(decode, &mut files);
    let nodes: BTreeSet<String> = files.iter().map(|f| decode_node(decode, f)).collect();
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let code = code(&std::fs::read_to_string(file).unwrap(), file);
        let from = decode_node(decode, file);
        let nested = file.parent() != Some(decode);
        let to_decode = if nested { "super::super::" } else { "super::" };
        let mut names = after(&code, to_decode);
        names.extend(after(&code, "crate::decode::"));
        if from == "mod" {
            for n in &nodes {
                if !after(&code, &format!("{n}::")).is_empty() {
                    names.push(n.clone());
                }
            }
        }
        let targets: Vec<String> = names
            .into_iter()
            .filter(|n| !n.is_empty())
            .map(|n| {
                if nodes.contains(&n) {
                    n
                } else {
                    "mod".to_string()
                }
            })
            .filter(|n| *n != from)
            .collect();
        arrows.entry(from).or_default().extend(targets);
    }
    arrows
}

/// Depth-first: a file met again while on the path closes a circle.
fn visit<'a>(
    n: &'a str,
    arrows: &'a BTreeMap<String, BTreeSet<String>>,
    path: &mut Vec<&'a str>,
    done: &mut BTreeSet<&'a str>,
    circles: &mut Vec<String>,
) {
    if let Some(at) = path.iter().position(|p| *p == n) {
        circles.push(format!("{} → {n}", path[at..].join(" → ")));
        return;
    }
    if !done.insert(n) {
        return;
    }
    path.push(n);
    for m in arrows.get(n).into_iter().flatten() {
        visit(m, arrows, path, done, circles);
    }
    path.pop();
}

#[test]
fn no_file_of_decode_names_a_file_that_names_it_back() {
    let decode = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/decode");
    let arrows = decode_arrows(&decode);
    assert!(arrows["registry"].contains("qwen"), "{arrows:?}");
    assert!(arrows["qwen"].contains("producer"), "{arrows:?}");
    let mut circles = Vec::new();
    let mut done = BTreeSet::new();
    for n in arrows.keys() {
        visit(n, &arrows, &mut Vec::new(), &mut done, &mut circles);
    }
    assert!(
        circles.is_empty(),
        "circles among the files of decode/:\n{}",
        circles.join("\n")
    );
}
