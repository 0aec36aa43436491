//! The files pages load: the stylesheet, the API reference's script and the icon. Pages
//! link each by a versioned address (`/assets/warlog.css?v=<digest of its bytes>`), which a
//! browser may keep for a year: a new build with new bytes links a new address. The bare
//! address still answers, revalidated each time, for links made before.

use std::sync::LazyLock;

use actix_web::http::header;
use actix_web::{get, HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

/// A file served from the binary.
#[derive(Debug)]
pub struct Asset {
    pub path: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

impl Asset {
    /// The digest of the bytes, short: what the versioned address carries.
    fn version(&self) -> String {
        hex::encode(&Sha256::digest(self.bytes)[..8])
    }

    /// The 200 for `req`: kept for a year when asked at this build's version, else
    /// revalidated.
    fn answer(&self, version: &str, req: &HttpRequest) -> HttpResponse {
        let asked = form_urlencoded::parse(req.query_string().as_bytes())
            .find(|(name, _)| name == "v")
            .map(|(_, value)| value.into_owned());
        let caching = if asked.as_deref() == Some(version) {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, self.content_type))
            .insert_header((header::CACHE_CONTROL, caching))
            .body(self.bytes)
    }
}

/// The stylesheet every page links.
pub const STYLESHEET: Asset = Asset {
    path: "/assets/warlog.css",
    content_type: "text/css; charset=utf-8",
    bytes: include_bytes!("pages/warlog.css"),
};

/// Redoc (npm `redoc@2.5.4`, MIT; its licence beside it), served from here so that the API
/// reference needs no other host.
pub const REDOC: Asset = Asset {
    path: "/assets/redoc.standalone.js",
    content_type: "text/javascript; charset=utf-8",
    bytes: include_bytes!("../assets/redoc.standalone.js"),
};

/// The site's icon (an SVG: every current browser draws one as an icon).
pub const ICON: Asset = Asset {
    path: "/favicon.ico",
    content_type: "image/svg+xml",
    bytes: include_bytes!("../assets/favicon.svg"),
};

static VERSIONS: LazyLock<[String; 3]> =
    LazyLock::new(|| [STYLESHEET.version(), REDOC.version(), ICON.version()]);

/// The versioned addresses pages link.
pub fn stylesheet_href() -> String {
    format!("{}?v={}", STYLESHEET.path, VERSIONS[0])
}

pub fn redoc_href() -> String {
    format!("{}?v={}", REDOC.path, VERSIONS[1])
}

pub fn icon_href() -> String {
    format!("{}?v={}", ICON.path, VERSIONS[2])
}

#[get("/assets/warlog.css")]
pub async fn stylesheet(req: HttpRequest) -> HttpResponse {
    STYLESHEET.answer(&VERSIONS[0], &req)
}

#[get("/assets/redoc.standalone.js")]
pub async fn redoc_script(req: HttpRequest) -> HttpResponse {
    REDOC.answer(&VERSIONS[1], &req)
}

/// Browsers ask for `/favicon.ico` unasked; pages also link it.
#[get("/favicon.ico")]
pub async fn icon(req: HttpRequest) -> HttpResponse {
    ICON.answer(&VERSIONS[2], &req)
}
