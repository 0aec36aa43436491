//! No import circle inside a crate (issue 37).
//!
//! The check reads the source of every crate under `libs/` and `services/` (no database,
//! no compiler) and fails naming the circle when modules of a crate depend on each other
//! in a circle.
//!
//! What it reads:
//!
//! - **The module tree** comes from the files: the crate root (`src/lib.rs`, and
//!   `src/main.rs` as a crate of its own), `mod foo;` found as `foo.rs` or `foo/mod.rs`
//!   (beside `lib.rs`, `main.rs` and `mod.rs`, in the folder named after any other file),
//!   `foo/bar.rs` below it. An inline `mod x { ... }` block counts as part of its file:
//!   what it names, its file names.
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
//! nothing under `battle` names anything under `game`.

mod circles;
mod modules;
mod tokens;

use std::fs;
use std::path::{Path, PathBuf};

use circles::circles;
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

#[test]
fn the_battle_engine_names_nothing_in_the_game() {
    let rules = read_crate(
        &workspace_root().join("libs/rules"),
        "lib.rs",
        "libs/rules".into(),
    );
    let into_game: Vec<String> = rules
        .dependencies
        .iter()
        .filter(|d| d.from.first().is_some_and(|m| m == "battle"))
        .filter(|d| d.to.first().is_some_and(|m| m == "game"))
        .map(|d| format!("{}:{} names {}", d.file, d.line, d.path))
        .collect();
    assert!(
        into_game.is_empty(),
        "libs/rules: the battle engine must build without the game, but\n{}",
        into_game.join("\n")
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
