//! Refusals typed once (issue 53): no library function refuses with bare text
//! (`Result<(), String>`), and no service answers 403 by hand (`ErrorCode::Forbidden`
//! outside the error table). A refusal of the libraries is a type with a kind
//! (`warlog_events::refusal`), which the API answers by one conversion (`error::refused`);
//! the few functions in [`ALLOWED`] return bare text because they refuse nothing.
//!
//! The files and their tokens are the circle check's: production code only, without
//! comments, strings and test-only items.

use std::path::Path;

use crate::modules::{production_files, Crate};
use crate::tokens::Token;

/// Functions under `libs/` allowed to return `Result<(), String>`: the file from the
/// workspace's root, the function's name, and why.
pub const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "libs/store/src/discover.rs",
        "stop_cluster",
        "stops a local PostgreSQL: the tool's own error text, not a refusal",
    ),
    (
        "libs/store/src/discover.rs",
        "start_cluster",
        "starts a local PostgreSQL: the tool's own error text, not a refusal",
    ),
    (
        "libs/store/src/discover.rs",
        "start",
        "starts a local PostgreSQL: the tool's own error text, not a refusal",
    ),
    (
        "libs/store/src/discover.rs",
        "stop",
        "stops a local PostgreSQL: the tool's own error text, not a refusal",
    ),
    (
        "libs/store/src/discover.rs",
        "init_cluster",
        "creates a local PostgreSQL: the tool's own error text, not a refusal",
    ),
];

/// The file that holds the error table, the one place a 403 is written.
pub const ERROR_TABLE: &str = "services/api/src/error.rs";

/// A place in the sources: the file from the workspace's root, a line, and a name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    pub file: String,
    pub line: usize,
    pub name: String,
}

impl Found {
    /// `file:line name`, as a failure lists it.
    pub fn describe(&self) -> String {
        format!("{}:{} {}", self.file, self.line, self.name)
    }

    fn allowed(&self) -> bool {
        ALLOWED
            .iter()
            .any(|(file, name, _)| *file == self.file && *name == self.name)
    }
}

/// The functions under `libs/` that return `Result<(), String>`, allowed ones too.
pub fn bare_string_results(root: &Path, crates: &[Crate]) -> Vec<Found> {
    let mut found: Vec<Found> = production_files(root, crates, "libs/")
        .into_iter()
        .flat_map(|(file, tokens)| returning_bare_strings(&file, tokens))
        .collect();
    found.sort();
    found
}

/// Those of [`bare_string_results`] not in [`ALLOWED`].
pub fn refusing_with_strings(found: &[Found]) -> Vec<&Found> {
    found.iter().filter(|f| !f.allowed()).collect()
}

/// Each `ErrorCode::Forbidden` written under `services/` outside [`ERROR_TABLE`].
pub fn forbidden_by_hand(root: &Path, crates: &[Crate]) -> Vec<Found> {
    let mut found = Vec::new();
    for (file, tokens) in production_files(root, crates, "services/") {
        if file == ERROR_TABLE {
            continue;
        }
        for window in tokens.windows(3) {
            if let [(Token::Ident(code), line), (Token::PathSep, _), (Token::Ident(name), _)] =
                window
            {
                if code == "ErrorCode" && name == "Forbidden" {
                    found.push(Found {
                        file: file.clone(),
                        line: *line,
                        name: "ErrorCode::Forbidden".to_owned(),
                    });
                }
            }
        }
    }
    found
}

/// `fn name(...) -> Result<(), String>`, found from the return type back to its function:
/// the `fn` before the parameters the type follows. A closure's type (`Fn() -> ...`) or a
/// function pointer's (`fn(u8) -> ...`) has no name there, and does not count.
fn returning_bare_strings(file: &str, tokens: &[(Token, usize)]) -> Vec<Found> {
    let returns = [
        Token::Punct('-'),
        Token::Punct('>'),
        Token::Ident("Result".to_owned()),
        Token::Punct('<'),
        Token::Punct('('),
        Token::Punct(')'),
        Token::Punct(','),
        Token::Ident("String".to_owned()),
        Token::Punct('>'),
    ];
    let mut found = Vec::new();
    for at in 1..tokens.len() {
        let shape = tokens[at..].iter().map(|(t, _)| t).take(returns.len());
        if !shape.eq(returns.iter()) {
            continue;
        }
        let Some(named) = opening(tokens, at - 1).and_then(|open| name_before(tokens, open)) else {
            continue;
        };
        let before = |back: usize| named.checked_sub(back).map(|i| &tokens[i]);
        if let (Some((Token::Ident(keyword), line)), Some((Token::Ident(name), _))) =
            (before(1), before(0))
        {
            if keyword == "fn" && name != "fn" {
                found.push(Found {
                    file: file.to_owned(),
                    line: *line,
                    name: name.clone(),
                });
            }
        }
    }
    found
}

