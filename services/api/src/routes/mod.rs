pub mod games;
pub mod league;
pub mod odds;
pub mod ops;
pub mod rulesets;
pub mod streams;
pub mod tournaments;
