pub mod safety;
