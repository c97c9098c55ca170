//! `embed_migrations!` includes the migration files it finds at compile time; a NEW migration directory
//! would not make cargo rebuild this crate without this hint.

fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
