//! Rust source as the few tokens the circle check reads: identifiers, `::` and single
//! punctuation, each with its line. Comments, string literals (plain, byte, C, raw), char
//! literals and lifetimes are dropped, so a path inside a doc comment or a message never
//! counts as an import.

/// One token of a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// An identifier or keyword (`crate`, `mod`, `use`, ...); raw identifiers lose `r#`.
    Ident(String),
    /// `::`.
    PathSep,
    /// Any other single character that is not whitespace (`{`, `;`, `#`, `$`, ...).
    Punct(char),
}

/// The tokens of `source`, in order, each with the line (from 1) it starts on.
pub fn tokenise(source: &str) -> Vec<(Token, usize)> {
    Lexer {
        chars: source.chars().collect(),
        at: 0,
        line: 1,
    }
    .run()
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: usize,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn run(mut self) -> Vec<(Token, usize)> {
        let mut tokens = Vec::new();
        while let Some(c) = self.peek(0) {
            let line = self.line;
            if c.is_whitespace() {
                self.bump();
            } else if c == '/' && self.peek(1) == Some('/') {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else if c == '/' && self.peek(1) == Some('*') {
                self.block_comment();
            } else if c == '"' {
                self.bump();
                self.quoted('"');
            } else if c == '\'' {
                self.quote_or_lifetime();
            } else if c.is_ascii_digit() {
                while self
                    .peek(0)
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
                {
                    self.bump();
                }
            } else if c.is_alphabetic() || c == '_' {
                if let Some(word) = self.word_or_literal() {
                    tokens.push((Token::Ident(word), line));
                }
            } else if c == ':' && self.peek(1) == Some(':') {
                self.bump();
                self.bump();
                tokens.push((Token::PathSep, line));
            } else {
                self.bump();
                tokens.push((Token::Punct(c), line));
            }
        }
        tokens
    }

    /// `/* ... */`, nested as Rust nests them.
    fn block_comment(&mut self) {
        self.bump();
        self.bump();
        let mut depth = 1;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (Some('/'), Some('*')) => {
                    self.bump();
                    self.bump();
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.bump();
                    self.bump();
                    depth -= 1;
                }
                (Some(_), _) => {
                    self.bump();
                }
                (None, _) => return,
            }
        }
    }

    /// The rest of a literal after its opening quote, escapes included.
    fn quoted(&mut self, close: char) {
        while let Some(c) = self.bump() {
            if c == '\\' {
                self.bump();
            } else if c == close {
                return;
            }
        }
    }

    /// `'x'`, `'\n'`, `'\u{1F600}'` are characters; `'a` (no closing quote after one
    /// character) is a lifetime or a label.
    fn quote_or_lifetime(&mut self) {
        self.bump();
        if self.peek(0) == Some('\\') {
            self.quoted('\'');
        } else if self.peek(1) == Some('\'') {
            self.bump();
            self.bump();
        } else {
            while self
                .peek(0)
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                self.bump();
            }
        }
    }

    /// An identifier, or a literal that starts like one (`b"..."`, `r#"..."#`, `b'x'`,
    /// `c"..."`), which yields nothing.
    fn word_or_literal(&mut self) -> Option<String> {
        let start = self.at;
        while self
            .peek(0)
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            self.bump();
        }
        let word: String = self.chars[start..self.at].iter().collect();
        let next = self.peek(0);
        match (word.as_str(), next) {
            ("b" | "c", Some('"')) => {
                self.bump();
                self.quoted('"');
                None
            }
            ("b", Some('\'')) => {
                self.bump();
                self.quoted('\'');
                None
            }
            ("r" | "br" | "cr", Some('"' | '#')) if self.raw_string_follows() => {
                self.raw_string();
                None
            }
            ("r", Some('#')) => {
                // A raw identifier: `r#type`.
                self.bump();
                self.word_or_literal()
            }
            _ => Some(word),
        }
    }

    fn raw_string_follows(&self) -> bool {
        let mut ahead = 0;
        while self.peek(ahead) == Some('#') {
            ahead += 1;
        }
        self.peek(ahead) == Some('"')
    }

    /// `#"..."#` after the `r`: closed by a quote and as many hashes as opened it.
    fn raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            self.bump();
            hashes += 1;
        }
        self.bump();
        while let Some(c) = self.bump() {
            if c == '"' && (0..hashes).all(|i| self.peek(i) == Some('#')) {
                for _ in 0..hashes {
                    self.bump();
                }
                return;
            }
        }
    }
}
