//! The rules engine: rulesets as data, the board, orders, battles as the IAAPA GM rolls
//! them (Part 13), exact odds, income, placements, points and titles.
//!
//! Pure by contract: no IO, no async, no clock, and no randomness it did not receive as an
//! argument, so every game can be replayed bit for bit from its event log. The engine
//! arrives with the "Rules engine" issues; until then this crate only fixes its place at
//! the bottom of the dependency graph (`rules <- events <- league <- store <- api`).
