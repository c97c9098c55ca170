//! The HTTP baseline of `make bench`: an actix-web server whose one handler does nothing (actix's default
//! worker count, as Herald's), so the report shows what HTTP alone costs on this machine.
//! Usage: `http_baseline ADDRESS` (e.g. `127.0.0.1:18081`); runs until killed.

use actix_web::{App, HttpResponse, HttpServer, web};

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let listen = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18081".to_owned());
    HttpServer::new(|| App::new().default_service(web::to(HttpResponse::Ok)))
        .bind(listen)?
        .run()
        .await
}
