pub mod master;
pub mod plan;
pub mod safety;
