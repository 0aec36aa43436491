pub mod games;
pub mod odds;
pub mod ops;
pub mod streams;
