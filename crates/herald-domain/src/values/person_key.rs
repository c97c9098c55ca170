//! One person, one number: the national variants that WhatsApp treats as one account reduced to one key
//! (docs/cloud-api.md §4.6 has the facts and their sources).
//!
//! Three countries write one mobile number two ways, and the network's `wa_id` for a person may be either
//! form depending on when the account was made; a send to the other form may still reach them. Herald keeps
//! a contact (its stop, its block) under one key per person, so that a stop recorded under the `wa_id` is met
//! by a send to the other form, and the other way round. Sends are not rewritten: the key is only how a
//! contact is stored and found.
//!
//! | country | variants | key |
//! |---|---|---|
//! | Mexico `+52` | `+52` + 10 digits, `+52 1` + the same 10 digits (the old mobile prefix) | `+52 1` + 10 digits |
//! | Argentina `+54` | `+54` + 10 digits, `+54 9` + the same 10 digits (the mobile prefix) | `+54 9` + 10 digits |
//! | Brazil `+55` | `+55` + area + 8 digits from 6 to 9, `+55` + area + `9` + those 8 (the ninth digit) | without the `9` |
//!
//! Everything else is its own key. Each rule is a bijection between two shapes that no other number has
//! (the lengths differ, and the digit that is added or removed is fixed), so two different people never share
//! a key: Mexico's national numbers never begin with 1, Argentina's never with 9, and a Brazilian number of 8
//! digits beginning with 6 to 9 is a mobile that became the 9-prefixed one (landlines begin with 2 to 5).

use super::PhoneNumber;

/// Mexico's country code and its old mobile prefix.
const MEXICO: &str = "52";
const MEXICO_MOBILE: char = '1';
/// Argentina's country code and the prefix of its mobiles in international form.
const ARGENTINA: &str = "54";
const ARGENTINA_MOBILE: char = '9';
/// Brazil's country code and its ninth digit.
const BRAZIL: &str = "55";
const BRAZIL_NINTH: char = '9';
/// The national numbers of Mexico and Argentina without their mobile prefix.
const NATIONAL_DIGITS: usize = 10;
/// A Brazilian mobile's subscriber number without the ninth digit.
const BRAZIL_SUBSCRIBER_DIGITS: usize = 8;

impl PhoneNumber {
    /// The key Herald keeps this person's contact under: the number itself, or, for a national variant of
    /// Mexico, Argentina or Brazil, the one form all its variants share (the module's table).
    pub fn person_key(&self) -> PhoneNumber {
        let digits = self.digits();
        let key = mexico(digits)
            .or_else(|| argentina(digits))
            .or_else(|| brazil(digits));
        // Every rule yields 12 or 13 digits, the first not 0: always a valid number; kept as it is if not.
        key.and_then(|digits| PhoneNumber::from_digits(&digits).ok())
            .unwrap_or_else(|| self.clone())
    }

    /// Every form of this person's number: the key and, for a national variant of Mexico, Argentina or
    /// Brazil, its other form (the module's table). The key comes first.
    pub fn variants(&self) -> Vec<PhoneNumber> {
        let key = self.person_key();
        let digits = key.digits();
        let other = if let Some(national) = digits.strip_prefix(&format!("{MEXICO}{MEXICO_MOBILE}")) {
            Some(format!("{MEXICO}{national}"))
        } else if let Some(national) = digits.strip_prefix(&format!("{ARGENTINA}{ARGENTINA_MOBILE}")) {
            Some(format!("{ARGENTINA}{national}"))
        } else {
            digits.strip_prefix(BRAZIL).and_then(|national| {
                let area = national.get(..2)?;
                let subscriber = national.get(2..)?;
                Some(format!("{BRAZIL}{area}{BRAZIL_NINTH}{subscriber}"))
            })
        };
        let mut all = vec![key.clone()];
        // Only a form whose own key is this one: a number outside the three rules stays alone.
        if let Some(other) = other.and_then(|digits| PhoneNumber::from_digits(&digits).ok())
            && other != key
            && other.person_key() == key
        {
            all.push(other);
        }
        all
    }

