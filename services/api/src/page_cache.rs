//! Rendered views of games, kept by game and version: the game page, the board as JSON and
//! as the map. A log never changes below its head, so what a view shows at a version is
//! the same however often it is asked for: a request reads the head (one indexed row),
//! and only a version not seen before is read, folded and rendered again. The bytes are
//! kept with their ETag, so a hit costs neither a render nor a hash.
//!
//! Bounded twice, by entries and by bytes, least recently used first. Requests for the same
//! view that miss together render it once: the first renders, the others wait for it (a
//! game page of a long game takes long enough that ten renders at once were six seconds).

use std::collections::HashMap;
use std::future::Future;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use lru::LruCache;
use warlog_events::StreamId;

use crate::error::ApiError;
use crate::respond::{etag_of, if_none_match};

/// Views kept by default, and their bytes at most.
const ENTRIES: usize = 512;
const BYTES: usize = 64 << 20;

/// Which view of a game, with the query that shapes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum View {
    /// The game page at its head, its map at `shown` (`None`: the head), a place ringed,
    /// a region zoomed to.
    Page {
        shown: Option<u64>,
        highlight: Option<String>,
        region: Option<String>,
    },
    /// `GET /v1/games/{id}/board` at the key's version.
    Board,
    /// `GET /v1/games/{id}/board.svg` at the key's version, a place ringed.
    Map {
        highlight: Option<String>,
        region: Option<String>,
    },
}

/// A view of a game at a version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PageKey {
    pub game: StreamId,
    /// The game's version the view was rendered at (for a board, the board's).
    pub version: u64,
    pub view: View,
}

/// A rendered view and its tag.
#[derive(Debug)]
pub struct Rendered {
    pub content_type: &'static str,
    pub body: Bytes,
    pub etag: String,
}

impl Rendered {
    pub fn new(content_type: &'static str, body: Vec<u8>) -> Self {
        let etag = etag_of(&body);
        Rendered {
            content_type,
            body: body.into(),
            etag,
        }
    }

    /// 200 with the kept bytes and their tag (the edge's tagging leaves a tagged answer
    /// alone), or 304 when the client holds them.
    pub fn respond(&self, req: &HttpRequest) -> HttpResponse {
        let held = if_none_match(req.headers(), &self.etag);
        let mut builder = if held {
            HttpResponse::NotModified()
        } else {
            HttpResponse::Ok()
        };
        builder
            .insert_header((header::ETAG, self.etag.clone()))
            .insert_header((header::CACHE_CONTROL, "no-cache"));
        if held {
            builder.finish()
        } else {
            builder
                .content_type(self.content_type)
                .body(self.body.clone())
        }
    }
}

#[derive(Debug)]
struct Kept {
    views: LruCache<PageKey, Arc<Rendered>>,
    bytes: usize,
}

#[derive(Debug)]
pub struct PageCache {
    kept: Mutex<Kept>,
    max_bytes: usize,
    /// One gate per view being rendered: who comes while it is rendered waits for it.
    rendering: Mutex<HashMap<PageKey, Arc<tokio::sync::Mutex<()>>>>,
}

impl Default for PageCache {
    fn default() -> Self {
        PageCache::new(ENTRIES, BYTES)
    }
}

impl PageCache {
    /// A cache of at most `entries` views and `max_bytes` of their bodies.
    pub fn new(entries: usize, max_bytes: usize) -> Self {
        PageCache {
            kept: Mutex::new(Kept {
                views: LruCache::new(NonZeroUsize::new(entries).unwrap_or(NonZeroUsize::MIN)),
                bytes: 0,
            }),
            max_bytes,
            rendering: Mutex::default(),
        }
    }

    pub fn get(&self, key: &PageKey) -> Option<Arc<Rendered>> {
        self.kept.lock().ok()?.views.get(key).cloned()
    }

    /// Whether `key` is kept (without making it the most recently used).
    pub fn contains(&self, key: &PageKey) -> bool {
        self.kept.lock().is_ok_and(|kept| kept.views.contains(key))
    }

