pub mod master;
pub mod n1;
pub mod plan;
pub mod safety;
