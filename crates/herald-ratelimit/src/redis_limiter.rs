//! The send-rate limiter shared by several Herald processes, in Redis.

use crate::gcra::{self, Params, Step};
use anyhow::Context as _;
use async_trait::async_trait;
use herald_domain::ids::OrganizationId;
use herald_domain::organization::Plan;
use herald_domain::ports::{RateDecision, RateLimiter, StoreError};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{ErrorKind, RedisError, Script, ServerErrorKind};
use std::time::Duration;

/// The GCRA check, one atomic script per call (see the comments inside).
const SCRIPT: &str = include_str!("gcra.lua");

/// Where buckets live unless told otherwise: `herald:rl:org_…`.
pub const DEFAULT_KEY_PREFIX: &str = "herald:rl:";

/// How long one check may take, reconnecting included, before the store counts as unavailable: a send
/// should get a quick `503` rather than hang while Redis is away.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// GCRA per organization in Redis, so that every process draws from the same buckets.
///
/// Each check is one Lua script run atomically by Redis, on Redis's own clock (`TIME`), so processes
/// with skewed clocks still agree. A bucket is a hash `{tat, interval}` at `<prefix><organization id>`
/// that expires once it is full again. Decisions are the same as [`crate::InProcessRateLimiter`]'s,
/// plan changes included.
#[derive(Clone)]
pub struct RedisRateLimiter {
    connection: ConnectionManager,
    script: Script,
    prefix: String,
}

impl std::fmt::Debug for RedisRateLimiter {
    // The connection's details may include the URL's password: show only the prefix.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimiter")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisRateLimiter {
    /// Connects to Redis at `url` (`redis://[:password@]host:port[/db]`) and loads the script. The
    /// connection reconnects by itself afterwards; must run inside a Tokio runtime.
    ///
    /// # Errors
    /// When the URL is invalid, Redis cannot be reached, or it refuses the script.
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        // The URL may hold a password: it is never put into an error.
        let client = redis::Client::open(url).context("the Redis URL is invalid")?;
        // Few, short retries: a start against a missing Redis fails within a second instead of ten,
        // and after an outage each check that finds the connection broken starts a new round anyway.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CHECK_TIMEOUT))
            .set_response_timeout(Some(CHECK_TIMEOUT))
            .set_number_of_retries(3)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(500));
        let mut connection = ConnectionManager::new_with_config(client, config)
            .await
            .context("cannot connect to Redis for rate limiting")?;
        let script = Script::new(SCRIPT);
        script
            .load_async(&mut connection)
            .await
            .context("Redis refused the rate-limit script")?;
        Ok(Self {
            connection,
            script,
            prefix: DEFAULT_KEY_PREFIX.to_owned(),
        })
    }

    /// Keeps buckets under `prefix` instead of [`DEFAULT_KEY_PREFIX`] (tests, or several Herald
    /// deployments sharing one Redis).
    #[must_use]
    pub fn with_key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The Redis key of `organization`'s bucket.
    pub fn key(&self, organization: &OrganizationId) -> String {
        format!("{}{organization}", self.prefix)
    }

    /// Runs the script; `peek` makes it decide without writing the bucket.
    async fn run(&self, key: String, params: Params, cost: u32, peek: bool) -> Result<Step, StoreError> {
        let mut connection = self.connection.clone();
        let mut invocation = self.script.key(key);
        invocation
            .arg(cost)
            .arg(params.interval_us)
            .arg(params.burst)
            .arg(u8::from(peek));
        let reply: Vec<i64> = tokio::time::timeout(CHECK_TIMEOUT, invocation.invoke_async(&mut connection))
            .await
            .map_err(|_| StoreError::Unavailable("Redis did not answer the rate-limit check in time".into()))?
            .map_err(store_error)?;
        let debt = |value: i64| {
            u64::try_from(value).map_err(|_| {
                StoreError::Unknown(anyhow::anyhow!("the rate-limit script returned a negative debt"))
            })
        };
        match reply.as_slice() {
            [1, debt_us] => Ok(Step::Allowed {
                debt_us: debt(*debt_us)?,
            }),
            [0, debt_us] => Ok(Step::Limited {
                debt_us: debt(*debt_us)?,
            }),
            other => Err(StoreError::Unknown(anyhow::anyhow!(
                "the rate-limit script returned {other:?}"
            ))),
        }
    }
}

#[async_trait]
impl RateLimiter for RedisRateLimiter {
    /// # Errors
    /// [`StoreError::Unavailable`] when Redis cannot be reached or does not answer within 2 s;
    /// [`StoreError::Unknown`] when it answers something unexpected.
    async fn check(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError> {
        let Some(params) = Params::from_plan(plan) else {
            return Ok(gcra::blocked(plan.burst));
        };
        let step = self.run(self.key(organization), params, cost, false).await?;
        Ok(gcra::decision(params, cost, step))
    }

    /// # Errors
    /// As [`RateLimiter::check`].
    async fn peek(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError> {
        let Some(params) = Params::from_plan(plan) else {
            return Ok(gcra::blocked(plan.burst));
        };
        let step = self.run(self.key(organization), params, cost, true).await?;
        Ok(gcra::decision(params, cost, step))
    }

    /// The same connection, its buckets at `<prefix><purpose>:<organization id>`.
    fn apart(&self, purpose: &'static str) -> std::sync::Arc<dyn RateLimiter> {
        std::sync::Arc::new(self.clone().with_key_prefix(format!("{}{purpose}:", self.prefix)))
    }
}

/// Sorts a Redis failure into "try again later" and "something is wrong".
fn store_error(error: RedisError) -> StoreError {
    let transient = error.is_io_error()
        || error.is_timeout()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || matches!(
            error.kind(),
            ErrorKind::Server(
                ServerErrorKind::BusyLoading
                    | ServerErrorKind::TryAgain
                    | ServerErrorKind::ClusterDown
                    | ServerErrorKind::MasterDown
                    | ServerErrorKind::ReadOnly
            )
        );
    if transient {
        StoreError::Unavailable(format!("Redis: {error}"))
    } else {
        StoreError::Unknown(anyhow::Error::new(error).context("rate-limit check in Redis"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_failures_are_unavailable_and_script_errors_unknown() {
        let io = RedisError::from(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert!(matches!(store_error(io), StoreError::Unavailable(_)));
        let loading = RedisError::from((ErrorKind::Server(ServerErrorKind::BusyLoading), "loading"));
        assert!(matches!(store_error(loading), StoreError::Unavailable(_)));
        let script = RedisError::from((ErrorKind::Server(ServerErrorKind::ResponseError), "bad"));
        assert!(matches!(store_error(script), StoreError::Unknown(_)));
    }
}
