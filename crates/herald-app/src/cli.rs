//! The command line of docs/api.md §12.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "herald",
    version,
    about = "Herald: official WhatsApp messaging over a REST API"
)]
pub struct Cli {
    /// Configuration file (default: ./herald.toml when it exists).
    #[arg(long, global = true, env = "HERALD_CONFIG")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server.
    Serve(ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate,
    /// Operator commands: organizations, senders, keys.
    Admin(AdminArgs),
    /// Run the Cloud API simulator alone (the network stand-in).
    Simulator(SimulatorArgs),
}

#[derive(Debug, Args)]
pub struct SimulatorArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub listen: String,
    /// Where status and inbound callbacks go (Herald's `/webhooks/whatsapp`).
    #[arg(long)]
    pub callback: Option<String>,
    /// Signs the callbacks; must equal Herald's HERALD_APP_SECRET.
    #[arg(
        long,
        env = "HERALD_APP_SECRET",
        default_value = "simulator-app-secret",
        hide_env_values = true
    )]
    pub app_secret: String,
    /// The access token it accepts.
    #[arg(
        long,
        env = "HERALD_SIMULATOR_TOKEN",
        default_value = "simulator-token",
        hide_env_values = true
    )]
    pub token: String,
    /// Messages per second each sender may send before the throughput error.
    #[arg(long, default_value_t = 1_000)]
    pub throughput: u32,
    /// Business numbers served beside the two seeded ones, for benchmarks: `+15550003001` (phone number
    /// id `1000000003`), `+15550003002` (`1000000004`), … on the seeded business account.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=i64::from(herald_simulator::MAX_EXTRA_SENDERS)))]
    pub extra_senders: u32,
    /// How long a created or edited template stays `PENDING` before the simulator's review decides.
    #[arg(long, default_value_t = 1_000)]
    pub template_review_ms: u64,
}

/// Which parts of Herald a process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Role {
    /// The API and the background workers.
    All,
    /// Only the HTTP API.
    Api,
    /// Only the background workers.
    Worker,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[arg(long, value_enum, default_value_t = Role::All)]
    pub role: Role,
    /// On an empty store, create a demo organization and print its API key and a ready `curl` line.
    #[arg(long)]
    pub demo: bool,
}

#[derive(Debug, Args)]
pub struct AdminArgs {
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: AdminCommand,
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Organizations.
    #[command(subcommand)]
    Org(OrgCommand),
    /// Sender numbers.
    #[command(subcommand)]
    Sender(SenderCommand),
    /// API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// The organization owner's dashboard login.
    #[command(subcommand)]
    Owner(OwnerCommand),
    /// An organization's rate card: the price per message of each pricing category, for estimated costs.
    #[command(subcommand)]
    Rate(RateCommand),
    /// The network's stored callbacks that failed repeatedly and were parked.
    #[command(subcommand)]
    Callbacks(CallbacksCommand),
    /// Data past its plan's retention.
    #[command(subcommand)]
    Retention(RetentionCommand),
    /// Seal every stored access token and webhook secret still in the legacy form again, bound to its row
    /// (run once after upgrading; safe to run again and while Herald runs).
    Reseal,
}

#[derive(Debug, Subcommand)]
pub enum RetentionCommand {
    /// Remove now what is past its plan's retention, as the worker does every `retention_interval_seconds`
    /// (`retention_batch` messages per transaction, paced by `retention_pause_ms` and
    /// `retention_busy_percent`), until nothing more is due or `--seconds` have passed; prints the rows removed
    /// per table. Safe while Herald runs.
    Sweep {
        /// Stop after this many seconds even if more is due (a later sweep goes on from there).
        #[arg(long)]
        seconds: Option<u64>,
    },
}

