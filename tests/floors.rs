//! The rule of arrows (docs/architecture.md): the crate's top-level modules
//! stand on floors, and a module names only modules of floors below its
//! own. This test reads every source file under `src/`, collects the
//! `crate::<module>` paths of its code (comments and `#[cfg(test)]` code
//! left out), and fails on a path that points sideways or up, or at a
//! module the table does not know. A floor's test code (`tests.rs` and
//! `testing.rs` files, `#[cfg(test)]` items) names only that floor and the
//! ones below too.
//!
//! Within each folder of `src/`, the same reading (every path of a file's
//! code, `crate::…`, `super::…`, `self::…` and a child's `x::…`) gives
//! which file names which; the test fails on a circle among them, a file
//! that names a file that names it back, directly or through others, and
//! says the circle's files and where each names the next.

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

/// The test code of a file: a `tests.rs` or `testing.rs` whole, else its
/// `#[cfg(test)]` items (comments dropped).
fn test_code(text: &str, path: &Path) -> String {
    let whole = path
        .file_name()
        .is_some_and(|n| n == "tests.rs" || n == "testing.rs");
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if whole {
            if !t.starts_with("//") {
                out.push_str(line.split(" //").next().unwrap_or(""));
                out.push('\n');
            }
            continue;
        }
        if t.starts_with("#[cfg(test)]") {
            let next = lines.next().unwrap_or("");
            out.push_str(next);
            out.push('\n');
            if next.trim_end().ends_with('{') {
                for l in lines.by_ref() {
                    if !l.trim_start().starts_with("//") {
                        out.push_str(l.split(" //").next().unwrap_or(""));
                        out.push('\n');
                    }
                    if l.starts_with('}') {
                        break;
                    }
                }
            }
        }
    }
    out
}

