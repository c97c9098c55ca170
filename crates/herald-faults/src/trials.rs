//! The trials of the fault suite and the checks each makes, on the run's shared parts.

use crate::load::{Load, Outcome};
use crate::postgres;
use crate::processes::{Cluster, Kind};
use crate::receiver::Receiver;
use anyhow::Context;
use rand::Rng as _;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// The run's shared parts.
pub(crate) struct Suite {
    pub(crate) cluster: Cluster,
    pub(crate) postgres: postgres::Postgres,
    pub(crate) receiver: Receiver,
    pub(crate) key: String,
    pub(crate) rate: u32,
}

pub(crate) fn json_str(value: &serde_json::Value, field: &str) -> anyhow::Result<String> {
    value
        .get(field)
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .with_context(|| format!("no {field} in {value}"))
}

impl Suite {
    /// Registers the customer's webhook endpoint and waits for the workers' template sync.
    pub(crate) async fn setup(&mut self) -> anyhow::Result<()> {
        let bases = self.cluster.api_bases();
        let base = bases.first().context("no API process")?;
        let response = self
            .cluster
            .client
            .post(format!("{base}/api/v1/webhooks"))
            .bearer_auth(&self.key)
            .json(&serde_json::json!({ "url": self.receiver.url() }))
            .send()
            .await?;
        anyhow::ensure!(
            response.status() == 201,
            "webhook endpoint not created: {}",
            response.text().await?
        );
        // The workers synced templates when they started, before the organization existed: sync now.
        let synced = self
            .cluster
            .client
            .post(format!("{base}/api/v1/templates/sync"))
            .bearer_auth(&self.key)
            .send()
            .await?;
        anyhow::ensure!(
            synced.status().is_success(),
            "template sync: {}",
            synced.text().await?
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let templates: serde_json::Value = self
                .cluster
                .client
                .get(format!("{base}/api/v1/templates"))
                .bearer_auth(&self.key)
                .send()
                .await?
                .json()
                .await?;
            if templates
                .get("data")
                .and_then(serde_json::Value::as_array)
                .is_some_and(|t| !t.is_empty())
            {
                return Ok(());
            }
            anyhow::ensure!(Instant::now() < deadline, "templates never synced: {templates}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub(crate) fn load(&self) -> Load {
        Load::start(
            &self.cluster.client,
            &self.cluster.api_bases(),
            &self.key,
            self.rate,
        )
    }

    /// Load; at a random moment `kill -9` of a random API or worker process, which is started again at
    /// once (as a supervisor would); a little more load; then the checks.
    pub(crate) async fn kill_trial(&mut self) -> (String, anyhow::Result<Vec<String>>) {
        let victim = rand::rng().random_range(0..self.cluster.processes.len());
        let name = self.cluster.name(victim);
        let result = async {
            self.cluster.revive_all().await?;
            let load = self.load();
            let before = Duration::from_millis(rand::rng().random_range(1_000..3_000));
            tokio::time::sleep(before).await;
            let process = self.cluster.processes.get_mut(victim).context("no victim")?;
            let kind = process.kind;
            process.kill9()?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            self.cluster.restart(victim).await?;
            tokio::time::sleep(Duration::from_secs(2)).await;
            let outcomes = load.stop().await;
            let mut problems = server_errors(&outcomes);
            let accepted = accepted_ids(&outcomes);
            if accepted.is_empty() {
                problems.push("nothing was accepted under load".into());
            }
            // A killed worker's claims return after the 20 s lease plus the 5 s callback wait.
            let drain = if kind == Kind::Worker { 90 } else { 60 };
            problems.extend(
                self.check_delivered(&accepted, Duration::from_secs(drain))
                    .await?,
            );
            println!(
                "     {} sends, {} accepted, {} without an answer (the killed process's)",
                outcomes.len(),
                accepted.len(),
                outcomes.iter().filter(|o| o.status.is_none()).count()
            );
            Ok(problems)
        }
        .await;
        (name, result)
    }

    /// PostgreSQL stopped under load: every send meanwhile answers `503 unavailable` with `Retry-After`
    /// (and none hangs), nothing half-written remains, and sends succeed again without a restart.
    pub(crate) async fn postgres_outage(&mut self, outage: Duration) -> anyhow::Result<Vec<String>> {
        self.cluster.revive_all().await?;
        let pids_before = self.process_ids();
        let load = self.load();
        tokio::time::sleep(Duration::from_secs(3)).await;
        self.postgres.stop()?;
        let down_at = Instant::now();
        tokio::time::sleep(outage).await;
        let restart_at = Instant::now();
        self.postgres.start()?;
        let up_at = Instant::now();
        // Recovered: a send begun after the restart is accepted.
        let deadline = up_at + Duration::from_secs(60);
        let recovery = loop {
            let outcome = Outcome::probe(&self.cluster.client, &self.cluster.api_bases(), &self.key).await;
            if outcome.status == Some(202) {
                break Some(up_at.elapsed());
            }
            if Instant::now() > deadline {
                break None;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        tokio::time::sleep(Duration::from_secs(2)).await;
        let outcomes = load.stop().await;

        let mut problems = Vec::new();
        match recovery {
            Some(after) => println!(
                "     sends accepted again {:.1} s after PostgreSQL was back",
                after.as_secs_f64()
            ),
            None => problems.push("sends were not accepted again within 60 s of PostgreSQL's return".into()),
        }
        // Sends begun while it was down: each answers 503 unavailable with Retry-After, or (begun just
        // before the restart and still waiting for a connection, up to the pool's 5 s) is accepted once it
        // is starting again.
        let during: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| o.started >= down_at && o.started < restart_at)
            .collect();
        let is_unavailable = |o: &Outcome| {
            o.status == Some(503) && o.code.as_deref() == Some("unavailable") && o.retry_after.is_some()
        };
        let unavailable = during.iter().filter(|o| is_unavailable(o)).count();
        let accepted_once_back = |o: &Outcome| o.status == Some(202) && o.started + o.elapsed >= restart_at;
        let accepted_after = during.iter().filter(|o| accepted_once_back(o)).count();
        println!(
            "     {} sends begun while PostgreSQL was down: {unavailable} answered 503 unavailable with Retry-After, \
             {accepted_after} waited and were accepted after its return; slowest {:.2} s",
            during.len(),
            during.iter().map(|o| o.elapsed.as_secs_f64()).fold(0.0, f64::max)
        );
        if unavailable == 0 {
            problems.push("no send answered 503 while PostgreSQL was down".into());
        }
        for o in during
            .iter()
            .filter(|o| !(is_unavailable(o) || accepted_once_back(o)))
        {
            problems.push(format!(
                "while PostgreSQL was down, a send answered {:?} code {:?} Retry-After {:?} {}",
                o.status,
                o.code,
                o.retry_after,
                o.error.as_deref().unwrap_or("")
            ));
        }
        for o in outcomes.iter().filter(|o| o.elapsed > Duration::from_secs(10)) {
            problems.push(format!("a send hung for {:.1} s", o.elapsed.as_secs_f64()));
        }
        problems.extend(server_errors_except_503(&outcomes));
        if self.process_ids() != pids_before {
            problems.push("a Herald process exited during the outage".into());
        }
        let accepted = accepted_ids(&outcomes);
        problems.extend(self.check_delivered(&accepted, Duration::from_secs(90)).await?);
        problems.extend(self.check_nothing_half_written(&outcomes)?);
        Ok(problems)
    }

    /// The network answers every send with 503 for a while: messages wait (none fails, none reaches the
    /// network), then all go, exactly once.
    pub(crate) async fn network_outage(&mut self, seconds: u64) -> anyhow::Result<Vec<String>> {
        self.cluster.revive_all().await?;
        let load = self.load();
        tokio::time::sleep(Duration::from_secs(1)).await;
        self.cluster.network_fault(503, seconds).await?;
        let fault_at = Instant::now();
        // Sends already on the wire when the fault began may still land.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let sent_early = self.total_sent().await?;
        let failed_before = self
            .postgres
            .count("SELECT count(*) FROM messages WHERE status = 'failed'")?;
        tokio::time::sleep(
            Duration::from_secs(seconds).saturating_sub(fault_at.elapsed() + Duration::from_millis(500)),
        )
        .await;
        let sent_late = self.total_sent().await?;
        let waiting = self
            .postgres
            .count("SELECT count(*) FROM messages WHERE status = 'accepted'")?;
        let failed_after = self
            .postgres
            .count("SELECT count(*) FROM messages WHERE status = 'failed'")?;
        let outcomes = load.stop().await;

        let mut problems = server_errors(&outcomes);
        println!(
            "     {waiting} messages waiting at the end of the outage; sent list {sent_early} → {sent_late} during it"
        );
        if sent_late != sent_early {
            problems.push(format!(
                "the network took {} sends during the outage",
                sent_late.saturating_sub(sent_early)
            ));
        }
        if waiting == 0 {
            problems.push("no message was waiting during the outage".into());
        }
        if failed_after != failed_before {
            problems.push(format!(
                "{} messages failed during the outage",
                failed_after.saturating_sub(failed_before)
            ));
        }
        let accepted = accepted_ids(&outcomes);
        // The dispatch backoff doubles from 0.5 s: after an outage of S seconds a message waits at most ~S more.
        let drain = Duration::from_secs(seconds * 2 + 60);
        problems.extend(self.check_delivered(&accepted, drain).await?);
        Ok(problems)
    }

    /// The customer's receiver is down while events keep coming: every event is delivered once it is back.
    pub(crate) async fn receiver_outage(
        &mut self,
        outage: Duration,
        scale: f64,
    ) -> anyhow::Result<Vec<String>> {
        self.cluster.revive_all().await?;
        self.receiver.down().await;
        let down_at = Instant::now();
        // A light load: each event is retried on the compressed schedule the whole time.
        let saved_rate = self.rate;
        self.rate = self.rate.clamp(1, 5);
        let load = self.load();
        self.rate = saved_rate;
        tokio::time::sleep(outage).await;
        let outcomes = load.stop().await;
        let pending = self
            .postgres
            .count("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")?;
        self.receiver.up()?;
        println!(
            "     receiver back after {:.0} s with {pending} deliveries pending",
            down_at.elapsed().as_secs_f64()
        );
        let mut problems = server_errors(&outcomes);
        let accepted = accepted_ids(&outcomes);
        // The last gap of the compressed schedule is 10 h × scale (plus 20 % jitter).
        let last_gap = Duration::from_secs_f64(36_000.0 * scale * 1.2);
        problems.extend(
            self.check_delivered(&accepted, last_gap + Duration::from_secs(90))
                .await?,
        );
        let failed = self
            .postgres
            .count("SELECT count(*) FROM webhook_deliveries WHERE status = 'failed'")?;
        if failed > 0 {
            problems.push(format!("{failed} deliveries ran out of attempts"));
        }
        Ok(problems)
    }

    pub(crate) fn process_ids(&mut self) -> Vec<bool> {
        self.cluster
            .processes
            .iter_mut()
            .map(crate::processes::Process::alive)
            .collect()
    }

    pub(crate) async fn total_sent(&self) -> anyhow::Result<usize> {
        Ok(self.cluster.sent_counts().await?.values().sum())
    }

    /// Every accepted message reaches the network exactly once (and no message twice), no message is left
    /// waiting, and every customer event in the database reaches the receiver.
    pub(crate) async fn check_delivered(
        &self,
        accepted: &[String],
        within: Duration,
    ) -> anyhow::Result<Vec<String>> {
        let began = Instant::now();
        let deadline = began + within;
        let mut problems = Vec::new();
        let counts = loop {
            let counts = self.cluster.sent_counts().await?;
            let waiting = self
                .postgres
                .count("SELECT count(*) FROM messages WHERE status = 'accepted'")?;
            if waiting == 0 && accepted.iter().all(|id| counts.contains_key(id)) {
                break counts;
            }
            if Instant::now() > deadline {
                problems.push(format!(
                    "after {} s, {waiting} messages still accepted and {} accepted messages never reached the network",
                    within.as_secs(),
                    accepted.iter().filter(|id| !counts.contains_key(*id)).count()
                ));
                break counts;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        let sent_after = began.elapsed();
        for (id, copies) in &counts {
            if *copies > 1 {
                problems.push(format!("{id} reached the network {copies} times"));
            }
        }
        // Status callbacks trail the sends by up to a few hundred milliseconds.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let events_deadline = Instant::now() + within.max(Duration::from_secs(30));
        loop {
            let events: HashSet<String> = self
                .postgres
                .sql("herald", "SELECT id FROM events")?
                .into_iter()
                .collect();
            let received = self.receiver.received();
            let missing = events.difference(&received).count();
            if missing == 0 {
                println!(
                    "     drained: every message at the network after {:.1} s, all {} events at the receiver after {:.1} s",
                    sent_after.as_secs_f64(),
                    events.len(),
                    began.elapsed().as_secs_f64()
                );
                break;
            }
            if Instant::now() > events_deadline {
                problems.push(format!(
                    "{missing} of {} events never reached the receiver",
                    events.len()
                ));
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        Ok(problems)
    }

    /// Nothing half-written: every message has its first status event and its outbox job, and no refused
    /// send left a message behind.
    pub(crate) fn check_nothing_half_written(&self, outcomes: &[Outcome]) -> anyhow::Result<Vec<String>> {
        let mut problems = Vec::new();
        let orphans = self.postgres.count(
            "SELECT count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id) \
             OR NOT EXISTS (SELECT 1 FROM message_events e WHERE e.message_id = m.id)",
        )?;
        if orphans > 0 {
            problems.push(format!(
                "{orphans} messages without their outbox job or first event"
            ));
        }
        let stored: HashSet<String> = self
            .postgres
            .sql("herald", "SELECT to_number FROM messages")?
            .into_iter()
            .map(|n| n.chars().filter(char::is_ascii_digit).collect())
            .collect();
        let refused_but_stored = outcomes
            .iter()
            .filter(|o| o.status.is_some_and(|s| s >= 400))
            .filter(|o| stored.contains(&o.to.chars().filter(char::is_ascii_digit).collect::<String>()))
            .count();
        if refused_but_stored > 0 {
            problems.push(format!(
                "{refused_but_stored} refused sends left a message behind"
            ));
        }
        Ok(problems)
    }
}

pub(crate) fn accepted_ids(outcomes: &[Outcome]) -> Vec<String> {
    outcomes.iter().filter_map(|o| o.message_id.clone()).collect()
}

/// Answers that are neither a 202 nor the absence of an answer (a killed process).
pub(crate) fn server_errors(outcomes: &[Outcome]) -> Vec<String> {
    outcomes
        .iter()
        .filter(|o| o.status.is_some_and(|s| s != 202))
        .map(|o| format!("a send answered {:?} {:?}", o.status, o.code))
        .collect()
}

pub(crate) fn server_errors_except_503(outcomes: &[Outcome]) -> Vec<String> {
    outcomes
        .iter()
        .filter(|o| o.status.is_some_and(|s| s != 202 && s != 503))
        .map(|o| format!("a send answered {:?} {:?}", o.status, o.code))
        .collect()
}
