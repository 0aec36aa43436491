//! The read floor: every read the API's routes and the pages share, one module per
//! aggregate, each giving the view or the page of a list that both render.
//!
//! A page is built from the same functions the JSON API answers with, so a page never
//! shows what the API would not; the functions live here, below both, so that neither a
//! route imports a page nor a page a route, and a route file holds its handlers.

pub(crate) mod dice;
pub(crate) mod games;
pub(crate) mod indexes;
pub(crate) mod league;
pub(crate) mod odds;
pub(crate) mod tournaments;
