//! Personal data written as JSON numbers: `{"card": 4111111111111111}`,
//! `{"phone": 14155550123}`. The string rules never see these (a number
//! has no string to scan), so the walker hands each integer of a few
//! digits here with the key it is under.
//!
//! The same facts as the string rules, no new taxonomy: a card number is a
//! card's prefix and length with a valid Luhn digit; a phone number or an
//! SSN needs its key to say so (a bare ten-digit number is as often a
//! count or an id); a password or PIN under a name for one is found by the
//! assignment rule, as its string would be. Keys naming ids, times,
//! sizes and counts (`id`, `created_at`, `duration_ms`, `input_tokens`)
//! hold no card: the figures every session is full of stay numbers.

use super::assign;
use super::checksum::luhn_ok;
use super::hit::{rank, Scanner};
use super::kind::k;
use super::pii::{card_brand, nanp, ssn_ok};

/// Most digits a number handed here has (a 19-digit card).
pub(crate) const MAX_DIGITS: usize = 19;
/// Fewest (a four-digit PIN under `pin`/`password`).
pub(crate) const MIN_DIGITS: usize = 4;

/// Runs the number rules over `sc.s`, the digits of one JSON integer.
pub(crate) fn run(sc: &mut Scanner) {
    let d = sc.s;
    debug_assert!(d.iter().all(u8::is_ascii_digit));
    let key = sc.key.unwrap_or(b"");
    let n = d.len();
    let mut names = KeyNames::default();
    for_each_word(key, |w| names.see(w));
    // A password or PIN under a name for one, as `"password": "1234"`
    // (the assignment rule decides; a name of another secret wants
    // letters too, so only password names are asked about).
    if names.password {
        assign::key_value(sc);
    }
    if (13..=19).contains(&n) && !names.figure && card_brand(d) && luhn_ok(d.iter().copied()) {
        sc.hit(0, n, k::CREDIT_CARD, rank::PII);
    } else if names.phone && phone_digits(d) {
        sc.hit(0, n, k::PHONE, rank::PII);
    } else if names.ssn && (7..=9).contains(&n) && ssn_ok(&zero_padded(d)) {
        sc.hit(0, n, k::SSN, rank::PII);
    }
}

/// Nine digits, as an SSN is written: a number drops the leading zeros of
/// an area below 100 (`060-55-0147` stored as `60550147`).
fn zero_padded(d: &[u8]) -> [u8; 9] {
    let mut out = [b'0'; 9];
    out[9 - d.len()..].copy_from_slice(d);
    out
}

/// A phone number's digits: ten, written nationally (NANP's `2125550142`,
/// whatever its area code), or 11 to 15 with a country code, checked as a
/// `+` number is (`pii::phone_punct`): after a 1, NANP's ten digits with a
/// valid area code and exchange; after 44, the UK's ten. (A JSON number
/// has no leading zero.)
fn phone_digits(d: &[u8]) -> bool {
    match (d.len(), d[0], d[1]) {
        (10, _, _) => true,
        (11..=15, b'1', _) => d.len() == 11 && nanp(&d[1..]),
        (11..=15, b'4', b'4') => d.len() == 12 && d[2] != b'0',
        (11..=15, _, _) => true,
        _ => false,
    }
}

/// What a key's words say about the number under it.
#[derive(Debug, Default)]
struct KeyNames {
    phone: bool,
    ssn: bool,
    social: bool,
    /// An id, a time, a size or a count: never a card.
    figure: bool,
    /// A word the assignment rule reads as a password's name.
    password: bool,
}

impl KeyNames {
    fn see(&mut self, w: &[u8]) {
        match w {
            b"phone" | b"phonenumber" | b"mobile" | b"cell" | b"cellphone" | b"tel"
            | b"telephone" | b"fax" | b"msisdn" | b"whatsapp" | b"sms" => self.phone = true,
            b"ssn" => self.ssn = true,
            b"password" | b"passwd" | b"pwd" | b"pass" | b"passphrase" | b"passcode" | b"pword" => {
                self.password = true
            }
            b"social" => self.social = true,
            b"security" if self.social => self.ssn = true,
            b"id" | b"ids" | b"uuid" | b"seq" | b"sequence" | b"offset" | b"count" | b"total"
            | b"size" | b"bytes" | b"len" | b"length" | b"ms" | b"ns" | b"us" | b"time"
            | b"timestamp" | b"ts" | b"at" | b"date" | b"nonce" | b"tokens" | b"hash" | b"crc"
            | b"checksum" | b"version" | b"port" | b"pid" | b"seed" | b"duration" | b"epoch" => {
                self.figure = true
            }
            _ => {}
        }
    }
}

