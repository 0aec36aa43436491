pub mod ops;
pub mod streams;
pub mod games;
pub mod odds;
