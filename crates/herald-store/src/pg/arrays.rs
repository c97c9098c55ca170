//! Array binds encoded in one piece.
//!
//! diesel encodes an array bind element by element into a buffer that starts empty, so a column of a batch
//! is reallocated and copied once per doubling of its size, and an accept batch binds some forty columns:
//! about thirty reallocations per accept, an eighth of all its allocations. [`PgArray`] encodes
//! the column with postgres-protocol, the wire format tokio-postgres itself speaks, into a buffer the
//! thread keeps, and hands it to diesel in one write, which allocates diesel's buffer once at its size.

use bytes::BytesMut;
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{Array, BigInt, Binary, Bool, HasSqlType, Integer, Nullable, Text, Timestamptz};
use postgres_protocol::types as wire;
use std::cell::RefCell;
use std::io::Write as _;

type EncodeError = Box<dyn std::error::Error + Send + Sync>;

/// The values of one column, bound as a PostgreSQL array of `ST` (`Array<ST>`).
#[derive(Debug)]
pub(crate) struct PgArray<T>(pub(crate) Vec<T>);

/// A column of `rows`, as an array bind.
pub(crate) fn column<'a, R, T>(rows: &'a [R], f: impl Fn(&'a R) -> T) -> PgArray<T> {
    PgArray(rows.iter().map(f).collect())
}

/// A value that can be an element of an array of SQL type `ST`.
pub(crate) trait Element<ST> {
    /// Writes the element's binary form (without its length), or says it is NULL.
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError>;
}

impl<S: AsRef<str>> Element<Text> for S {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        wire::text_to_sql(self.as_ref(), buf);
        Ok(postgres_protocol::IsNull::No)
    }
}

impl Element<Binary> for &[u8] {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        wire::bytea_to_sql(self, buf);
        Ok(postgres_protocol::IsNull::No)
    }
}

impl Element<BigInt> for i64 {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        wire::int8_to_sql(*self, buf);
        Ok(postgres_protocol::IsNull::No)
    }
}

impl Element<Integer> for i32 {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        wire::int4_to_sql(*self, buf);
        Ok(postgres_protocol::IsNull::No)
    }
}

impl Element<Bool> for bool {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        wire::bool_to_sql(*self, buf);
        Ok(postgres_protocol::IsNull::No)
    }
}

/// PostgreSQL's epoch, 2000-01-01 00:00 UTC, in microseconds since the Unix epoch.
const PG_EPOCH_UNIX_MICROS: i64 = 946_684_800_000_000;

/// As diesel sends a `timestamptz`: microseconds since PostgreSQL's epoch.
impl Element<Timestamptz> for DateTime<Utc> {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        let micros = self
            .timestamp_micros()
            .checked_sub(PG_EPOCH_UNIX_MICROS)
            .ok_or("value too large to transmit")?;
        wire::timestamp_to_sql(micros, buf);
        Ok(postgres_protocol::IsNull::No)
    }
}

impl<ST, T: Element<ST>> Element<Nullable<ST>> for Option<T> {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        match self {
            Some(value) => value.encode(buf),
            None => Ok(postgres_protocol::IsNull::Yes),
        }
    }
}

thread_local! {
    /// Where a column is encoded before it is handed to diesel; it keeps its capacity between binds.
    static SCRATCH: RefCell<BytesMut> = RefCell::new(BytesMut::new());
}

/// The most a thread's scratch buffer keeps after a bind: an accept batch's columns stay well under it, and a
/// rare large one (a broadcast's 500 rows of content) is not held for the thread's life.
const SCRATCH_KEPT: usize = 256 * 1024;

