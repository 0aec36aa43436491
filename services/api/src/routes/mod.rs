pub mod ops;
pub mod streams;
