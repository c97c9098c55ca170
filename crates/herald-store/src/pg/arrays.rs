//! Array binds encoded in one piece.
//!
//! diesel encodes an array bind element by element into a buffer that starts empty, so a column of a batch
//! is reallocated and copied once per doubling of its size, and an accept batch binds some forty columns:
//! about thirty reallocations per accept, an eighth of all its allocations (issue 18). [`PgArray`] encodes
//! the column with postgres-protocol, the wire format tokio-postgres itself speaks, into a buffer the
//! thread keeps, and hands it to diesel in one write, which allocates diesel's buffer once at its size.

use bytes::BytesMut;
use chrono::{DateTime, NaiveDate, Utc};
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

impl Element<Text> for &str {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        wire::text_to_sql(self, buf);
        Ok(postgres_protocol::IsNull::No)
    }
}

impl Element<Text> for String {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        wire::text_to_sql(self, buf);
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

/// As diesel sends a `timestamptz`: microseconds since 2000-01-01 00:00 UTC.
impl Element<Timestamptz> for DateTime<Utc> {
    fn encode(&self, buf: &mut BytesMut) -> Result<postgres_protocol::IsNull, EncodeError> {
        let epoch = NaiveDate::from_ymd_opt(2000, 1, 1)
            .and_then(|day| day.and_hms_opt(0, 0, 0))
            .ok_or("the PostgreSQL epoch")?;
        let micros = self
            .naive_utc()
            .signed_duration_since(epoch)
            .num_microseconds()
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