#[test]
fn tests_name_only_their_floor_and_the_ones_below() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for file in &files {
        let Some(own) = module_of(&src, file).and_then(|m| floor(&m)) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let up: Vec<String> = named(&test_code(&text, file))
            .into_iter()
            .filter(|other| floor(other).is_some_and(|f| f > own))
            .collect();
        if !up.is_empty() {
            let rel = file.strip_prefix(root).unwrap().display();
            wrong.push(format!(
                "{rel}: test code names `crate::{}`, above its floor",
                up.join("`, `crate::")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "test code that reaches up (a test that needs the runner, a sink or \
         the diagnostics belongs in tests/ or on the floor that has them):\n{}",
        wrong.join("\n")
    );
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
    // The test code alone: the test block of a file, a tests.rs whole.
    let tests = named(&test_code(text, Path::new("src/decode/x.rs")));
    assert_eq!(tests, ["run"].map(String::from).into());
    let whole = named(&test_code(text, Path::new("src/decode/tests.rs")));
    assert_eq!(whole, ["event", "render", "run"].map(String::from).into());
}

/// The folders whose module file (`mod.rs`, or `x.rs` beside `x/`) holds
/// items its children use (`super::Sink`) and also names them (`pub use
/// child::…`, `child::f()`): a circle through the module file. There the
/// module file is left out, and the circles looked for are those among its
/// children. Everywhere else, `decode/` among them, the module file is a
/// file like the others. A folder leaves the list once its shared items
/// have a file of their own (a test says when it has).
const MODULE_FILE_SHARED: &[&str] = &[
    "cli",
    "decode/claude",
    "decode/codex_rollout",
    "decode/droid",
    "decode/transcript",
    "filter/grep",
    "index",
    "input/library",
    "json",
    "render",
    "render/pretty",
    "render/status",
    "run",
    "session",
];

/// A file of the crate.
struct File {
    /// Its path from the repository's root (`src/render/chart.rs`).
    path: PathBuf,
    /// Its module from the crate's root (`["render", "chart"]`).
    module: Vec<String>,
    /// The paths its code names, each from the crate's root.
    names: Vec<Vec<String>>,
}

/// The library crate's files, and which file each module is.
struct Crate {
    files: Vec<File>,
    modules: BTreeMap<Vec<String>, PathBuf>,
}

/// Which files of a folder each one names, and in which files of the folder
/// (a file `x.rs` stands for the files of `x/` too): `from → to → where`.
type Arrows = BTreeMap<String, BTreeMap<String, BTreeSet<PathBuf>>>;

/// The module of a file under `src/`: `render/summary.rs` is
/// `render::summary`, `render/mod.rs` (or `render.rs`) `render`, `lib.rs`
/// the root (no name).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut module: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_str().unwrap().to_string())
        .collect();
    if module.last().is_some_and(|l| l == "mod") || module == ["lib"] {
        module.pop();
    }
    module
}

/// `code` without the paths of visibilities (`pub(in crate::decode)`
/// names no file).
fn without_visibilities(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("pub(in ") {
        out.push_str(&rest[..at + 3]);
        rest = &rest[at..];
        rest = &rest[rest.find(')').map_or(rest.len(), |i| i + 1)..];
    }
    out.push_str(rest);
    out
}

/// The items of a group (`a, b::{c, d}` of `{a, b::{c, d}}`), `s` starting
/// after its `{`.
fn group_items(s: &str) -> Vec<&str> {
    let (mut depth, mut from, mut items) = (0, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&s[from..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&s[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.retain(|i| !i.trim().is_empty());
    items
}

/// The paths `prefix` goes on to at the start of `s` (`a::b`, `{a, b::c}`,
/// `super::a`), each pushed to `out`: a `self` in a group is the group's
/// own module, a `*` too.
fn tree(s: &str, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut s = s.trim_start();
    loop {
        if let Some(group) = s.strip_prefix('{') {
            for item in group_items(group) {
                tree(item, prefix.clone(), out);
            }
            return;
        }
        let name: String = s
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        match name.as_str() {
            "" => break,
            "super" => drop(prefix.pop()),
            "self" => {}
            _ => prefix.push(name.clone()),
        }
        match s[name.len()..].trim_start().strip_prefix("::") {
            Some(rest) => s = rest.trim_start(),
            None => break,
        }
    }
    out.push(prefix);
}

/// The paths `code` (of the module `at`, whose child modules are
/// `children`) names, from the crate's root: `crate::a::b`, `super::a`
/// (from `at`'s parent), `self::a`, `x::a` for a child `x`; a group
/// (`super::{a, b::{c, d}}`) gives a path per item.
fn paths_named(code: &str, at: &[String], children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let code = without_visibilities(code);
    let mut out = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut start = None;
    for (i, c) in code.char_indices().chain([(code.len(), ' ')]) {
        match (ident(c), start) {
            (true, None) => start = Some(i),
            (false, Some(from)) => {
                start = None;
                let after_colon = code[..from].ends_with(':');
                let Some(rest) = code[i..].strip_prefix("::") else {
                    continue;
                };
                let word = &code[from..i];
                let base = match word {
                    _ if after_colon => continue,
                    "crate" => Vec::new(),
                    "super" => at[..at.len().saturating_sub(1)].to_vec(),
                    "self" => at.to_vec(),
                    w if children.contains(w) => [at, &[w.to_string()]].concat(),
                    _ => continue,
                };
                tree(rest, base, &mut out);
            }
            _ => {}
        }
    }
    out
}

impl Crate {
    /// Every file of the library under `src/` (`main.rs`, the binary, is a
    /// crate of its own), with what its code names.
    fn read(root: &Path) -> Crate {
        let src = root.join("src");
        let mut paths = Vec::new();
        sources(&src, &mut paths);
        paths.retain(|p| *p != src.join("main.rs"));
        paths.sort();
        let modules: BTreeMap<Vec<String>, PathBuf> = paths
            .iter()
            .map(|p| (module_path(&src, p), p.strip_prefix(root).unwrap().into()))
            .collect();
        let files = paths
            .iter()
            .map(|path| {
                let module = module_path(&src, path);
                let children: BTreeSet<String> = (modules.keys())
                    .filter(|m| m.len() == module.len() + 1 && m.starts_with(&module))
                    .map(|m| m[module.len()].clone())
                    .collect();
                let text = std::fs::read_to_string(path).unwrap();
                File {
                    path: path.strip_prefix(root).unwrap().into(),
                    names: paths_named(&code(&text, path), &module, &children),
                    module,
                }
            })
            .collect();
        Crate { files, modules }
    }

    /// The modules that are folders (the root among them).
    fn folders(&self) -> Vec<Vec<String>> {
        (self.modules.keys())
            .filter(|m| {
                self.modules
                    .keys()
                    .any(|c| c.len() > m.len() && c.starts_with(m))
            })
            .cloned()
            .collect()
    }

    /// The name of the module file of the folder `folder` (`mod.rs`,
    /// `lib.rs`, `cli.rs`).
    fn module_file(&self, folder: &[String]) -> String {
        let file = self.modules[folder].file_name().unwrap();
        file.to_str().unwrap().to_string()
    }

    /// The file of the folder `folder` that `path` (a module, or an item of
    /// one) is in: `x.rs`, `x/` (a folder with a `mod.rs`), or the folder's
    /// module file for its own items; `None` outside the folder.
    fn node(&self, folder: &[String], path: &[String]) -> Option<String> {
        if !path.starts_with(folder) {
            return None;
        }
        let Some(child) = path.get(folder.len()) else {
            return Some(self.module_file(folder));
        };
        let module = [folder, std::slice::from_ref(child)].concat();
        Some(match self.modules.get(&module) {
            Some(file) if file.ends_with("mod.rs") => format!("{child}/"),
            Some(_) => format!("{child}.rs"),
            // An item of the module file (`super::Sink`).
            None => self.module_file(folder),
        })
    }

    /// Which file of the folder `folder` names which, and where.
    fn arrows(&self, folder: &[String]) -> Arrows {
        let mut arrows = Arrows::new();
        for f in &self.files {
            let Some(from) = self.node(folder, &f.module) else {
                continue;
            };
            let to = arrows.entry(from.clone()).or_default();
            for name in &f.names {
                if let Some(n) = self.node(folder, name)
                    && n != from
                {
                    to.entry(n).or_default().insert(f.path.clone());
                }
            }
        }
        arrows
    }

    /// The arrows of `folder` a circle is looked for in: its module file
    /// left out where [`MODULE_FILE_SHARED`] says.
    fn checked_arrows(&self, folder: &[String]) -> Arrows {
        let mut arrows = self.arrows(folder);
        if MODULE_FILE_SHARED.contains(&folder.join("/").as_str()) {
            let module_file = self.module_file(folder);
            arrows.remove(&module_file);
            for to in arrows.values_mut() {
                to.remove(&module_file);
            }
        }
        arrows
    }
}

/// Depth-first: a file met again while on the path closes a circle.
fn visit<'a>(
    n: &'a str,
    arrows: &'a Arrows,
    path: &mut Vec<&'a str>,
    done: &mut BTreeSet<&'a str>,
    circles: &mut Vec<Vec<&'a str>>,
) {
    if let Some(at) = path.iter().position(|p| *p == n) {
        circles.push([&path[at..], &[n]].concat());
        return;
    }
    if !done.insert(n) {
        return;
    }
    path.push(n);
    for m in arrows.get(n).into_iter().flat_map(BTreeMap::keys) {
        visit(m, arrows, path, done, circles);
    }
    path.pop();
}

/// Circles among `arrows`' files, each from its first file back to it: at
/// least one wherever there is any (each arrow back of a depth-first walk).
fn circles(arrows: &Arrows) -> Vec<Vec<&str>> {
    let mut circles = Vec::new();
    let mut done = BTreeSet::new();
    for n in arrows.keys() {
        visit(n, arrows, &mut Vec::new(), &mut done, &mut circles);
    }
    circles
}

/// A circle of `folder`'s files as the test says it: its files in order,
/// then the file (of each one standing for a folder) that names the next.
fn describe(folder: &str, circle: &[&str], arrows: &Arrows) -> String {
    let mut out = format!("src/{folder}: {}", circle.join(" → "));
    for pair in circle.windows(2) {
        for file in &arrows[pair[0]][pair[1]] {
            out.push_str(&format!("\n    {} names {}", file.display(), pair[1]));
        }
    }
    out
}

/// `folder` as the test and [`MODULE_FILE_SHARED`] write it: `render/pretty`
/// (empty for the root).
fn folder_name(folder: &[String]) -> String {
    folder.join("/")
}

#[test]
fn no_file_names_a_file_that_names_it_back() {
    let krate = Crate::read(Path::new(env!("CARGO_MANIFEST_DIR")));
    let at = |path: &str| -> Vec<String> { path.split('/').map(String::from).collect() };
    // The reading sees the arrows it should.
    let decode = krate.arrows(&at("decode"));
    assert!(decode["registry.rs"].contains_key("qwen.rs"), "{decode:?}");
    assert!(decode["qwen.rs"].contains_key("producer.rs"), "{decode:?}");
    assert!(decode["mod.rs"].contains_key("registry.rs"), "{decode:?}");
    let render = krate.arrows(&at("render"));
    assert!(render["html.rs"].contains_key("report.rs"), "{render:?}");
    assert!(render["pretty.rs"].contains_key("mod.rs"), "{render:?}");
    let folders = krate.folders();
    assert!(
        folders.len() > 40 && folders.contains(&Vec::new()),
        "{folders:?}"
    );
    let mut found = Vec::new();
    for folder in &folders {
        let arrows = krate.checked_arrows(folder);
        for circle in circles(&arrows) {
            found.push(describe(&folder_name(folder), &circle, &arrows));
        }
    }
    assert!(
        found.is_empty(),
        "circles of files (each names the next; the first is named back):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_folders_listed_share_their_module_file() {
    let krate = Crate::read(Path::new(env!("CARGO_MANIFEST_DIR")));
    let folders = krate.folders();
    for name in MODULE_FILE_SHARED {
        let folder = folders
            .iter()
            .find(|f| folder_name(f) == *name)
            .unwrap_or_else(|| panic!("MODULE_FILE_SHARED lists {name}, not a folder of src/"));
        assert!(
            !circles(&krate.arrows(folder)).is_empty(),
            "src/{name}'s module file closes no circle now: take {name} off MODULE_FILE_SHARED"
        );
    }
}

#[test]
fn the_checker_reads_every_form_of_path() {
    let text = "use super::summary::{self, Align, Table};\n\
                use super::{diff::Stat, fmt_duration};\n\
                use crate::render::theme::Theme;\n\
                pub(in crate::decode) struct X;\n\
                pub use end::{End, Held as Kept};\n\
                fn f() { super::super::event::x(); self::g(); other::h(); }\n\
                // super::markdown in a comment does not count\n";
    let at = ["render", "pretty"].map(String::from);
    let children = ["end".to_string()].into();
    let found: BTreeSet<String> = paths_named(
        &code(text, Path::new("src/render/pretty.rs")),
        &at,
        &children,
    )
    .iter()
    .map(|p| p.join("::"))
    .collect();
    let want: BTreeSet<String> = [
        "render::summary",
        "render::summary::Align",
        "render::summary::Table",
        "render::diff::Stat",
        "render::fmt_duration",
        "render::theme::Theme",
        "render::pretty::end::End",
        "render::pretty::end::Held",
        "event::x",
        "render::pretty::g",
    ]
    .map(String::from)
    .into();
    assert_eq!(found, want);
}

#[test]
fn the_checker_finds_a_circle_and_says_where() {
    let arrow = |from: &str, to: &str| {
        let files = BTreeSet::from([PathBuf::from(format!("src/x/{from}"))]);
        (from.to_string(), BTreeMap::from([(to.to_string(), files)]))
    };
    let arrows: Arrows = [
        arrow("a.rs", "b.rs"),
        arrow("b.rs", "c/"),
        arrow("c/", "a.rs"),
        arrow("d.rs", "a.rs"),
    ]
    .into();
    let found = circles(&arrows);
    assert_eq!(found, [["a.rs", "b.rs", "c/", "a.rs"]]);
    let said = describe("x", &found[0], &arrows);
    assert!(
        said.starts_with("src/x: a.rs → b.rs → c/ → a.rs\n"),
        "{said}"
    );
    assert!(said.contains("src/x/b.rs names c/"), "{said}");
    // Without the arrow back, no circle.
    let mut open = arrows.clone();
    open.remove("c/");
    assert!(circles(&open).is_empty());
}
