//! A tiny scripted HTTP/1.1 receiver on a random local port, so tests control every byte and every stall.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use herald_webhooks::{Deliverer, DeliveryTimeouts, DestinationPolicy, WebhookSecret};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// What the receiver answers to every request.
#[derive(Clone)]
pub enum Reply {
    /// A complete answer.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Headers announcing `declared` body bytes, then only `sent`, then silence with the socket open.
    PartialThenHang {
        status: u16,
        declared: usize,
        sent: Vec<u8>,
    },
    /// Read the request, then never answer.
    Hang,
    /// Write these bytes as soon as the connection opens, before reading anything, then close.
    RawOnAccept(Vec<u8>),
}

impl Reply {
    pub fn status(status: u16) -> Self {
        Self::Full {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }
}

/// One request as it arrived.
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

pub struct Receiver {
    pub addr: SocketAddr,
    requests: mpsc::UnboundedReceiver<Recorded>,
    connections: Arc<AtomicUsize>,
}

impl Receiver {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The next recorded request, failing the test if none arrives soon.
    pub async fn next_request(&mut self) -> Recorded {
        tokio::time::timeout(Duration::from_secs(5), self.requests.recv())
            .await
            .expect("no request reached the receiver")
            .expect("receiver stopped")
    }

    /// Whether any request has been recorded (without waiting).
    pub fn has_request(&mut self) -> bool {
        self.requests.try_recv().is_ok()
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

pub async fn spawn_receiver(reply: Reply) -> Receiver {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, requests) = mpsc::unbounded_channel();
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&connections);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(serve(stream, reply.clone(), tx.clone()));
        }
    });
    Receiver {
        addr,
        requests,
        connections,
    }
}

async fn serve(mut stream: TcpStream, reply: Reply, tx: mpsc::UnboundedSender<Recorded>) {
    if let Reply::RawOnAccept(bytes) = &reply {
        let _ = stream.write_all(bytes).await;
        return;
    }
    let mut buf = Vec::new();
    // Keep-alive: answer requests on this connection until the client closes it.
    while let Some(request) = read_request(&mut stream, &mut buf).await {
        let _ = tx.send(request);
        match &reply {
            Reply::Full {
                status,
                headers,
                body,
            } => {
                let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
                for (name, value) in headers {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                head.push_str("\r\n");
                if stream.write_all(head.as_bytes()).await.is_err() || stream.write_all(body).await.is_err() {
                    return;
                }
            }
            Reply::PartialThenHang {
                status,
                declared,
                sent,
            } => {
                let head = format!("HTTP/1.1 {status} X\r\ncontent-length: {declared}\r\n\r\n");
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(sent).await;
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return;
            }
            Reply::Hang => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return;
            }
            Reply::RawOnAccept(_) => return,
        }
    }
}

async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Recorded> {
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8(buf[..head_end].to_vec()).ok()?;
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let mut headers = HeaderMap::new();
    for line in lines {
        let (name, value) = line.split_once(':')?;
        headers.append(
            HeaderName::from_bytes(name.trim().as_bytes()).ok()?,
            HeaderValue::from_str(value.trim()).ok()?,
        );
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let body_start = head_end + 4;
    while buf.len() < body_start + len {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[body_start..body_start + len].to_vec();
    buf.drain(..body_start + len);
    Some(Recorded {
        method,
        path,
        headers,
        body,
    })
}

/// Policy for the local receiver: plain http and loopback allowed.
pub fn local_policy() -> DestinationPolicy {
    DestinationPolicy {
        allow_insecure: true,
        allow_private: true,
    }
}

pub fn deliverer_with(total: Duration) -> Deliverer {
    Deliverer::new(
        local_policy(),
        DeliveryTimeouts {
            total,
            connect: Duration::from_secs(2),
        },
    )
    .unwrap()
}

pub fn deliverer() -> Deliverer {
    Deliverer::new(local_policy(), DeliveryTimeouts::default()).unwrap()
}

pub fn secret() -> WebhookSecret {
    WebhookSecret::generate(&mut rand::rng())
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

pub const BODY: &[u8] =
    br#"{"type":"message.status","timestamp":"2025-01-01T00:00:00Z","data":{"message_id":"msg_1"}}"#;