    /// Whether `other` is the same person's number (the same [`Self::person_key`]).
    pub fn same_person(&self, other: &PhoneNumber) -> bool {
        self.person_key() == other.person_key()
    }
}

fn all_digits(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit())
}

/// `52` + 10 digits (not beginning with 1) gains the `1`.
fn mexico(digits: &str) -> Option<String> {
    let national = digits.strip_prefix(MEXICO)?;
    (national.len() == NATIONAL_DIGITS && !national.starts_with(MEXICO_MOBILE))
        .then(|| format!("{MEXICO}{MEXICO_MOBILE}{national}"))
}

/// `54` + 10 digits (not beginning with 9) gains the `9`.
fn argentina(digits: &str) -> Option<String> {
    let national = digits.strip_prefix(ARGENTINA)?;
    (national.len() == NATIONAL_DIGITS && !national.starts_with(ARGENTINA_MOBILE))
        .then(|| format!("{ARGENTINA}{ARGENTINA_MOBILE}{national}"))
}

/// `55` + area + `9` + 8 digits beginning with 6 to 9 loses the `9`.
fn brazil(digits: &str) -> Option<String> {
    let national = digits.strip_prefix(BRAZIL)?;
    let area = national.get(..2)?;
    let subscriber = national.get(2..)?.strip_prefix(BRAZIL_NINTH)?;
    let mobile = subscriber.len() == BRAZIL_SUBSCRIBER_DIGITS
        && all_digits(subscriber)
        && matches!(subscriber.as_bytes().first(), Some(b'6'..=b'9'))
        // Brazil's area codes are 11 to 99 with neither digit 0.
        && area.bytes().all(|b| (b'1'..=b'9').contains(&b));
    mobile.then(|| format!("{BRAZIL}{area}{subscriber}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "test code")]
    use super::*;
    use proptest::prelude::*;

    fn key(number: &str) -> String {
        PhoneNumber::parse(number)
            .unwrap()
            .person_key()
            .as_str()
            .to_owned()
    }

    #[test]
    fn the_national_variants_share_a_key_in_the_documented_form() {
        assert_eq!(key("+525512345678"), "+5215512345678");
        assert_eq!(key("+5215512345678"), "+5215512345678");
        assert_eq!(key("+541123456789"), "+5491123456789");
        assert_eq!(key("+5491123456789"), "+5491123456789");
        assert_eq!(key("+5521987654321"), "+552187654321");
        assert_eq!(key("+552187654321"), "+552187654321");
        assert_eq!(key("+5592981723241"), "+559281723241");
    }

    #[test]
    fn the_variants_of_a_number_are_every_form_with_its_key() {
        let variants = |number: &str| -> Vec<String> {
            PhoneNumber::parse(number)
                .unwrap()
                .variants()
                .iter()
                .map(|v| v.as_str().to_owned())
                .collect()
        };
        assert_eq!(variants("+525512345678"), ["+5215512345678", "+525512345678"]);
        assert_eq!(variants("+5491123456789"), ["+5491123456789", "+541123456789"]);
        assert_eq!(variants("+552187654321"), ["+552187654321", "+5521987654321"]);
        assert_eq!(variants("+15551234567"), ["+15551234567"]);
        assert_eq!(variants("+552132345678"), ["+552132345678"]);
    }

    #[test]
    fn other_numbers_are_their_own_key() {
        for number in [
            "+15551234567",
            "+4930123456",
            // A Mexican 12-digit number whose national part begins with 1 is not the 13-digit form.
            "+521551234567",
            // An Argentine national number beginning with 9 is left alone.
            "+549112345678",
            // A Brazilian landline (8 digits from 2) and a 9-prefixed number not followed by 6 to 9.
            "+552132345678",
            "+5521912345678",
            // Area code with a 0, too short, too long.
            "+5501987654321",
            "+55219876543",
            "+552198765432101",
        ] {
            assert_eq!(key(number), number, "{number}");
        }
    }

    /// A person as the numbering plan knows them, and every way their number is written.
    #[derive(Debug, Clone)]
    enum Person {
        Mexico { national: String },
        Argentina { national: String },
        Brazil { area: String, subscriber: String },
        Elsewhere { digits: String },
    }

    impl Person {
        fn variants(&self) -> Vec<String> {
            match self {
                Self::Mexico { national } => vec![format!("+52{national}"), format!("+521{national}")],
                Self::Argentina { national } => vec![format!("+54{national}"), format!("+549{national}")],
                Self::Brazil { area, subscriber } => {
                    vec![
                        format!("+55{area}{subscriber}"),
                        format!("+55{area}9{subscriber}"),
                    ]
                }
                Self::Elsewhere { digits } => vec![format!("+{digits}")],
            }
        }
    }

    fn digits(len: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(0u8..10, len)
            .prop_map(|ds| ds.into_iter().map(|d| char::from(b'0' + d)).collect())
    }

    fn person() -> impl Strategy<Value = Person> {
        prop_oneof![
            ("[2-9]", digits(9)).prop_map(|(first, rest)| Person::Mexico {
                national: format!("{first}{rest}")
            }),
            ("[1-3]", digits(9)).prop_map(|(first, rest)| Person::Argentina {
                national: format!("{first}{rest}")
            }),
            ("[1-9][1-9]", "[6-9]", digits(7)).prop_map(|(area, first, rest)| Person::Brazil {
                area,
                subscriber: format!("{first}{rest}")
            }),
            // Any other country, the other `+5x` ones included: none of the three country codes.
            "[1-46-9][0-9]{7,14}|5[013679][0-9]{6,13}".prop_map(|digits| Person::Elsewhere { digits }),
        ]
    }

    proptest! {
        #[test]
        fn every_variant_of_one_person_has_one_key(person in person()) {
            let keys: Vec<String> = person.variants().iter().map(|v| key(v)).collect();
            prop_assert!(keys.windows(2).all(|pair| pair[0] == pair[1]), "{person:?}: {keys:?}");
            // The key is one of the person's own forms, and its own key.
            prop_assert!(person.variants().contains(&keys[0]));
            prop_assert_eq!(key(&keys[0]), keys[0].clone());
            // And its variants are exactly the person's forms.
            let mut variants: Vec<String> = PhoneNumber::parse(&keys[0]).unwrap().variants()
                .iter().map(|v| v.as_str().to_owned()).collect();
            let mut expected = person.variants();
            variants.sort();
            expected.sort();
            prop_assert_eq!(variants, expected);
        }

        #[test]
        fn different_people_never_share_a_key(a in person(), b in person()) {
            let same = match (&a, &b) {
                (Person::Mexico { national: x }, Person::Mexico { national: y })
                | (Person::Argentina { national: x }, Person::Argentina { national: y }) => x == y,
                (
                    Person::Brazil { area: xa, subscriber: xs },
                    Person::Brazil { area: ya, subscriber: ys },
                ) => xa == ya && xs == ys,
                (Person::Elsewhere { digits: x }, Person::Elsewhere { digits: y }) => x == y,
                _ => false,
            };
            let collide = a.variants().iter().any(|x| b.variants().iter().any(|y| key(x) == key(y)));
            prop_assert_eq!(collide, same, "{:?} and {:?}", a, b);
        }

        #[test]
        fn any_number_keys_to_a_number_whose_key_is_itself(number in "\\+[1-9][0-9]{7,14}") {
            let key = PhoneNumber::parse(&number).unwrap().person_key();
            prop_assert_eq!(key.person_key(), key.clone());
            // Only the three countries' numbers change.
            if key.as_str() != number {
                prop_assert!(["+52", "+54", "+55"].iter().any(|cc| number.starts_with(cc)));
            }
        }
    }
}
