//! The leaderboard's in-process cache. A ladder page read "as of" a league state never
//! changes (the ladder rows keep their history), so a rendered page is cached under
//! everything that shapes it: ladder, ruleset, season, as-of, cursor, limit and format.
//! Only a first page must learn the current head; heads are cached for a short, configured
//! age (`WARLOG_LADDER_HEAD_MAX_AGE_MS`; 0 asks the database every time), which bounds how
//! long a newly projected game may take to reach the first page.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::web::Bytes;
use lru::LruCache;

/// How many rendered pages are kept (the least recently used go first).
const PAGES: usize = 4096;

/// Everything that shapes a rendered page.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PageKey {
    pub ladder: &'static str,
    pub ruleset: String,
    pub season: i32,
    pub as_of: i64,
    pub after: Option<String>,
    pub limit: u32,
    /// `json` or `csv`.
    pub format: &'static str,
}

/// A ladder scope: ladder, ruleset and season.
type Scope = (&'static str, String, i32);

/// A rendered page and what its response needs.
#[derive(Debug)]
pub struct CachedPage {
    pub body: Bytes,
    pub etag: String,
    pub next: Option<String>,
}

#[derive(Debug)]
pub struct LadderCache {
    pages: Mutex<LruCache<PageKey, Arc<CachedPage>>>,
    heads: Mutex<HashMap<Scope, (i64, Instant)>>,
    head_max_age: Duration,
}

impl Default for LadderCache {
    fn default() -> Self {
        LadderCache::new(Duration::ZERO)
    }
}

impl LadderCache {
    pub fn new(head_max_age: Duration) -> Self {
        LadderCache {
            pages: Mutex::new(LruCache::new(
                NonZeroUsize::new(PAGES).unwrap_or(NonZeroUsize::MIN),
            )),
            heads: Mutex::new(HashMap::new()),
            head_max_age,
        }
    }

    pub fn page(&self, key: &PageKey) -> Option<Arc<CachedPage>> {
        self.pages.lock().ok()?.get(key).cloned()
    }

    pub fn keep_page(&self, key: PageKey, page: Arc<CachedPage>) {
        if let Ok(mut pages) = self.pages.lock() {
            pages.put(key, page);
        }
    }

    /// The scope's head, if fetched within the configured age.
    pub fn head(&self, ladder: &'static str, ruleset: &str, season: i32) -> Option<i64> {
        if self.head_max_age.is_zero() {
            return None;
        }
        let heads = self.heads.lock().ok()?;
        let (seq, at) = heads.get(&(ladder, ruleset.to_owned(), season))?;
        (at.elapsed() < self.head_max_age).then_some(*seq)
    }

    pub fn keep_head(&self, ladder: &'static str, ruleset: &str, season: i32, seq: i64) {
        if self.head_max_age.is_zero() {
            return;
        }
        if let Ok(mut heads) = self.heads.lock() {
            heads.insert((ladder, ruleset.to_owned(), season), (seq, Instant::now()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(as_of: i64) -> PageKey {
        PageKey {
            ladder: "points",
            ruleset: "cutthroat".into(),
            season: 0,
            as_of,
            after: None,
            limit: 50,
            format: "json",
        }
    }

    #[test]
    fn a_page_is_found_only_under_the_state_it_was_read_as_of() {
        let cache = LadderCache::default();
        let page = Arc::new(CachedPage {
            body: Bytes::from_static(b"[]"),
            etag: "\"x\"".into(),
            next: None,
        });
        cache.keep_page(key(3), page);
        assert!(cache.page(&key(3)).is_some());
        assert!(cache.page(&key(4)).is_none());
    }

    #[test]
    fn heads_are_not_kept_when_the_configured_age_is_zero() {
        let cache = LadderCache::default();
        cache.keep_head("points", "cutthroat", 0, 7);
        assert_eq!(cache.head("points", "cutthroat", 0), None);
        let cache = LadderCache::new(Duration::from_secs(60));
        cache.keep_head("points", "cutthroat", 0, 7);
        assert_eq!(cache.head("points", "cutthroat", 0), Some(7));
        assert_eq!(cache.head("skill", "cutthroat", 0), None);
    }
}
