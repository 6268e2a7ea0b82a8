//! Standard base64 (RFC 4648 §4, padded): the form of scenario file contents that are not UTF-8.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The padded base64 text of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of a padded base64 text; what is wrong otherwise.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "base64 text must be a multiple of 4 characters long (padded with =), not {}",
            bytes.len()
        ));
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let groups = bytes.len() / 4;
    for (g, group) in bytes.chunks(4).enumerate() {
        let padding = group.iter().rev().take_while(|&&c| c == b'=').count();
        if padding > 2 || (padding > 0 && g + 1 != groups) {
            return Err("base64 padding (=) may only end the text, at most twice".to_owned());
        }
        let mut n: u32 = 0;
        for (i, &c) in group.iter().enumerate() {
            let value = if i >= 4 - padding {
                0
            } else {
                ALPHABET
                    .iter()
                    .position(|&a| a == c)
                    .ok_or_else(|| format!("{:?} is not a base64 character", char::from(c)))?
                    as u32
            };
            n = (n << 6) | value;
        }
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - padding]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn round_trips_every_length() {
        let data: Vec<u8> = (0..=255).collect();
        for n in 0..10 {
            let text = encode(&data[..n]);
            assert_eq!(decode(&text).as_deref(), Ok(&data[..n]), "{text}");
        }
        assert_eq!(encode(b"\xff\xfe\x00"), "//4A");
        assert_eq!(encode(b"ab"), "YWI=");
    }

    #[test]
    fn refuses_what_is_not_padded_base64() {
        assert!(decode("YWI").is_err());
        assert!(decode("YW=I").is_err());
        assert!(decode("YQ==YQ==").is_err());
        assert!(decode("Y!I=").is_err());
        assert_eq!(decode(""), Ok(Vec::new()));
    }
}
