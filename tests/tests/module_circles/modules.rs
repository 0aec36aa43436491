//! A crate's module tree read from its files, and the paths each file names into it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

use crate::tokens::{tokenise, Token};

/// A module's place in its crate: the names from the root down (`["game", "combat"]`);
/// the root is empty.
pub type ModulePath = Vec<String>;

/// One crate root's modules and what their files name.
#[derive(Debug)]
pub struct Crate {
    /// How messages name the crate: its folder, and the root file when it is not `lib.rs`.
    pub label: String,
    /// Every file module (not test-only), with its file relative to `src/`.
    pub modules: BTreeMap<ModulePath, String>,
    /// Every path a file names into another module of the crate, in file and line order.
    pub dependencies: Vec<Dependency>,
    /// The crate's `src/` folder, which each file's path is relative to.
    pub src: PathBuf,
    /// Every file module (not test-only), with its tokens.
    pub files: Vec<ReadFile>,
}

/// A file naming a path into a module.
#[derive(Debug, Clone)]
pub struct Dependency {
    /// The file's own module.
    pub from: ModulePath,
    /// The file, relative to `src/`, and the line of the path.
    pub file: String,
    pub line: usize,
    /// The path as written, use groups spelled out (`crate::aap::hwv::vulnerable`).
    pub path: String,
    /// The deepest file module the path reaches.
    pub to: ModulePath,
}

/// One file as read: its module, its path relative to `src/`, its tokens with the
/// test-only parts left out.
#[derive(Debug)]
pub struct ReadFile {
    pub module: ModulePath,
    pub relative: String,
    pub tokens: Vec<(Token, usize)>,
}

/// Reads the crate whose root file is `src/<root>` under `crate_dir`, labelled `label`.
pub fn read_crate(crate_dir: &Path, root: &str, label: String) -> Crate {
    let src = crate_dir.join("src");
    // Every module path a path may stop at (inline modules too), mapped to the file module
    // it belongs to.
    let mut known: BTreeMap<ModulePath, ModulePath> = BTreeMap::new();
    let mut modules = BTreeMap::new();
    let mut files = Vec::new();
    let mut queue = VecDeque::from([(src.join(root), ModulePath::new())]);
    while let Some((file, module)) = queue.pop_front() {
        let source =
            fs::read_to_string(&file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let relative = file
            .strip_prefix(&src)
            .expect("module files lie under src/")
            .to_string_lossy()
            .into_owned();
        let outline = outline(tokenise(&source));
        known.insert(module.clone(), module.clone());
        for inline in &outline.inline_modules {
            known.insert(joined(&module, inline), module.clone());
        }
        let dir = children_dir(&file);
        for declared in &outline.declared_files {
            let mut dir = dir.clone();
            for name in &declared[..declared.len() - 1] {
                dir.push(name);
            }
            let name = declared.last().expect("a declared module has a name");
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(name).join("mod.rs");
            let child_file = if flat.exists() {
                flat
            } else if nested.exists() {
                nested
            } else {
                panic!(
                    "{relative} declares `mod {name};` but neither {} nor {} exists",
                    flat.display(),
                    nested.display()
                )
            };
            queue.push_back((child_file, joined(&module, declared)));
        }
        modules.insert(module.clone(), relative.clone());
        files.push(ReadFile {
            module,
            relative,
            tokens: outline.tokens,
        });
    }
    let mut dependencies = Vec::new();
    for file in &files {
        dependencies.extend(named_paths(file, &known));
    }
    Crate {
        label,
        modules,
        dependencies,
        src,
        files,
    }
}

/// Every production file of the crates whose label starts with `group` (`libs/`,
/// `services/`, or `""` for all), each once (a crate's `main.rs` may reach files its
/// `lib.rs` reaches too): its path from `root`, and its tokens.
pub fn production_files<'a>(
    root: &Path,
    crates: &'a [Crate],
    group: &str,
) -> Vec<(String, &'a [(Token, usize)])> {
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for krate in crates.iter().filter(|k| k.label.starts_with(group)) {
        let src = krate.src.strip_prefix(root).unwrap_or(&krate.src);
        for file in &krate.files {
            let path = src
                .join(&file.relative)
                .to_string_lossy()
                .replace('\\', "/");
            if seen.insert(path.clone()) {
                found.push((path, file.tokens.as_slice()));
            }
        }
    }
    found
}

fn joined(base: &[String], rest: &[String]) -> ModulePath {
    base.iter().chain(rest).cloned().collect()
}

/// Where a file's `mod x;` looks for `x.rs`: beside `lib.rs`, `main.rs` and `mod.rs`, in
/// the folder named after any other file.
fn children_dir(file: &Path) -> PathBuf {
    let parent = file
        .parent()
        .expect("a file lies in a folder")
        .to_path_buf();
    match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs" | "main.rs" | "mod.rs") => parent,
        _ => parent.join(file.file_stem().expect("a file has a name")),
    }
}

