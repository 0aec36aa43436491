//! No import circle inside a crate (issue 37), and no production function over 150 lines
//! (issue 53).
//!
//! The checks read the source of every crate under `libs/` and `services/` (no database,
//! no compiler). One fails naming the circle when modules of a crate depend on each other
//! in a circle; the other fails naming each function longer than a reader can hold, but
//! for the few tables of data `lengths::DATA_TABLES` names with their reasons. A third
//! (`refusals`) fails naming each library function that refuses with bare text, and each
//! 403 a service writes by hand (issue 53).
//!
//! What it reads:
//!
//! - **The module tree** comes from the files: the crate root (`src/lib.rs`, and
//!   `src/main.rs` as a crate of its own), `mod foo;` found as `foo.rs` or `foo/mod.rs`
//!   (beside `lib.rs`, `main.rs` and `mod.rs`, in the folder named after any other file),
//!   `foo/bar.rs` below it, a `mod foo;` written inside a macro's invocation too (the
//!   API's route modules, in `resources! { pub mod games; ... }`). An inline
//!   `mod x { ... }` block counts as part of its file: what it names, its file names.
//! - **Test-only code is left out**: an item under `#[cfg(test)]` (a module, a `use`, a
//!   function, ...), the files reached only through such a module, and any module named
//!   `tests`.
//! - **A file depends on a module** when it names a path into it: `use crate::a::b...`,
//!   `crate::a::b` in code, `$crate::`, `super::x`, `self::x`, and each path of a `use`
//!   group (`use crate::a::{b, c::d}` names `crate::a::b` and `crate::a::c::d`). A path
//!   resolves to the deepest module that exists: the item path `crate::game::RuleViolation`
//!   resolves to the module `game`. Comments, string literals (raw ones too) and char
//!   literals are stripped before scanning, so a path in a doc comment or a message does
//!   not count.
//! - **The rule**: at every level of the tree, for each module M with child modules
//!   C1..Cn, draw Ci -> Cj when any file in Ci's subtree depends on anything in Cj's
//!   subtree. These sibling graphs must be acyclic. A child naming its parent's own items,
//!   or a parent naming its children, draws no arrow.
//!
//! A failure names the crate and one circle per tangle as a path, with one file, line and
//! path behind each arrow, then the tangle's other arrows:
//! `libs/rules: battle -> aap -> battle (battle/fight.rs:12 names crate::aap::hwv, ...)`.
//!
//! Besides the rule, the rules crate's battle engine must build without the game:
//! nothing under `battle` names anything under `game`; and in the API, no file under
//! `routes` names anything under `pages`, nor a page a route: what both need is a read
//! under `reads`, below them both.

mod circles;
mod lengths;
mod modules;
mod refusals;
mod tokens;

use std::fs;
use std::path::{Path, PathBuf};

use circles::circles;
use lengths::{Function, DATA_TABLES, MOST_LINES};
use modules::{read_crate, Crate};

/// The workspace's root folder: this crate lives in `tests/`.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lies in the workspace")
        .to_path_buf()
}

