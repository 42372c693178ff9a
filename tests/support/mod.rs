pub mod figures;
pub mod master;
pub mod plan;
pub mod safety;
