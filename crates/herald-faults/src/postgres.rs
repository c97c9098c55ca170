//! A PostgreSQL server of the suite's own: a fresh data directory on a free loopback port, so the
//! outage trial can stop and start it without touching anyone else's database.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Postgres {
    bin: PathBuf,
    data: PathBuf,
    socket_dir: PathBuf,
    log: PathBuf,
    pub port: u16,
    /// `initdb` refuses root: commands then run as this user (`runuser -u`).
    run_as: Option<String>,
}

impl Postgres {
    /// `initdb` under `dir` and start the server on `port`.
    pub fn create(bin: &Path, dir: &Path, port: u16) -> anyhow::Result<Self> {
        let run_as = is_root().then(|| "postgres".to_owned());
        let data = dir.join("pgdata");
        let socket_dir = dir.join("pgsocket");
        std::fs::create_dir_all(&socket_dir)?;
        if let Some(user) = &run_as {
            // The server's user must own its directories and reach them through the work directory.
            run(Command::new("chown").args(["-R", user]).arg(dir))?;
            run(Command::new("chmod").args(["755"]).arg(dir))?;
        }
        let postgres = Self {
            bin: bin.to_owned(),
            data,
            socket_dir,
            log: dir.join("postgres.log"),
            port,
            run_as,
        };
        postgres.tool(
            "initdb",
            &[
                "-D",
                &postgres.data.display().to_string(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        postgres.start()?;
        postgres.sql("postgres", "CREATE DATABASE herald")?;
        Ok(postgres)
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/herald", self.port)
    }

    pub fn start(&self) -> anyhow::Result<()> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200",
            self.port,
            self.socket_dir.display()
        );
        self.tool(
            "pg_ctl",
            &[
                "-D",
                &self.data.display().to_string(),
                "-l",
                &self.log.display().to_string(),
                "-o",
                &options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
        .map(|_| ())
    }

    /// A fast stop: clients are disconnected, open transactions rolled back.
    pub fn stop(&self) -> anyhow::Result<()> {
        self.tool(
            "pg_ctl",
            &["-D", &self.data.display().to_string(), "-m", "fast", "-w", "stop"],
        )
        .map(|_| ())
    }

    /// Runs one statement on `database` and returns the rows, one line each (`psql -At`).
    pub fn sql(&self, database: &str, statement: &str) -> anyhow::Result<Vec<String>> {
        let output = self.tool(
            "psql",
            &[
                "-X",
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-d",
                database,
                "-c",
                statement,
            ],
        )?;
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// One number from a `SELECT count(*) …`.
    pub fn count(&self, statement: &str) -> anyhow::Result<u64> {
        let rows = self.sql("herald", statement)?;
        rows.first()
            .context("no row")?
            .trim()
            .parse()
            .with_context(|| format!("not a count: {rows:?}"))
    }

    fn tool(&self, name: &str, args: &[&str]) -> anyhow::Result<Output> {
        let program = self.bin.join(name);
        let mut command = match &self.run_as {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(&program);
                command
            }
            None => Command::new(&program),
        };
        command.args(args).current_dir("/");
        run(&mut command).with_context(|| format!("{name} {args:?}"))
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.tool(
            "pg_ctl",
            &[
                "-D",
                &self.data.display().to_string(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
    }
}

fn run(command: &mut Command) -> anyhow::Result<Output> {
    let output = command.output().context("starting the command")?;
    if !output.status.success() {
        bail!(
            "failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The newest PostgreSQL under `/usr/lib/postgresql/*/bin`.
pub fn find_bin() -> anyhow::Result<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .context("no /usr/lib/postgresql: install PostgreSQL's server package")?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .context("no initdb under /usr/lib/postgresql/*/bin")
}
