//! The check digits some formats carry, so a look-alike can be told from
//! the real thing: GitHub/npm token CRC32s, card Luhn digits, IBAN mod-97.

use crate::read::crc32::crc32;

/// `n` in base 62 (`0-9A-Za-z`), left-padded with `0` to six digits: the
/// checksum suffix of GitHub and npm tokens.
pub(crate) fn base62_6(mut n: u32) -> [u8; 6] {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 62) as usize];
        n /= 62;
    }
    out
}

/// Whether `body` ends in the base-62 CRC32 of the 30 characters before it
/// (`ghp_` / `npm_` tokens: 30 random characters, then 6 of checksum).
pub(crate) fn token_crc_ok(body: &[u8]) -> bool {
    body.len() == 36 && base62_6(crc32(&body[..30])) == body[30..]
}

/// The Luhn check over ASCII digits (other bytes are skipped).
pub(crate) fn luhn_ok(digits: impl DoubleEndedIterator<Item = u8>) -> bool {
    let mut sum = 0u32;
    for (i, d) in digits.rev().enumerate() {
        let mut d = u32::from(d - b'0');
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum.is_multiple_of(10)
}

/// The IBAN check: the first four characters moved to the end, letters as
/// 10..35, the number mod 97 must be 1. `chars` are the IBAN's characters
/// without spaces, upper case.
pub(crate) fn iban_ok(chars: &[u8]) -> bool {
    if chars.len() < 5 {
        return false;
    }
    let mut rem = 0u32;
    for &c in chars[4..].iter().chain(&chars[..4]) {
        match c {
            b'0'..=b'9' => rem = (rem * 10 + u32::from(c - b'0')) % 97,
            b'A'..=b'Z' => rem = (rem * 100 + u32::from(c - b'A') + 10) % 97,
            _ => return false,
        }
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_zlib() {
        // zlib.crc32(b"123456789") == 0xCBF43926, the standard check value.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn github_token_checksum() {
        // Built like GitHub does: 30 random characters, then base62(crc32).
        let body = b"abcdefghijklmnopqrstuvwxyzABCD";
        let mut token = body.to_vec();
        token.extend_from_slice(&base62_6(crc32(body)));
        assert!(token_crc_ok(&token));
        token[3] = b'X';
        assert!(!token_crc_ok(&token));
    }

    #[test]
    fn luhn_and_iban() {
        assert!(luhn_ok(b"4242424242424242".iter().copied()));
        assert!(luhn_ok(b"378282246310005".iter().copied()));
        assert!(!luhn_ok(b"4242424242424241".iter().copied()));
        assert!(iban_ok(b"DE89370400440532013000"));
        assert!(iban_ok(b"GB82WEST12345698765432"));
        assert!(!iban_ok(b"DE89370400440532013001"));
    }
}