#[derive(Debug, Subcommand)]
pub enum CallbacksCommand {
    /// List the parked callbacks, oldest first, with their attempts and last error.
    List {
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Put every parked callback back into the backlog (once what made them fail is fixed); the workers'
    /// next sweep processes them.
    Requeue,
}

#[derive(Debug, Subcommand)]
pub enum RateCommand {
    /// Set (or replace) the price of one billable message of a category.
    Set {
        #[arg(long)]
        org: String,
        /// The network's pricing category: `marketing`, `utility`, `authentication`, `service`, …
        /// Without a `service` rate, service messages (billed since 2026-10-01) take the `utility` rate.
        #[arg(long)]
        category: String,
        /// A decimal amount of at most 6 decimals, e.g. `0.0147`.
        #[arg(long)]
        amount: String,
        /// ISO 4217, e.g. `EUR`; one currency per organization.
        #[arg(long)]
        currency: String,
    },
    /// Remove the price of a category.
    Remove {
        #[arg(long)]
        org: String,
        #[arg(long)]
        category: String,
    },
    /// Import Meta's rate card by market: a CSV file with the header
    /// `Market,Currency,Marketing,Utility,Authentication,Authentication-International,Service` (lines before
    /// it starting with `#` are notes; an empty cell or `n/a` is no rate; one currency per file). It holds
    /// from `--effective` on, replacing a card imported for the same day. A faulty file is refused whole,
    /// naming its line and column.
    Import {
        /// The CSV file.
        file: std::path::PathBuf,
        /// The first UTC day the card applies, `YYYY-MM-DD` (Meta's announced date).
        #[arg(long)]
        effective: String,
    },
    /// List the market rate card in force on a day (imported with `rate import`).
    Markets {
        /// A UTC day, `YYYY-MM-DD`.
        #[arg(long)]
        on: String,
    },
    /// List an organization's rates.
    List {
        #[arg(long)]
        org: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum OwnerCommand {
    /// Set the owner's dashboard password, read from standard input (never an argument: arguments show in
    /// `ps` and in shell history). Ends the owner's open sessions.
    SetPassword {
        #[arg(long)]
        org: String,
        /// The owner email given at `org create --owner-email`.
        #[arg(long)]
        email: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum OrgCommand {
    /// Create an organization; prints its id.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, default_value = "trial")]
        plan: String,
        #[arg(long)]
        owner_email: Option<String>,
    },
    /// Stop an organization: every call answers `account_inactive`.
    Suspend { org_id: String },
    /// Let a suspended organization in again.
    Activate { org_id: String },
    /// Close an organization for good.
    Close { org_id: String },
    /// Move an organization to another plan.
    SetPlan { org_id: String, plan: String },
    /// List organizations.
    List,
}

#[derive(Debug, Subcommand)]
pub enum SenderCommand {
    /// Register a business number.
    Add {
        #[arg(long)]
        org: String,
        #[arg(long)]
        number: String,
        #[arg(long)]
        phone_number_id: String,
        #[arg(long)]
        waba_id: String,
        /// Environment variable holding this number's access token.
        #[arg(long, conflicts_with = "access_token_stdin")]
        access_token_env: Option<String>,
        /// Read this number's access token from standard input and store it encrypted. Never pass a token
        /// as an argument: arguments show in `ps` and in shell history.
        #[arg(long)]
        access_token_stdin: bool,
        /// Make it the organization's default sender.
        #[arg(long)]
        default: bool,
        /// Messages per second the network allows this number.
        #[arg(long, default_value_t = 80)]
        throughput: u32,
        /// Share the business account (`--waba-id`) with the organization that already has it, on purpose.
        /// Without it, a business account of another organization is refused: one organization per WABA.
        /// Shared, each of them receives the account's template and account notices, and a template is
        /// edited or deleted only through the organization that created it (docs/operations.md).
        #[arg(long)]
        shared_waba: bool,
    },
    /// List an organization's senders.
    List {
        #[arg(long)]
        org: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Create a key; prints it once.
    Create {
        #[arg(long)]
        org: String,
        #[arg(long)]
        name: Option<String>,
    },
    /// List an organization's keys (never the secrets).
    List {
        #[arg(long)]
        org: String,
    },
    /// Disable a key; running servers refuse it within a second (their read cache's lifetime).
    Disable { key_id: String },
}
