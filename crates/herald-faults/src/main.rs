//! `make faults`: Herald's fault suite. Real release-built `herald` processes — the standalone
//! network simulator, two API processes and two workers — run against a PostgreSQL server of the suite's
//! own while it kills processes, stops the database, makes the network answer 5xx and takes the
//! customer's webhook receiver away. Each trial checks what a customer relies on: a `202` means the message
//! reaches the network exactly once, and every event reaches the receiver. The last line is
//! `N passed, N failed`; the exit status is non-zero on any failure.

mod hostile;
mod load;
mod postgres;
mod processes;
mod receiver;
mod trials;

use anyhow::Context;
use clap::Parser;
use processes::Cluster;
use receiver::Receiver;
use std::path::PathBuf;
use std::time::Duration;
use trials::{Suite, json_str};

/// Sum of the waits of the customer-webhook retry schedule (5 s + 5 min + 30 min + 2 h + 5 h + 10 h + 10 h).
const WEBHOOK_SCHEDULE_SECONDS: f64 = 99_305.0;

#[derive(Debug, Parser)]
#[command(name = "herald-faults", about = "Herald's fault suite against PostgreSQL")]
struct Args {
    /// The `herald` binary under test.
    #[arg(long, env = "FAULTS_HERALD", default_value = "target/release/herald")]
    herald: PathBuf,
    /// PostgreSQL's binaries (initdb, pg_ctl, psql); default: the newest /usr/lib/postgresql/*/bin.
    #[arg(long, env = "FAULTS_PG_BIN")]
    pg_bin: Option<PathBuf>,
    /// Loopback port of the suite's own PostgreSQL (0: any free port).
    #[arg(long, env = "FAULTS_PG_PORT", default_value_t = 55_432)]
    pg_port: u16,
    /// Trials of `kill -9` of a random Herald process under load.
    #[arg(long, env = "FAULTS_KILL_TRIALS", default_value_t = 20)]
    kill_trials: u32,
    /// How long PostgreSQL stays stopped under load (0 skips the trial).
    #[arg(long, env = "FAULTS_PG_OUTAGE_SECONDS", default_value_t = 30)]
    pg_outage_seconds: u64,
    /// How long the network answers every send with 503 (0 skips the trial).
    #[arg(long, env = "FAULTS_NETWORK_OUTAGE_SECONDS", default_value_t = 60)]
    network_outage_seconds: u64,
    /// How long the customer's receiver is down (0 skips the trial); the webhook retry schedule is
    /// compressed to 2 × the outage + 10 s, so that it outlasts the outage even when jittered short.
    #[arg(long, env = "FAULTS_RECEIVER_OUTAGE_SECONDS", default_value_t = 600)]
    receiver_outage_seconds: u64,
    /// Offered load, sends per second.
    #[arg(long, env = "FAULTS_RATE", default_value_t = 50)]
    rate: u32,
    /// The memory-ceiling trial's ceiling of the peak resident memory of its API process, MiB (0 skips the
    /// trial): a burst of hostile requests (docs/faults.md).
    #[arg(long, env = "FAULTS_RSS_CEILING_MB", default_value_t = hostile::DEFAULT_CEILING_MB)]
    rss_ceiling_mb: u64,
    /// Keep the work directory (logs of every process, PostgreSQL's data) afterwards.
    #[arg(long, env = "FAULTS_KEEP")]
    keep: bool,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(0) => std::process::ExitCode::SUCCESS,
        Ok(_) => std::process::ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error:#}");
            println!("0 passed, 1 failed");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<u32> {
    let herald = std::fs::canonicalize(&args.herald)
        .with_context(|| format!("the herald binary {}", args.herald.display()))?;
    // Kept on any failure (its logs explain it); removed after a clean run unless --keep.
    let dir = tempfile::Builder::new()
        .prefix("herald-faults-")
        .tempdir()?
        .keep();
    println!("work directory: {} (process logs)", dir.display());
    let pg_bin = match args.pg_bin.clone() {
        Some(bin) => bin,
        None => postgres::find_bin()?,
    };
    let pg_port = if args.pg_port == 0 || std::net::TcpListener::bind(("127.0.0.1", args.pg_port)).is_err() {
        processes::free_port()?
    } else {
        args.pg_port
    };
    let postgres = postgres::Postgres::create(&pg_bin, &dir, pg_port)?;
    println!("PostgreSQL of the suite on 127.0.0.1:{pg_port}");

    // The whole schedule lasts 2 × the receiver outage + 10 s, so even with every wait jittered 20 % short
    // (1.6 × + 8 s) no delivery runs out of attempts while the receiver is away and being restarted; at
    // 1.5 × a 5 s outage the shortest schedule (6 s) met the receiver's return and one delivery failed in CI.
    let retry_scale = if args.receiver_outage_seconds == 0 {
        1.0
    } else {
        let schedule = 2.0 * args.receiver_outage_seconds as f64 + 10.0;
        (schedule / WEBHOOK_SCHEDULE_SECONDS).clamp(1e-9, 1.0)
    };
    let cluster = Cluster::start(&herald, &dir, &postgres.url(), retry_scale).await?;
    let org = cluster.admin(&["org", "create", "--name", "Faults", "--plan", "enterprise"])?;
    let org_id = json_str(&org, "id")?;
    cluster.admin(&[
        "sender",
        "add",
        "--org",
        &org_id,
        "--number",
        "+15550001111",
        "--phone-number-id",
        "1000000001",
        "--waba-id",
        "2000000001",
        "--throughput",
        "1000",
    ])?;
    let key = json_str(&cluster.admin(&["key", "create", "--org", &org_id])?, "key")?;
    let receiver = Receiver::start()?;
    let mut suite = Suite {
        cluster,
        postgres,
        receiver,
        key,
        rate: args.rate,
    };
    suite.setup().await?;

    let mut passed = 0_u32;
    let mut failed = 0_u32;
    let mut record = |name: String, result: anyhow::Result<Vec<String>>| match result {
        Ok(problems) if problems.is_empty() => {
            passed += 1;
            println!("PASS {name}");
        }
        Ok(problems) => {
            failed += 1;
            println!("FAIL {name}");
            for problem in problems.iter().take(20) {
                println!("     {problem}");
            }
        }
        Err(error) => {
            failed += 1;
            println!("FAIL {name}: {error:#}");
        }
    };

    if args.rss_ceiling_mb > 0 {
        let result = hostile::memory_ceiling(&suite.cluster, &suite.key, args.rss_ceiling_mb).await;
        record(
            format!(
                "a burst of hostile requests under {} MiB resident",
                args.rss_ceiling_mb
            ),
            result,
        );
    }
    for trial in 1..=args.kill_trials {
        let (victim, result) = suite.kill_trial().await;
        record(
            format!("kill -9 trial {trial}/{} ({victim})", args.kill_trials),
            result,
        );
    }
    if args.pg_outage_seconds > 0 {
        let result = suite
            .postgres_outage(Duration::from_secs(args.pg_outage_seconds))
            .await;
        record(
            format!("PostgreSQL stopped for {} s", args.pg_outage_seconds),
            result,
        );
    }
    if args.network_outage_seconds > 0 {
        let result = suite.network_outage(args.network_outage_seconds).await;
        record(
            format!("network answering 503 for {} s", args.network_outage_seconds),
            result,
        );
    }
    if args.receiver_outage_seconds > 0 {
        let result = suite
            .receiver_outage(Duration::from_secs(args.receiver_outage_seconds), retry_scale)
            .await;
        record(
            format!(
                "customer receiver down for {} s (retry schedule × {retry_scale:.6})",
                args.receiver_outage_seconds
            ),
            result,
        );
    }
    drop(suite);
    if args.keep || failed > 0 {
        println!("logs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed)
}