impl<ST, T> ToSql<Array<ST>, Pg> for PgArray<T>
where
    Pg: HasSqlType<ST>,
    T: Element<ST> + std::fmt::Debug,
{
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        let element_type = <Pg as HasSqlType<ST>>::metadata(out.metadata_lookup()).oid()?;
        let dimension = wire::ArrayDimension {
            len: i32::try_from(self.0.len())?,
            lower_bound: 1,
        };
        let mut encode = |buf: &mut BytesMut| -> serialize::Result {
            buf.clear();
            wire::array_to_sql(
                Some(dimension),
                element_type,
                &self.0,
                |element, buf| element.encode(buf),
                buf,
            )?;
            out.write_all(buf)?;
            Ok(IsNull::No)
        };
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut buf) => {
                let encoded = encode(&mut buf);
                if buf.capacity() > SCRATCH_KEPT {
                    *buf = BytesMut::new();
                }
                encoded
            }
            // Never nested in practice; a buffer of its own keeps it correct if it were.
            Err(_) => encode(&mut BytesMut::new()),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "test code")]

    use super::*;
    use diesel::pg::{PgMetadataLookup, PgTypeMetadata};
    use diesel::query_builder::BindCollector as _;
    use diesel::query_builder::bind_collector::RawBytesBindCollector;

    /// Built-in types only: diesel never asks for them by name.
    struct NoLookup;
    impl PgMetadataLookup for NoLookup {
        fn lookup_type(&mut self, _: &str, _: Option<&str>) -> PgTypeMetadata {
            PgTypeMetadata::new(0, 0)
        }
    }

    /// The bytes diesel binds for `value` as `ST`.
    fn bound<ST, V: ToSql<ST, Pg>>(value: &V) -> Vec<u8>
    where
        Pg: HasSqlType<ST>,
    {
        let mut collector = RawBytesBindCollector::<Pg>::new();
        collector.push_bound_value::<ST, V>(value, &mut NoLookup).unwrap();
        collector.binds.pop().unwrap().unwrap()
    }

    fn same<ST: 'static, T>(values: Vec<T>)
    where
        Pg: HasSqlType<Array<ST>> + HasSqlType<ST>,
        T: Element<ST> + std::fmt::Debug + Clone + 'static,
        Vec<T>: ToSql<Array<ST>, Pg>,
    {
        let diesels = bound::<Array<ST>, _>(&values);
        let ours = bound::<Array<ST>, _>(&PgArray(values.clone()));
        assert_eq!(ours, diesels, "{values:?}");
    }

    /// A thread's scratch buffer is kept for the next bind when small, and let go when a column made it larger
    /// than [`SCRATCH_KEPT`]; either way the bytes bound are the column's.
    #[test]
    fn the_scratch_buffer_is_kept_only_up_to_its_limit() {
        let capacity = || SCRATCH.with(|scratch| scratch.borrow().capacity());
        let small = vec!["msg_01"; 16];
        assert_eq!(
            bound::<Array<Text>, _>(&PgArray(small.clone())),
            bound::<Array<Text>, _>(&small)
        );
        let kept = capacity();
        assert!(
            kept > 0 && kept <= SCRATCH_KEPT,
            "a small column's buffer is kept: {kept}"
        );

        let large = vec!["x".repeat(1024); SCRATCH_KEPT / 1024 + 8];
        assert_eq!(
            bound::<Array<Text>, _>(&PgArray(large.clone())),
            bound::<Array<Text>, _>(&large)
        );
        assert_eq!(capacity(), 0, "a column over the limit leaves no buffer behind");
    }

    #[test]
    fn columns_are_encoded_as_diesel_encodes_them() {
        same::<Text, _>(vec!["msg_01", "", "é ü 🎉"]);
        same::<Text, _>(vec!["a".repeat(5000), "b".to_owned()]);
        same::<Text, &str>(Vec::new());
        same::<BigInt, _>(vec![0_i64, -1, i64::MAX, i64::MIN]);
        same::<Integer, _>(vec![7_i32, -7]);
        same::<Bool, _>(vec![true, false]);
        same::<Binary, &[u8]>(vec![b"\x00\xff", b""]);
        let now = Utc::now();
        let old = DateTime::parse_from_rfc3339("1999-12-31T23:59:59.999999Z")
            .unwrap()
            .to_utc();
        same::<Timestamptz, _>(vec![now, old, DateTime::UNIX_EPOCH]);
    }

    /// What PostgreSQL reads from each kind of column, NULLs among the values, selected back and decoded by
    /// diesel: the same values.
    #[tokio::test]
    async fn postgresql_reads_back_every_column_as_written() {
        use diesel::sql_types::Nullable as N;
        #[derive(diesel::QueryableByName, Debug, PartialEq)]
        struct Back {
            #[diesel(sql_type = Array<N<Text>>)]
            texts: Vec<Option<String>>,
            #[diesel(sql_type = Array<N<Timestamptz>>)]
            stamps: Vec<Option<DateTime<Utc>>>,
            #[diesel(sql_type = Array<BigInt>)]
            bigs: Vec<i64>,
            #[diesel(sql_type = Array<N<Integer>>)]
            ints: Vec<Option<i32>>,
            #[diesel(sql_type = Array<N<Bool>>)]
            bools: Vec<Option<bool>>,
            #[diesel(sql_type = Array<Binary>)]
            bytes: Vec<Vec<u8>>,
            #[diesel(sql_type = Array<Text>)]
            empty: Vec<String>,
        }
        let Some((_guard, mut conn)) = crate::cached::tests::fresh_connection().await else {
            return;
        };
        let stamp = |text: &str| DateTime::parse_from_rfc3339(text).unwrap().to_utc();
        let stamps = vec![
            Some(stamp("2026-12-01T12:03:06.735123Z")),
            None,
            Some(stamp("1999-12-31T23:59:59.999999Z")),
        ];
        let back: Back = diesel_async::RunQueryDsl::get_result(
            diesel::sql_query(
                "SELECT $1::text[] AS texts, $2::timestamptz[] AS stamps, $3::int8[] AS bigs, \
                 $4::int4[] AS ints, $5::bool[] AS bools, $6::bytea[] AS bytes, $7::text[] AS empty",
            )
            .bind::<Array<N<Text>>, _>(PgArray(vec![Some("msg_1"), None, Some("é 🎉"), Some("")]))
            .bind::<Array<N<Timestamptz>>, _>(PgArray(stamps.clone()))
            .bind::<Array<BigInt>, _>(PgArray(vec![i64::MIN, 0, i64::MAX]))
            .bind::<Array<N<Integer>>, _>(PgArray(vec![None, Some(-7)]))
            .bind::<Array<N<Bool>>, _>(PgArray(vec![Some(true), None, Some(false)]))
            .bind::<Array<Binary>, _>(PgArray(vec![&b"\x00\xff"[..], b""]))
            .bind::<Array<Text>, _>(PgArray(Vec::<String>::new())),
            &mut conn,
        )
        .await
        .unwrap();
        assert_eq!(
            back,
            Back {
                texts: vec![
                    Some("msg_1".into()),
                    None,
                    Some("é 🎉".into()),
                    Some(String::new())
                ],
                stamps,
                bigs: vec![i64::MIN, 0, i64::MAX],
                ints: vec![None, Some(-7)],
                bools: vec![Some(true), None, Some(false)],
                bytes: vec![vec![0, 255], vec![]],
                empty: Vec::new(),
            }
        );
    }

    /// diesel writes the array's has-nulls flag as 0 whatever the elements; postgres-protocol sets it when
    /// one is NULL, as PostgreSQL itself does. Everything else is the same.
    #[test]
    fn nullable_columns_differ_from_diesels_only_in_the_has_nulls_flag() {
        let values = vec![Some("a"), None, Some("c")];
        let diesels = bound::<Array<Nullable<Text>>, _>(&values);
        let ours = bound::<Array<Nullable<Text>>, _>(&PgArray(values));
        assert_eq!(ours[4..8], [0, 0, 0, 1]);
        assert_eq!(diesels[4..8], [0, 0, 0, 0]);
        assert_eq!(ours[..4], diesels[..4]);
        assert_eq!(ours[8..], diesels[8..]);
        let stamps = vec![None, Some(Utc::now())];
        let diesels = bound::<Array<Nullable<Timestamptz>>, _>(&stamps);
        let ours = bound::<Array<Nullable<Timestamptz>>, _>(&PgArray(stamps));
        assert_eq!(ours[8..], diesels[8..]);
        let none: Vec<Option<&str>> = vec![Some("x")];
        assert_eq!(
            bound::<Array<Nullable<Text>>, _>(&PgArray(none.clone())),
            bound::<Array<Nullable<Text>>, _>(&none),
            "no NULL, no difference"
        );
    }
}