/// The index of what stands before the parameters opening at `open`, past any generics
/// (`<T: Into<String>>`; the `>` of an arrow, `Fn() -> u8`, closes none).
fn name_before(tokens: &[(Token, usize)], open: usize) -> Option<usize> {
    let mut i = open.checked_sub(1)?;
    if tokens[i].0 != Token::Punct('>') {
        return Some(i);
    }
    let mut depth = 0usize;
    loop {
        match tokens[i].0 {
            Token::Punct('>') if i == 0 || tokens[i - 1].0 != Token::Punct('-') => depth += 1,
            Token::Punct('<') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return i.checked_sub(1);
                }
            }
            _ => {}
        }
        i = i.checked_sub(1)?;
    }
}

/// The index of the `(` that the `)` at `close` closes.
fn opening(tokens: &[(Token, usize)], close: usize) -> Option<usize> {
    if tokens[close].0 != Token::Punct(')') {
        return None;
    }
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        match tokens[i].0 {
            Token::Punct(')') => depth += 1,
            Token::Punct('(') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[test]
fn no_library_function_refuses_with_bare_text() {
    let root = crate::workspace_root();
    let found = bare_string_results(&root, &crate::crates(&root));
    let refusing: Vec<String> = refusing_with_strings(&found)
        .iter()
        .map(|f| f.describe())
        .collect();
    assert!(
        refusing.is_empty(),
        "functions returning Result<(), String>; a refusal is a type with a kind \
         (warlog_events::refusal: Forbidden for a permission), which the API answers by \
         error::refused:\n{}",
        refusing.join("\n")
    );
}

#[test]
fn every_function_allowed_to_return_bare_text_still_does() {
    let root = crate::workspace_root();
    let found = bare_string_results(&root, &crate::crates(&root));
    let stale: Vec<String> = ALLOWED
        .iter()
        .filter(|(file, name, _)| !found.iter().any(|f| f.file == *file && f.name == *name))
        .map(|(file, name, why)| format!("{file} {name} ({why})"))
        .collect();
    assert!(
        stale.is_empty(),
        "allowed to return Result<(), String> but no longer there or no longer returning \
         it; take them out of refusals::ALLOWED:\n{}",
        stale.join("\n")
    );
}

#[test]
fn no_service_answers_forbidden_by_hand() {
    let root = crate::workspace_root();
    let found: Vec<String> = forbidden_by_hand(&root, &crate::crates(&root))
        .iter()
        .map(|f| f.describe())
        .collect();
    assert!(
        found.is_empty(),
        "a 403 written by hand; refuse with warlog_events::refusal::Forbidden in the \
         library and let `?` (error::refused) answer it:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_name_a_bare_text_refusal_and_a_hand_written_403_and_nothing_else() {
    // Given a library with two functions refusing with bare text (one generic), among
    // look-alikes that do not (a typed refusal, a closure's return type, a function
    // pointer's, a comment, a string, a test), and a service writing a 403 outside the
    // error table
    let tiny = crate::Scratch::new(
        "refusals",
        &[(
            "lib.rs",
            concat!(
                "pub fn may(who: &str) -> Result<(), String> {\n",
                "    Err(who.to_owned())\n",
                "}\n",
                "fn generic<F: Fn() -> u8, T: Into<String>>(f: F, t: T) -> Result<(), String> {\n",
                "    Err(t.into())\n",
                "}\n",
                "pub fn typed() -> Result<(), Forbidden> { Ok(()) }\n",
                "pub fn takes(f: impl Fn() -> Result<(), String>) -> u8 { 1 }\n",
                "pub type Check = fn(u8) -> Result<(), String>;\n",
                "// pub fn commented() -> Result<(), String>\n",
                "const S: &str = \"fn quoted() -> Result<(), String>\";\n",
                "#[cfg(test)]\nfn checked() -> Result<(), String> { Ok(()) }\n",
            ),
        )],
    );
    let service = tiny.0.join("services/web");
    std::fs::create_dir_all(service.join("src")).unwrap();
    std::fs::write(service.join("Cargo.toml"), "").unwrap();
    std::fs::write(
        service.join("src/lib.rs"),
        "fn no() -> E { E::new(ErrorCode::Forbidden, \"no\") }\n\
         #[cfg(test)]\nfn checked() { let _ = ErrorCode::Forbidden; }\n",
    )
    .unwrap();
    // When the checks read them
    let crates = crate::crates(&tiny.0);
    let bare = bare_string_results(&tiny.0, &crates);
    let by_hand = forbidden_by_hand(&tiny.0, &crates);
    // Then each names its one offence, with its file and line
    let described = |found: &[Found]| found.iter().map(Found::describe).collect::<Vec<_>>();
    assert_eq!(
        described(&bare),
        [
            "libs/tiny/src/lib.rs:1 may",
            "libs/tiny/src/lib.rs:4 generic"
        ]
    );
    assert_eq!(
        described(&by_hand),
        ["services/web/src/lib.rs:1 ErrorCode::Forbidden"]
    );
}
