pub mod plan;
pub mod safety;