/// Calls `f` with each word of a key, lower-cased: split at punctuation
/// and at lower-to-upper case changes (`cardNumber`, `phone_e164`).
fn for_each_word(key: &[u8], mut f: impl FnMut(&[u8])) {
    let mut buf = [0u8; 32];
    let mut len = 0;
    let mut prev_lower = false;
    for &b in key.iter().chain(std::iter::once(&b' ')) {
        let split = !b.is_ascii_alphanumeric() || (prev_lower && b.is_ascii_uppercase());
        if split && len > 0 {
            if len <= buf.len() {
                f(&buf[..len]);
            }
            len = 0;
        }
        if b.is_ascii_alphanumeric() {
            if len < buf.len() {
                buf[len] = b.to_ascii_lowercase();
            }
            len += 1;
        }
        prev_lower = b.is_ascii_lowercase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::hit::Hit;

    fn kinds(digits: &str, key: Option<&str>) -> Vec<crate::redact::KindId> {
        let mut hits: Vec<Hit> = Vec::new();
        run(&mut Scanner::new(
            digits.as_bytes(),
            key.map(str::as_bytes),
            &mut hits,
        ));
        hits.iter().map(|h| h.kind).collect()
    }

    #[test]
    fn cards_phones_ssns_and_pins() {
        assert_eq!(kinds("4111111111111111", Some("card")), [k::CREDIT_CARD]);
        assert_eq!(kinds("4111111111111111", None), [k::CREDIT_CARD]);
        assert_eq!(kinds("378282246310005", Some("value")), [k::CREDIT_CARD]);
        assert_eq!(kinds("14155550123", Some("phone")), [k::PHONE]);
        assert_eq!(kinds("14155550123", Some("contactPhone")), [k::PHONE]);
        assert_eq!(kinds("447700900123", Some("mobile_number")), [k::PHONE]);
        assert_eq!(kinds("2125550142", Some("tel")), [k::PHONE]);
        // A NANP area code of 44x is no UK country code.
        assert_eq!(kinds("4435550151", Some("phone")), [k::PHONE]);
        assert_eq!(kinds("219099999", Some("ssn")), [k::SSN]);
        assert_eq!(kinds("219099999", Some("social_security_number")), [k::SSN]);
        // 060-55-0147 stored as a number.
        assert_eq!(kinds("60550147", Some("ssn")), [k::SSN]);
        assert_eq!(kinds("6550147", Some("SSN")), [k::SSN]);
        assert_eq!(kinds("90210", Some("pin_code")), []);
        assert_eq!(kinds("4921", Some("password")), [k::PASSWORD]);
    }

    #[test]
    fn figures_stay() {
        // Luhn fails, or the key names an id, a time, a count.
        assert!(kinds("4111111111111112", Some("card")).is_empty());
        assert!(kinds("4111111111111111", Some("message_id")).is_empty());
        assert!(kinds("4111111111111111", Some("createdAt")).is_empty());
        // Millisecond and nanosecond times are no card's prefix.
        assert!(kinds("1732752000000", None).is_empty());
        assert!(kinds("1732752000000000000", None).is_empty());
        // Ten digits without a phone key: a count, an id, a time.
        assert!(kinds("14155550123", Some("input_tokens")).is_empty());
        assert!(kinds("2125550142", None).is_empty());
        // A phone key with a number too short, or an impossible one.
        assert!(kinds("5550123", Some("phone")).is_empty());
        assert!(kinds("11555550123", Some("phone")).is_empty());
        // An SSN needs its key and an issued area.
        assert!(kinds("219099999", Some("zip")).is_empty());
        assert!(kinds("666099999", Some("ssn")).is_empty());
        assert!(kinds("550147", Some("ssn")).is_empty());
        assert!(kinds("12345678", Some("max_tokens")).is_empty());
    }
}