/// A file's shape: the modules it declares in other files and inline (each as its path
/// below the file's module), and its tokens without the test-only items.
struct Outline {
    declared_files: Vec<ModulePath>,
    inline_modules: Vec<ModulePath>,
    tokens: Vec<(Token, usize)>,
}

/// Item keywords an attribute may make test-only as a whole; anything else an attribute
/// stands on (a field, a statement) is kept, which can only add dependencies.
const ITEMS: &[&str] = &[
    "mod", "use", "fn", "impl", "struct", "enum", "const", "static", "trait", "type",
];

fn outline(tokens: Vec<(Token, usize)>) -> Outline {
    let mut declared_files = Vec::new();
    let mut inline_modules = Vec::new();
    let mut kept = Vec::new();
    // Open braces: `Some(name)` for an inline module's.
    let mut braces: Vec<Option<String>> = Vec::new();
    // Where the pending attributes' tokens start in `kept`, and whether one is
    // `#[cfg(test)]`.
    let mut attributes: Option<usize> = None;
    let mut test_only = false;
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i].0;
        if let Some(end) = attribute_end(&tokens, i) {
            if is_inner(&tokens, i) && is_cfg_test(&tokens[i..=end]) && braces.is_empty() {
                // `#![cfg(test)]`: the whole file is test-only.
                kept.clear();
                return Outline {
                    declared_files: Vec::new(),
                    inline_modules: Vec::new(),
                    tokens: kept,
                };
            }
            attributes.get_or_insert(kept.len());
            test_only |= is_cfg_test(&tokens[i..=end]);
            kept.extend_from_slice(&tokens[i..=end]);
            i = end + 1;
            continue;
        }
        let keyword = item_keyword(&tokens, i);
        let module_name = match (keyword.as_deref(), tokens.get(i + 1)) {
            (Some("mod"), _) => module_declared(&tokens, i),
            _ => None,
        };
        let leave_out = (test_only && keyword.as_deref().is_some_and(|k| ITEMS.contains(&k)))
            || module_name
                .as_ref()
                .is_some_and(|(name, _)| name == "tests");
        if let Some(start) = attributes.take() {
            if leave_out {
                kept.truncate(start);
                i = item_end(&tokens, i) + 1;
                test_only = false;
                continue;
            }
        }
        test_only = false;
        if leave_out {
            i = item_end(&tokens, i) + 1;
            continue;
        }
        if let Some((name, at)) = module_name {
            let inside: Vec<String> = braces.iter().flatten().cloned().collect();
            let path = joined(&inside, std::slice::from_ref(&name));
            if tokens[at + 2].0 == Token::Punct(';') {
                declared_files.push(path);
                i = at + 3;
                continue;
            }
            inline_modules.push(path);
            kept.extend_from_slice(&tokens[i..at + 3]);
            braces.push(Some(name));
            i = at + 3;
            continue;
        }
        match token {
            Token::Punct('{') => braces.push(None),
            Token::Punct('}') => {
                braces.pop();
            }
            _ => {}
        }
        kept.push(tokens[i].clone());
        i += 1;
    }
    Outline {
        declared_files,
        inline_modules,
        tokens: kept,
    }
}

/// The index of the `]` closing an attribute (`#[...]` or `#![...]`) starting at `i`.
fn attribute_end(tokens: &[(Token, usize)], i: usize) -> Option<usize> {
    if tokens[i].0 != Token::Punct('#') {
        return None;
    }
    let open = if is_inner(tokens, i) { i + 2 } else { i + 1 };
    if tokens.get(open).map(|t| &t.0) != Some(&Token::Punct('[')) {
        return None;
    }
    Some(closing(tokens, open))
}

fn is_inner(tokens: &[(Token, usize)], i: usize) -> bool {
    tokens.get(i + 1).map(|t| &t.0) == Some(&Token::Punct('!'))
}

/// Whether an attribute is `cfg(...)` naming `test` (`#[cfg(test)]`,
/// `#[cfg(all(test, feature = "x"))]`); nothing in the workspace writes `not(test)`.
fn is_cfg_test(attribute: &[(Token, usize)]) -> bool {
    let words: Vec<&str> = attribute
        .iter()
        .filter_map(|(t, _)| match t {
            Token::Ident(w) => Some(w.as_str()),
            _ => None,
        })
        .collect();
    words.first() == Some(&"cfg") && words.contains(&"test") && !words.contains(&"not")
}

/// The item keyword at `i` once visibility and qualifiers are passed: `pub(crate) unsafe
/// fn` gives `fn`.
fn item_keyword(tokens: &[(Token, usize)], mut i: usize) -> Option<String> {
    loop {
        match &tokens.get(i)?.0 {
            Token::Ident(w) if w == "pub" => {
                i += 1;
                if tokens.get(i).map(|t| &t.0) == Some(&Token::Punct('(')) {
                    i = closing(tokens, i) + 1;
                }
            }
            Token::Ident(w) if matches!(w.as_str(), "unsafe" | "async" | "extern") => i += 1,
            Token::Ident(w) => return Some(w.clone()),
            _ => return None,
        }
    }
}

