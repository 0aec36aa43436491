//! A piece of one line that remembers where it stands, so every error can name its
//! column.

/// A slice of a line and its byte offset in that line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Text<'a> {
    pub s: &'a str,
    pub at: usize,
}

impl<'a> Text<'a> {
    pub fn new(s: &'a str) -> Self {
        Text { s, at: 0 }
    }

    pub fn is_empty(self) -> bool {
        self.s.trim().is_empty()
    }

    pub fn trim(self) -> Self {
        let start = self.s.len() - self.s.trim_start().len();
        Text {
            s: self.s.trim(),
            at: self.at + start,
        }
    }

    fn slice(self, from: usize, to: usize) -> Self {
        Text {
            s: &self.s[from..to],
            at: self.at + from,
        }
    }

    /// The text after `phrase` (words compared without regard to case, any run of spaces
    /// between them), if the text starts with it as whole words.
    pub fn after_phrase(self, phrase: &str) -> Option<Self> {
        let mut rest = self.trim();
        for word in phrase.split_whitespace() {
            let head = rest.s.get(..word.len())?;
            if !head.eq_ignore_ascii_case(word) {
                return None;
            }
            let next = rest.s[word.len()..].chars().next();
            if next.is_some_and(|c| c.is_alphanumeric()) {
                return None;
            }
            rest = rest.slice(word.len(), rest.s.len()).trim();
        }
        Some(rest)
    }

    /// The first of `phrases` the text starts with, and what follows it.
    pub fn after_any(self, phrases: &[&str]) -> Option<Self> {
        phrases.iter().find_map(|p| self.after_phrase(p))
    }

    /// Split at every `separator` (a character sequence, not a word).
    pub fn split(self, separator: &str) -> Vec<Self> {
        let mut parts = Vec::new();
        let mut start = 0;
        while let Some(found) = self.s[start..].find(separator) {
            parts.push(self.slice(start, start + found).trim());
            start += found + separator.len();
        }
        parts.push(self.slice(start, self.s.len()).trim());
        parts
    }

    /// Split at the first `word` standing alone (spaces on both sides), case aside.
    pub fn split_word(self, word: &str) -> Option<(Self, Self)> {
        self.word_positions(word)
            .first()
            .map(|&i| self.cut_around(i, word.len()))
    }

    /// Split at the last `word` standing alone.
    pub fn split_last_word(self, word: &str) -> Option<(Self, Self)> {
        self.word_positions(word)
            .last()
            .map(|&i| self.cut_around(i, word.len()))
    }

    /// Split at every `word` standing alone.
    pub fn split_words(self, word: &str) -> Vec<Self> {
        let mut parts = Vec::new();
        let mut start = 0;
        for i in self.word_positions(word) {
            parts.push(self.slice(start, i).trim());
            start = i + word.len();
        }
        parts.push(self.slice(start, self.s.len()).trim());
        parts
    }

    fn cut_around(self, i: usize, len: usize) -> (Self, Self) {
        (
            self.slice(0, i).trim(),
            self.slice(i + len, self.s.len()).trim(),
        )
    }

    fn word_positions(self, word: &str) -> Vec<usize> {
        let lower = self.s.to_ascii_lowercase();
        let bytes = lower.as_bytes();
        let mut found = Vec::new();
        let mut from = 0;
        while let Some(i) = lower[from..].find(word).map(|i| i + from) {
            let before = i == 0 || bytes[i - 1].is_ascii_whitespace();
            let end = i + word.len();
            let after = end == bytes.len() || bytes[end].is_ascii_whitespace();
            if before && after && i > 0 && end < bytes.len() {
                found.push(i);
            }
            from = i + 1;
        }
        found
    }

    /// The words of the text, each with its place.
    pub fn words(self) -> Vec<Self> {
        let mut words = Vec::new();
        let mut start = None;
        for (i, c) in self.s.char_indices() {
            match (c.is_whitespace(), start) {
                (true, Some(s)) => {
                    words.push(self.slice(s, i));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(s) = start {
            words.push(self.slice(s, self.s.len()));
        }
        words
    }
}

/// The column (from 1, in characters) of byte offset `at` in `line`.
pub(super) fn column(line: &str, at: usize) -> usize {
    line.get(..at).map_or(1, |head| head.chars().count() + 1)
}
