//! Functions a reader can hold (issue 53): the length of every production function, from
//! its `fn` to the brace closing its body, so that each over [`MOST_LINES`] lines is named;
//! a table of data in [`DATA_TABLES`] may be longer.
//!
//! The files and their tokens are the circle check's: the crate's module tree without
//! test-only items, files or modules named `tests`, comments, string and char literals
//! (so a brace inside one never closes a body).

use std::path::Path;

use crate::modules::{closing, production_files, Crate};
use crate::tokens::Token;

/// The most lines a production function may span, its `fn` line and closing brace line
/// included.
pub const MOST_LINES: usize = 150;

/// Tables of data allowed past [`MOST_LINES`], for good: the file from the workspace's
/// root, the function's name, and why. Logic does not belong here.
pub const DATA_TABLES: &[(&str, &str, &str)] = &[(
    "libs/rules/src/aap.rs",
    "special_rules",
    "a table of data: AAP Historical's special rules as one literal, a field a rule, each \
     with the rulebook's words",
)];

/// One function item: its file from the workspace's root, the line of its `fn`, its
/// name and how many lines it spans.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Function {
    pub file: String,
    pub line: usize,
    pub name: String,
    pub lines: usize,
}

impl Function {
    /// `file:line name N lines`, as a failure lists it.
    pub fn describe(&self) -> String {
        format!(
            "{}:{} {} {} lines",
            self.file, self.line, self.name, self.lines
        )
    }

    pub fn allowed(&self) -> bool {
        DATA_TABLES
            .iter()
            .any(|(file, name, _)| *file == self.file && *name == self.name)
    }
}

/// Every function item with a body in the crates' production files, in file and line
/// order.
pub fn functions(root: &Path, crates: &[Crate]) -> Vec<Function> {
    let mut found: Vec<Function> = production_files(root, crates, "")
        .into_iter()
        .flat_map(|(file, tokens)| in_tokens(&file, tokens))
        .collect();
    found.sort();
    found
}

/// The functions over [`MOST_LINES`] lines not allowed past it.
pub fn too_long(functions: &[Function]) -> Vec<&Function> {
    functions
        .iter()
        .filter(|f| f.lines > MOST_LINES && !f.allowed())
        .collect()
}

/// `fn name` followed by a body: a declaration ending in `;` (in a trait, an `extern`
/// block) has none, and `fn(...)` is a pointer type, not an item.
fn in_tokens(file: &str, tokens: &[(Token, usize)]) -> Vec<Function> {
    let mut found = Vec::new();
    for (i, pair) in tokens.windows(2).enumerate() {
        let (Token::Ident(keyword), Token::Ident(name)) = (&pair[0].0, &pair[1].0) else {
            continue;
        };
        if keyword != "fn" {
            continue;
        }
        if let Some(open) = body(tokens, i + 2) {
            let first = tokens[i].1;
            found.push(Function {
                file: file.to_owned(),
                line: first,
                name: name.clone(),
                lines: tokens[closing(tokens, open)].1 - first + 1,
            });
        }
    }
    found
}

/// The index of the `{` opening the body of the function whose signature starts at `i`,
/// past its parameters and any bracketed type (`[u8; 4]` holds a `;`).
fn body(tokens: &[(Token, usize)], mut i: usize) -> Option<usize> {
    while i < tokens.len() {
        match tokens[i].0 {
            Token::Punct('{') => return Some(i),
            Token::Punct(';') => return None,
            Token::Punct('(' | '[') => i = closing(tokens, i) + 1,
            _ => i += 1,
        }
    }
    None
}