/// For `[pub(...)] mod name ;` or `... mod name {` starting at `i`: the name and the
/// index of `mod`.
fn module_declared(tokens: &[(Token, usize)], i: usize) -> Option<(String, usize)> {
    let at = (i..tokens.len()).find(|&j| tokens[j].0 == Token::Ident("mod".into()))?;
    match (tokens.get(at + 1), tokens.get(at + 2)) {
        (Some((Token::Ident(name), _)), Some((Token::Punct(';' | '{'), _))) => {
            Some((name.clone(), at))
        }
        _ => None,
    }
}

/// The index of the bracket closing the one opened at `open`.
pub fn closing(tokens: &[(Token, usize)], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, (token, _)) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    tokens.len() - 1
}

/// The index of an item's last token: its `;`, or the `}` closing its body.
fn item_end(tokens: &[(Token, usize)], start: usize) -> usize {
    let mut j = start;
    while j < tokens.len() {
        match tokens[j].0 {
            Token::Punct(';') => return j,
            Token::Punct('{') => return closing(tokens, j),
            Token::Punct('(' | '[') => j = closing(tokens, j) + 1,
            _ => j += 1,
        }
    }
    tokens.len() - 1
}

/// The paths a file names into its crate: every path starting `crate::`, `$crate::`,
/// `self::` or `super::` (use groups spelled out), resolved to the deepest module known.
fn named_paths(file: &ReadFile, known: &BTreeMap<ModulePath, ModulePath>) -> Vec<Dependency> {
    let tokens = &file.tokens;
    let mut found = Vec::new();
    let mut braces: Vec<Option<String>> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].0 {
            Token::Ident(w) if w == "mod" => {
                if let (Some((Token::Ident(name), _)), Some((Token::Punct('{'), _))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    braces.push(Some(name.clone()));
                    i += 3;
                    continue;
                }
            }
            Token::Punct('{') => braces.push(None),
            Token::Punct('}') => {
                braces.pop();
            }
            Token::Ident(w)
                if matches!(w.as_str(), "crate" | "self" | "super")
                    && tokens.get(i + 1).map(|t| &t.0) == Some(&Token::PathSep)
                    && (i == 0 || tokens[i - 1].0 != Token::PathSep) =>
            {
                let here: ModulePath = file
                    .module
                    .iter()
                    .cloned()
                    .chain(braces.iter().flatten().cloned())
                    .collect();
                let (paths, end) = use_tree(tokens, i, Vec::new());
                for mut path in paths {
                    // `use crate::a::{self}` names `crate::a`.
                    if path.len() > 1 && path.last().is_some_and(|s| s == "self") {
                        path.pop();
                    }
                    if let Some(to) = resolve(&path, &here, known) {
                        found.push(Dependency {
                            from: file.module.clone(),
                            file: file.relative.clone(),
                            line: tokens[i].1,
                            path: path.join("::"),
                            to,
                        });
                    }
                }
                i = end.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The paths of a use tree (or a plain path) starting at `i` after `prefix`, and the index
/// after it: `crate::a::{b, c::{d, self}}` gives `crate::a::b`, `crate::a::c::d`,
/// `crate::a::c::self`.
fn use_tree(
    tokens: &[(Token, usize)],
    mut i: usize,
    prefix: Vec<String>,
) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    loop {
        match tokens.get(i).map(|t| &t.0) {
            Some(Token::Ident(segment)) => {
                path.push(segment.clone());
                i += 1;
                if tokens.get(i).map(|t| &t.0) == Some(&Token::PathSep) {
                    i += 1;
                    continue;
                }
                return (vec![path], i);
            }
            Some(Token::Punct('{')) => {
                let close = closing(tokens, i);
                let mut paths = Vec::new();
                i += 1;
                while i < close {
                    let (inner, end) = use_tree(tokens, i, path.clone());
                    paths.extend(inner);
                    // Past `as name` and up to the next element.
                    i = end;
                    while i < close && tokens[i].0 != Token::Punct(',') {
                        i = match tokens[i].0 {
                            Token::Punct('{' | '(' | '[') => closing(tokens, i) + 1,
                            _ => i + 1,
                        };
                    }
                    i += 1;
                }
                return (paths, close + 1);
            }
            // `*`, `<` (a generic argument) or anything else ends the path.
            _ => return (vec![path], i),
        }
    }
}

/// The deepest file module a path reaches, from the module `here` it is written in;
/// `None` for a path that leaves the crate (`super` above the root).
fn resolve(
    path: &[String],
    here: &[String],
    known: &BTreeMap<ModulePath, ModulePath>,
) -> Option<ModulePath> {
    let mut at: ModulePath = match path.first()?.as_str() {
        "crate" => Vec::new(),
        _ => here.to_vec(),
    };
    let mut rest = path;
    if rest[0] == "crate" {
        rest = &rest[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "self" => {}
            "super" => {
                at.pop()?;
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    for segment in rest {
        if segment == "self" {
            continue;
        }
        at.push(segment.clone());
        if !known.contains_key(&at) {
            at.pop();
            break;
        }
    }
    known.get(&at).cloned()
}
