//! The customer's webhook receiver: a real HTTP server recording every `webhook-id` it is sent, which the
//! receiver-outage trial stops and starts again on the same port.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

pub struct Receiver {
    pub port: u16,
    received: Arc<Mutex<HashSet<String>>>,
    running: Option<actix_web::dev::ServerHandle>,
}

impl Receiver {
    pub fn start() -> anyhow::Result<Self> {
        let mut receiver = Self {
            port: crate::processes::free_port()?,
            received: Arc::default(),
            running: None,
        };
        receiver.up()?;
        Ok(receiver)
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    /// Listens again (on the same port).
    pub fn up(&mut self) -> anyhow::Result<()> {
        if self.running.is_some() {
            return Ok(());
        }
        let received = self.received.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(web::Data::new(received.clone()))
                .default_service(web::to(receive))
        })
        .workers(2)
        .disable_signals()
        .bind(("127.0.0.1", self.port))?
        .run();
        self.running = Some(server.handle());
        tokio::spawn(server);
        Ok(())
    }

    /// Stops listening: connections are refused until [`Receiver::up`].
    pub async fn down(&mut self) {
        if let Some(handle) = self.running.take() {
            handle.stop(false).await;
        }
    }

    pub fn received(&self) -> HashSet<String> {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

async fn receive(req: HttpRequest, received: web::Data<Arc<Mutex<HashSet<String>>>>) -> HttpResponse {
    if let Some(id) = req.headers().get("webhook-id").and_then(|v| v.to_str().ok()) {
        received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_owned());
    }
    HttpResponse::NoContent().finish()
}
