//! Pure league logic: standings, Cut-Throat titles, skill ratings, tournaments and seating,
//! computed from typed events with no database in sight (the store's projectors persist
//! the results). It arrives with "The league" issue; until then this crate only fixes its
//! place in the dependency graph (`rules <- events <- league <- store <- api`).