    /// How many views are kept, and their bytes.
    pub fn size(&self) -> (usize, usize) {
        self.kept
            .lock()
            .map_or((0, 0), |kept| (kept.views.len(), kept.bytes))
    }

    pub fn clear(&self) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.views.clear();
            kept.bytes = 0;
        }
    }

    pub fn put(&self, key: PageKey, rendered: Arc<Rendered>) {
        let size = rendered.body.len();
        if size > self.max_bytes {
            return;
        }
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        kept.bytes += size;
        if let Some((_, out)) = kept.views.push(key, rendered) {
            kept.bytes -= out.body.len();
        }
        while kept.bytes > self.max_bytes {
            let Some((_, out)) = kept.views.pop_lru() else {
                break;
            };
            kept.bytes -= out.body.len();
        }
    }

    /// The view under `key`, rendered by `render` when it is not kept, once however many
    /// ask for it at the same time. `render` answers the version it really rendered: when
    /// a write landed between reading the head and reading the log, that is not the key's,
    /// and the answer is not kept.
    pub async fn get_or_render<F, Fut>(
        &self,
        key: PageKey,
        render: F,
    ) -> Result<Arc<Rendered>, ApiError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(u64, Rendered), ApiError>>,
    {
        if let Some(hit) = self.get(&key) {
            return Ok(hit);
        }
        let gate = match self.rendering.lock() {
            Ok(mut rendering) => rendering.entry(key.clone()).or_default().clone(),
            Err(_) => Arc::default(),
        };
        let _turn = gate.lock().await;
        if let Some(hit) = self.get(&key) {
            return Ok(hit);
        }
        let rendered = render().await;
        if let Ok(mut rendering) = self.rendering.lock() {
            // Whoever waits holds the gate already and finds the view kept.
            rendering.remove(&key);
        }
        let (version, rendered) = rendered?;
        let rendered = Arc::new(rendered);
        if version == key.version {
            self.put(key, rendered.clone());
        }
        Ok(rendered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(version: u64) -> PageKey {
        PageKey {
            game: StreamId::try_from("game-g1".to_owned()).expect("a stream id"),
            version,
            view: View::Board,
        }
    }

    fn body(len: usize) -> Arc<Rendered> {
        Arc::new(Rendered::new("text/plain", vec![b'x'; len]))
    }

    #[test]
    fn the_least_recently_used_view_goes_first_when_the_entries_are_full() {
        let cache = PageCache::new(2, 1 << 20);
        cache.put(key(1), body(10));
        cache.put(key(2), body(10));
        assert!(cache.get(&key(1)).is_some());
        cache.put(key(3), body(10));
        assert!(cache.contains(&key(1)) && cache.contains(&key(3)));
        assert!(!cache.contains(&key(2)));
        assert_eq!(cache.size(), (2, 20));
    }

    #[test]
    fn views_go_when_their_bytes_are_over_the_budget() {
        let cache = PageCache::new(100, 25);
        cache.put(key(1), body(10));
        cache.put(key(2), body(10));
        cache.put(key(3), body(10));
        assert_eq!(cache.size(), (2, 20));
        assert!(!cache.contains(&key(1)));
        // A view larger than the whole budget is not kept at all.
        cache.put(key(4), body(26));
        assert!(!cache.contains(&key(4)));
        assert_eq!(cache.size(), (2, 20));
    }

    #[tokio::test]
    async fn views_asked_for_together_are_rendered_once() {
        let cache = Arc::new(PageCache::default());
        let renders = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let asks = (0..8).map(|_| {
            let (cache, renders) = (cache.clone(), renders.clone());
            async move {
                cache
                    .get_or_render(key(7), || async move {
                        renders.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        tokio::task::yield_now().await;
                        Ok((7, Rendered::new("text/plain", b"page".to_vec())))
                    })
                    .await
            }
        });
        let answers = futures_util::future::join_all(asks).await;
        assert!(answers
            .iter()
            .all(|a| a.as_ref().is_ok_and(|r| &r.body[..] == b"page")));
        assert_eq!(renders.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