/// Every crate root under `libs/` and `services/` of `root`: a crate's `lib.rs`, and its
/// `main.rs` as a crate of its own.
fn crates(root: &Path) -> Vec<Crate> {
    let mut found = Vec::new();
    for group in ["libs", "services"] {
        let Ok(entries) = fs::read_dir(root.join(group)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.map(|e| e.expect("a folder entry").path()).collect();
        dirs.sort();
        for dir in dirs {
            if !dir.join("Cargo.toml").exists() {
                continue;
            }
            let name = format!("{group}/{}", dir.file_name().unwrap().to_string_lossy());
            for (file, label) in [
                ("lib.rs", name.clone()),
                ("main.rs", format!("{name} (main.rs)")),
            ] {
                if dir.join("src").join(file).exists() {
                    found.push(read_crate(&dir, file, label));
                }
            }
        }
    }
    found
}

fn all_circles(root: &Path) -> Vec<String> {
    crates(root).iter().flat_map(circles).collect()
}

#[test]
fn no_crate_has_modules_that_depend_on_each_other_in_a_circle() {
    let found = all_circles(&workspace_root());
    assert!(
        found.is_empty(),
        "modules depend on each other in a circle; move what both need to the lower one:\n{}",
        found.join("\n")
    );
}

/// The library crate in the workspace's folder `path` (`libs/rules`).
fn library(path: &str) -> Crate {
    read_crate(&workspace_root().join(path), "lib.rs", path.into())
}

/// Where a file under the crate's top-level module `from` names anything under its
/// top-level module `to`: `file:line names path`, in file and line order.
fn crossings(krate: &Crate, from: &str, to: &str) -> Vec<String> {
    krate
        .dependencies
        .iter()
        .filter(|d| d.from.first().is_some_and(|m| m == from))
        .filter(|d| d.to.first().is_some_and(|m| m == to))
        .map(|d| format!("{}:{} names {}", d.file, d.line, d.path))
        .collect()
}

#[test]
fn the_battle_engine_names_nothing_in_the_game() {
    let into_game = crossings(&library("libs/rules"), "battle", "game");
    assert!(
        into_game.is_empty(),
        "libs/rules: the battle engine must build without the game, but\n{}",
        into_game.join("\n")
    );
}

#[test]
fn no_route_of_the_api_imports_a_page_and_no_page_imports_a_route() {
    let api = library("services/api");
    let mut found = crossings(&api, "routes", "pages");
    found.extend(crossings(&api, "pages", "routes"));
    assert!(
        found.is_empty(),
        "services/api: routes and pages share their reads through `crate::reads`, never \
         each other, but\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_reads_every_crate_of_the_workspace() {
    let crates = crates(&workspace_root());
    let labels: Vec<&str> = crates.iter().map(|c| c.label.as_str()).collect();
    for expected in [
        "libs/rules",
        "libs/events",
        "libs/league",
        "libs/store",
        "services/api",
        "services/warlog",
    ] {
        assert!(
            labels.contains(&expected),
            "{expected} was not read: {labels:?}"
        );
    }
    let api = crates.iter().find(|c| c.label == "services/api").unwrap();
    assert!(
        api.modules
            .contains_key(&vec!["routes".to_string(), "games".to_string()]),
        "the API's route modules, declared inside `resources!`, are read"
    );
    let rules = crates.iter().find(|c| c.label == "libs/rules").unwrap();
    assert!(rules
        .modules
        .contains_key(&vec!["game".to_string(), "combat".to_string()]));
    assert!(
        !rules
            .modules
            .keys()
            .any(|m| m.iter().any(|n| n == "tests" || n == "oracle")),
        "test-only modules are left out"
    );
    assert!(
        rules
            .dependencies
            .iter()
            .any(|d| d.from == ["battle", "army"] && d.to == ["units"]),
        "the battle engine's use of the units is seen"
    );
}

/// A small crate written to a fresh folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, files: &[(&str, &str)]) -> Scratch {
        let root =
            std::env::temp_dir().join(format!("warlog-circles-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join("libs/tiny/src").join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        fs::write(root.join("libs/tiny/Cargo.toml"), "").unwrap();
        Scratch(root)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_check_finds_a_circle_and_names_it_with_the_file_behind_each_arrow() {
    let tiny = Scratch::new(
        "circle",
        &[
            ("lib.rs", "pub mod a;\npub mod b;\nmod c;\n"),
            ("a.rs", "pub struct A;\nuse crate::b::B;\n"),
            ("b/mod.rs", "pub struct B;\nmod inner;\n"),
            ("b/inner.rs", "pub fn f() -> crate::c::C { todo!() }\n"),
            ("c.rs", "use super::{a::{self, A}};\npub struct C;\n"),
        ],
    );
    let found = all_circles(&tiny.0);
    assert_eq!(
        found,
        ["libs/tiny: a -> b -> c -> a (a.rs:2 names crate::b::B, \
          b/inner.rs:1 names crate::c::C, c.rs:1 names super::a)"]
    );
}

#[test]
fn the_check_finds_a_circle_between_nested_siblings_through_super() {
    let tiny = Scratch::new(
        "nested",
        &[
            ("lib.rs", "mod game;\n"),
            (
                "game/mod.rs",
                "mod combat;\nmod diplomacy;\npub struct State;\n",
            ),
            (
                "game/combat.rs",
                "use super::State;\npub fn fight() { super::diplomacy::war(); }\n",
            ),
            (
                "game/diplomacy.rs",
                "pub fn war() {}\nuse crate::game::combat::fight;\n",
            ),
        ],
    );
    let found = all_circles(&tiny.0);
    assert_eq!(
        found,
        [
            "libs/tiny: game::combat -> game::diplomacy -> game::combat \
          (game/combat.rs:2 names super::diplomacy::war, \
          game/diplomacy.rs:2 names crate::game::combat::fight)"
        ]
    );
}

#[test]
fn a_route_naming_a_page_is_found_though_it_draws_no_circle() {
    let tiny = Scratch::new(
        "floor",
        &[
            ("lib.rs", "mod pages;\nmod reads;\nmod routes;\n"),
            ("pages.rs", "mod game;\n"),
            (
                "pages/game.rs",
                "use crate::reads::load;\npub fn markup() {}\n",
            ),
            ("reads.rs", "pub fn load() {}\n"),
            ("routes/mod.rs", "mod games;\n"),
            (
                "routes/games.rs",
                "use crate::reads::load;\nuse crate::pages::game::markup;\n",
            ),
        ],
    );
    assert!(all_circles(&tiny.0).is_empty());
    let krate = read_crate(&tiny.0.join("libs/tiny"), "lib.rs", "libs/tiny".into());
    assert_eq!(
        crossings(&krate, "routes", "pages"),
        ["routes/games.rs:2 names crate::pages::game::markup"]
    );
    assert!(crossings(&krate, "pages", "routes").is_empty());
}

#[test]
fn test_modules_comments_strings_and_parents_draw_no_arrow() {
    let tiny = Scratch::new(
        "quiet",
        &[
            ("lib.rs", "pub mod a;\npub mod b;\npub struct Root;\n"),
            (
                "a.rs",
                "use crate::b::B;\nuse super::Root;\n#[cfg(test)]\nmod checks;\nmod tests { use crate::b::B; }\n",
            ),
            ("a/checks.rs", "use crate::a::A;\n"),
            (
                "b.rs",
                concat!(
                    "pub struct B;\n",
                    "/// See [`crate::a::A`].\n",
                    "/* crate::a /* nested */ crate::a */\n",
                    "const S: &str = \"crate::a::A\";\n",
                    "const R: &str = r#\"crate::a::A \" still\"#;\n",
                    "const C: char = '\"'; const L: &'static str = \"x\";\n",
                    "#[cfg(test)]\nuse crate::a::A;\n",
                    "#[cfg(test)]\nfn helper() -> crate::a::A { crate::a::A }\n",
                    "#[cfg(test)]\nmod more { use crate::a::A; }\n",
                ),
            ),
        ],
    );
    assert_eq!(all_circles(&tiny.0), Vec::<String>::new());
}

fn all_functions(root: &Path) -> Vec<Function> {
    lengths::functions(root, &crates(root))
}

fn long_functions(root: &Path) -> Vec<String> {
    lengths::too_long(&all_functions(root))
        .iter()
        .map(|f| f.describe())
        .collect()
}

#[test]
fn no_production_function_runs_over_150_lines() {
    let found = long_functions(&workspace_root());
    assert!(
        found.is_empty(),
        "functions over {MOST_LINES} lines; split each into parts named for what they do \
         (a table of data goes in lengths::DATA_TABLES, with why):\n{}",
        found.join("\n")
    );
}

#[test]
fn every_function_allowed_past_150_lines_is_still_there_and_every_data_table_that_long() {
    let functions = all_functions(&workspace_root());
    let found = |file: &str, name: &str| -> Option<usize> {
        functions
            .iter()
            .filter(|f| f.file == file && f.name == name)
            .map(|f| f.lines)
            .max()
    };
    let stale: Vec<String> = DATA_TABLES
        .iter()
        .filter(|(file, name, _)| found(file, name).is_none_or(|lines| lines <= MOST_LINES))
        .map(|(file, name, why)| format!("{file} {name} ({why}): not there, or not that long"))
        .collect();
    assert!(
        stale.is_empty(),
        "allowed past {MOST_LINES} lines, but take them out of lengths::DATA_TABLES:\n{}",
        stale.join("\n")
    );
}

/// A function's lines: `fn name() {`, the body, `}`.
fn function(name: &str, body: &[&str], lines: usize) -> String {
    let filler = lines - 2 - body.len();
    let mut text = format!("pub fn {name}() {{\n");
    for line in body
        .iter()
        .chain(std::iter::repeat_n(&"    let x = 1;", filler))
    {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str("}\n");
    text
}

#[test]
fn the_length_check_names_a_long_function_past_braces_in_literals_comments_and_tests() {
    // Each of these closes the body early if the check mistakes it for a brace.
    let tricky = [
        "    let a = \"}\";",
        "    let b = '}';",
        "    let c = r#\"}\" }\"#;",
        "    let d = b'}';",
        "    // }",
        "    /* } /* } */ } */",
        "    let e: &'static str = \"\\\"}\";",
    ];
    let lib = [
        "mod tests;\n".to_owned(),
        function("long", &tricky, MOST_LINES + 1),
        function("just_fits", &tricky, MOST_LINES),
        "pub trait T {\n    fn declared(&self) -> [u8; 4];\n}\n".to_owned(),
        "pub type F = fn(u8) -> u8;\n".to_owned(),
        "#[cfg(test)]\nmod checks {\n".to_owned(),
        function("long_check", &[], 2 * MOST_LINES),
        "}\n#[cfg(test)]\n".to_owned(),
        function("long_helper", &[], 2 * MOST_LINES),
    ]
    .concat();
    let tests = function("long_test", &[], 2 * MOST_LINES);
    let tiny = Scratch::new(
        "lengths",
        &[("lib.rs", lib.as_str()), ("tests.rs", tests.as_str())],
    );
    assert_eq!(
        long_functions(&tiny.0),
        [format!(
            "libs/tiny/src/lib.rs:2 long {} lines",
            MOST_LINES + 1
        )]
    );
    let names: Vec<String> = all_functions(&tiny.0)
        .into_iter()
        .map(|f| format!("{} {}", f.name, f.lines))
        .collect();
    assert_eq!(names, ["long 151", "just_fits 150"]);
}
