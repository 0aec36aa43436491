//! The rules engine: rulesets as data, the board, orders, battles as the IAAPA GM rolls
//! them (Part 13), exact odds, income, placements, points and titles.
//!
//! Pure by contract: no IO, no async, no clock, and no randomness it did not receive as an
//! argument, so every game can be replayed bit for bit from its event log.

pub mod aap;
pub mod battle;
pub mod board;
pub mod canonical;
pub mod capacity;
pub mod described_battle;
pub mod dice;
pub mod document;
pub mod game;
pub mod home_cooked_tables;
pub mod names;
pub mod notation;
pub mod ruleset;
pub mod scenario;
pub mod scoring;
pub mod setup;
pub mod tech;
pub mod units;
pub mod violation;
pub mod words;
