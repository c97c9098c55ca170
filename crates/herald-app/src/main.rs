//! `herald`: bootstraps only — configuration, telemetry, store, then the chosen command.

use anyhow::Context;
use clap::Parser;
use herald_app::cli::{Cli, Command};
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
    if let Command::Simulator(args) = &cli.command {
        let telemetry = telemetry::init(herald_app::config::LogFormat::Text, None, "simulator")?;
        let result = simulator(args).await;
        telemetry.shutdown();
        return result;
    }
    let settings = Settings::load(cli.config.as_deref())?;
    match cli.command {
        Command::Serve(args) => {
            let role = format!("{:?}", args.role).to_lowercase();
            let telemetry = telemetry::init(
                settings.telemetry.log_format,
                settings.telemetry.otlp_endpoint.as_deref(),
                &role,
            )?;
            tracing::info!(config = %settings.redacted(), role = ?args.role, "starting herald");
            let mut services = Services::connect(&settings).await?;
            if args.role == herald_app::cli::Role::All {
                services.key_file_for_one_process(&settings)?;
            }
            if settings.store.migrate_on_start {
                services.store.migrate().await.context("running migrations")?;
            }
            let seeded = if args.demo {
                demo::seed_if_empty(&services, &settings).await?
            } else {
                None
            };
            let app = Application::build(&settings, &services, args.role)?;
            if let Some(port) = app.port() {
                let base_url = format!(
                    "http://{}",
                    herald_app::display_addr(&settings.server.listen, port)
                );
                tracing::info!(%base_url, "listening");
                match seeded {
                    Some(demo) => {
                        // The demo's templates come from the network, like any organization's.
                        if let Err(error) = app.sync_templates_now().await {
                            tracing::warn!(%error, "template sync failed");
                        }
                        print_out(&demo::banner(&demo, &base_url));
                    }
                    None if args.demo => print_out(
                        "\nThe store already has organizations, so no demo was seeded. Make a new key with:\n  \
                         herald admin org list\n  herald admin key create --org <org_id>\n",
                    ),
                    None => {}
                }
            }
            let stopped = app.run_until_stopped().await;
            tracing::info!("stopped");
            telemetry.shutdown();
            stopped
        }
        Command::Migrate => {
            let _telemetry = telemetry::init(settings.telemetry.log_format, None, "migrate")?;
            let services = Services::connect(&settings).await?;
            services.store.migrate().await?;
            println!("migrations applied");
            Ok(())
        }
        Command::Admin(args) => {
            let services = Services::connect(&settings).await?;
            if settings.store.migrate_on_start {
                services.store.migrate().await.context("running migrations")?;
            }
            match admin::run_with(&services, &settings, args).await {
                Ok(output) => {
                    println!("{output}");
                    Ok(())
                }
                Err(error) => {
                    // What was done is still reported before the failure.
                    if let Some(incomplete) = error.downcast_ref::<admin::Incomplete>() {
                        println!("{}", incomplete.output);
                    }
                    Err(error)
                }
            }
        }
        Command::Simulator(_) => Ok(()),
    }
}

/// `herald simulator`: the network stand-in alone, for tests of the real Cloud API client.
async fn simulator(args: &herald_app::cli::SimulatorArgs) -> anyhow::Result<()> {
    let simulator = herald_simulator::Simulator::new(herald_simulator::SimulatorConfig {
        access_token: args.token.clone(),
        app_secret: args.app_secret.clone(),
        callback_url: args.callback.clone(),
        throughput_per_sender: args.throughput,
        extra_senders: args.extra_senders,
        template_review_ms: args.template_review_ms,
        ..herald_simulator::SimulatorConfig::default()
    });
    let (server, port) = herald_simulator::standalone(&args.listen, simulator)?;
    print_out(&format!(
        "simulator listening on http://{}/simulator (Graph API paths and /simulator/control/…)",
        herald_app::display_addr(&args.listen, port)
    ));
    server.await?;
    Ok(())
}

/// Writes to stdout without panicking when nobody reads it any more: a closed pipe must not stop a server.
fn print_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}
