//! `herald`: bootstraps only — configuration, telemetry, store, then the chosen command.

use anyhow::Context;
use clap::Parser;
use herald_app::cli::{Cli, Command, Role};
use herald_app::config::Settings;
use herald_app::{Application, Services, admin, demo, telemetry};

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = actix_web::rt::System::new().block_on(run(cli));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let settings = Settings::load(cli.config.as_deref())?;
    match cli.command {
        Command::Serve(args) => {
            telemetry::init(settings.log_format);
            tracing::info!(config = %settings.redacted(), role = ?args.role, "starting herald");
            let services = Services::connect(&settings).await?;
            if settings.migrate_on_start {
                services.store.migrate().await.context("running migrations")?;
            }
            let seeded = if args.demo {
                demo::seed_if_empty(&services).await?
            } else {
                None
            };
            if args.role == Role::Worker {
                tracing::info!("no background work runs in this version yet; waiting for a shutdown signal");
                tokio::signal::ctrl_c().await?;
                return Ok(());
            }
            let app = Application::build(&settings, &services)?;
            let base_url = format!("http://{}", display_addr(&settings.listen, app.port()));
            match seeded {
                Some(demo) => print_out(&demo::banner(&demo, &base_url)),
                None if args.demo => print_out(
                    "\nThe store already has organizations, so no demo was seeded. Make a new key with:\n  \
                     herald admin org list\n  herald admin key create --org <org_id>\n",
                ),
                None => {}
            }
            tracing::info!(%base_url, "listening");
            app.run_until_stopped().await?;
            tracing::info!("stopped");
            Ok(())
        }
        Command::Migrate => {
            telemetry::init(settings.log_format);
            let services = Services::connect(&settings).await?;
            services.store.migrate().await?;
            println!("migrations applied");
            Ok(())
        }
        Command::Admin(args) => {
            let services = Services::connect(&settings).await?;
            if settings.migrate_on_start {
                services.store.migrate().await.context("running migrations")?;
            }
            let output = admin::run(&services, args).await?;
            println!("{output}");
            Ok(())
        }
    }
}

/// `127.0.0.1:0` with the bound port, for printing.
fn display_addr(listen: &str, port: u16) -> String {
    let host = listen.rsplit_once(':').map_or(listen, |(host, _)| host);
    let host = if host == "0.0.0.0" || host.is_empty() {
        "127.0.0.1"
    } else {
        host
    };
    format!("{host}:{port}")
}

/// Writes to stdout without panicking when nobody reads it any more: a closed pipe must not stop a server.
fn print_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}
