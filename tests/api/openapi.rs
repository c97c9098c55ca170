//! The document the running server serves is `docs/openapi.json` (the same JSON): the file `make lint`
//! validates and the SDKs in `clients/` are generated from.

use crate::helpers::{Db, spawn_app};

on_both_stores!(the_served_document_is_the_committed_one);

async fn the_served_document_is_the_committed_one(db: Db) {
    let Some(app) = spawn_app(db).await else {
        return;
    };
    let served = app.get("/api/v1/openapi.json").await.text().await.unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json");
    let committed = std::fs::read_to_string(path).unwrap();
    let served: serde_json::Value = serde_json::from_str(&served).unwrap();
    let committed: serde_json::Value = serde_json::from_str(&committed).unwrap();
    assert!(
        served == committed,
        "the served document differs from docs/openapi.json: run \
         `UPDATE_SNAPSHOTS=1 cargo test -p herald-http --test http openapi`, then `make sdk`, and commit both"
    );
}
