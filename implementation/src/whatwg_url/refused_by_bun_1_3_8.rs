//! The code points Bun 1.3.8 refuses in a domain and the `url` crate does not: 105 ranges,
//! 10,049 code points, found by a sweep of every code point U+0080..U+10FFFF in a host
//! (`http://a<cp>b/`, `http://<cp>/`, before, inside and after `xn--` labels, percent-encoded,
//! in a Punycode label, under every special scheme), judged by Bun 1.3.8 and by the `url` crate
//! 2.5.8 with `idna` 1.1.0.
//!
//! Bun 1.3.8's `URL` is ada, whose IDNA mapping table is UTS #46 for Unicode 15.1 (it accepts
//! U+2EBF0, of CJK Extension I, new in 15.1, and refuses U+1FAE9, an emoji of 16.0); `idna` 1.1.0
//! maps with the UTS #46 table of 16.0 and knows the characters of 17.0. Every code point listed is
//! `disallowed` in the 15.1 table, for one of three reasons, noted on each line:
//!
//! - "ignored from 16.0": UTS #46 16.0 maps it to nothing, so the `url` crate drops it
//!   (`http://a\u{180e}b/` is `http://ab/` to it);
//! - "mapped from 16.0", "valid from 16.0": 16.0 gave it a mapping or made it valid;
//! - "new in 16.0 or 17.0": unassigned in Unicode 15.1, assigned since and valid or mapped in the
//!   newer tables (Garay, Gurung Khema, Kirat Rai, Ol Onal, Sunuwar, Todhri, Tulu-Tigalari,
//!   Egyptian Hieroglyphs Extended-A, Symbols for Legacy Computing Supplement and new emoji of
//!   16.0; Sidetic, Tolong Siki, Beria Erfe, Tai Yo, CJK Extension J and others of 17.0).
//!
//! The sweep found no code point the other way, accepted by Bun 1.3.8 and refused by the `url`
//! crate.

/// Inclusive ranges, ascending and disjoint (a binary search reads them).
pub const REFUSED: &[(u32, u32)] = &[
    (0x04C0, 0x04C0),   // mapped from 16.0: CYRILLIC LETTER PALOCHKA, to U+04CF
    (0x088F, 0x088F),   // new in 16.0 or 17.0
    (0x0897, 0x0897),   // new in 16.0 or 17.0
    (0x0C5C, 0x0C5C),   // new in 16.0 or 17.0
    (0x0CDC, 0x0CDC),   // new in 16.0 or 17.0
    (0x10A0, 0x10C5),   // mapped from 16.0: GEORGIAN CAPITAL LETTER AN .. HOE, to U+2D00..U+2D25
    (0x115F, 0x1160),   // ignored from 16.0: HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),   // ignored from 16.0: KHMER VOWEL INHERENT AQ, AA
    (0x1806, 0x1806),   // valid from 16.0: MONGOLIAN TODO SOFT HYPHEN
    (0x180E, 0x180E),   // ignored from 16.0: MONGOLIAN VOWEL SEPARATOR
    (0x1ACF, 0x1ADD),   // new in 16.0 or 17.0
    (0x1AE0, 0x1AEB),   // new in 16.0 or 17.0
    (0x1B4E, 0x1B4F),   // new in 16.0 or 17.0
    (0x1B7F, 0x1B7F),   // new in 16.0 or 17.0
    (0x1C89, 0x1C8A),   // new in 16.0 or 17.0
    (0x2061, 0x2063),   // ignored from 16.0: FUNCTION APPLICATION .. INVISIBLE SEPARATOR
    (0x206A, 0x206F),   // ignored from 16.0: INHIBIT SYMMETRIC SWAPPING .. NOMINAL DIGIT SHAPES
    (0x20C1, 0x20C1),   // new in 16.0 or 17.0
    (0x2132, 0x2132),   // mapped from 16.0: TURNED CAPITAL F, to U+214E
    (0x2183, 0x2183),   // mapped from 16.0: ROMAN NUMERAL REVERSED ONE HUNDRED, to U+2184
    (0x2427, 0x2429),   // new in 16.0 or 17.0
    (0x2B96, 0x2B96),   // new in 16.0 or 17.0
    (0x3164, 0x3164),   // ignored from 16.0: HANGUL FILLER
    (0x31E4, 0x31E5),   // new in 16.0 or 17.0
    (0xA7CB, 0xA7CF),   // new in 16.0 or 17.0
    (0xA7D2, 0xA7D2),   // new in 16.0 or 17.0
    (0xA7D4, 0xA7D4),   // new in 16.0 or 17.0
    (0xA7DA, 0xA7DC),   // new in 16.0 or 17.0
    (0xA7F1, 0xA7F1),   // new in 16.0 or 17.0
    (0xFBC3, 0xFBD2),   // new in 16.0 or 17.0
    (0xFD90, 0xFD91),   // new in 16.0 or 17.0
    (0xFDC8, 0xFDCE),   // new in 16.0 or 17.0
    (0xFFA0, 0xFFA0),   // ignored from 16.0: HALFWIDTH HANGUL FILLER
    (0x105C0, 0x105F3), // new in 16.0 or 17.0
    (0x10940, 0x10959), // new in 16.0 or 17.0
    (0x10D4A, 0x10D65), // new in 16.0 or 17.0
    (0x10D69, 0x10D85), // new in 16.0 or 17.0
    (0x10D8E, 0x10D8F), // new in 16.0 or 17.0
    (0x10EC2, 0x10EC7), // new in 16.0 or 17.0
    (0x10ED0, 0x10ED8), // new in 16.0 or 17.0
    (0x10EFA, 0x10EFC), // new in 16.0 or 17.0
    (0x11380, 0x11389), // new in 16.0 or 17.0
    (0x1138B, 0x1138B), // new in 16.0 or 17.0
    (0x1138E, 0x1138E), // new in 16.0 or 17.0
    (0x11390, 0x113B5), // new in 16.0 or 17.0
    (0x113B7, 0x113C0), // new in 16.0 or 17.0
    (0x113C2, 0x113C2), // new in 16.0 or 17.0
    (0x113C5, 0x113C5), // new in 16.0 or 17.0
    (0x113C7, 0x113CA), // new in 16.0 or 17.0
    (0x113CC, 0x113D5), // new in 16.0 or 17.0
    (0x113D7, 0x113D8), // new in 16.0 or 17.0
    (0x113E1, 0x113E2), // new in 16.0 or 17.0
    (0x116D0, 0x116E3), // new in 16.0 or 17.0
    (0x11B60, 0x11B67), // new in 16.0 or 17.0
    (0x11BC0, 0x11BE1), // new in 16.0 or 17.0
    (0x11BF0, 0x11BF9), // new in 16.0 or 17.0
    (0x11DB0, 0x11DDB), // new in 16.0 or 17.0
    (0x11DE0, 0x11DE9), // new in 16.0 or 17.0
    (0x11F5A, 0x11F5A), // new in 16.0 or 17.0
    (0x13460, 0x143FA), // new in 16.0 or 17.0
    (0x16100, 0x16139), // new in 16.0 or 17.0
    (0x16D40, 0x16D79), // new in 16.0 or 17.0
    (0x16EA0, 0x16EB8), // new in 16.0 or 17.0
    (0x16EBB, 0x16ED3), // new in 16.0 or 17.0
    (0x16FF2, 0x16FF6), // new in 16.0 or 17.0
    (0x187F8, 0x187FF), // new in 16.0 or 17.0
    (0x18CFF, 0x18CFF), // new in 16.0 or 17.0
    (0x18D09, 0x18D1E), // new in 16.0 or 17.0
    (0x18D80, 0x18DF2), // new in 16.0 or 17.0
    (0x1CC00, 0x1CCFC), // new in 16.0 or 17.0
    (0x1CD00, 0x1CEB3), // new in 16.0 or 17.0
    (0x1CEBA, 0x1CED0), // new in 16.0 or 17.0
    (0x1CEE0, 0x1CEF0), // new in 16.0 or 17.0
    (0x1D173, 0x1D17A), // ignored from 16.0: MUSICAL SYMBOL BEGIN BEAM .. END PHRASE
    (0x1E5D0, 0x1E5FA), // new in 16.0 or 17.0
    (0x1E5FF, 0x1E5FF), // new in 16.0 or 17.0
    (0x1E6C0, 0x1E6DE), // new in 16.0 or 17.0
    (0x1E6E0, 0x1E6F5), // new in 16.0 or 17.0
    (0x1E6FE, 0x1E6FF), // new in 16.0 or 17.0
    (0x1F6D8, 0x1F6D8), // new in 16.0 or 17.0
    (0x1F777, 0x1F77A), // new in 16.0 or 17.0
    (0x1F8B2, 0x1F8BB), // new in 16.0 or 17.0
    (0x1F8C0, 0x1F8C1), // new in 16.0 or 17.0
    (0x1F8D0, 0x1F8D8), // new in 16.0 or 17.0
    (0x1FA54, 0x1FA57), // new in 16.0 or 17.0
    (0x1FA89, 0x1FA8A), // new in 16.0 or 17.0
    (0x1FA8E, 0x1FA8F), // new in 16.0 or 17.0
    (0x1FABE, 0x1FABE), // new in 16.0 or 17.0
    (0x1FAC6, 0x1FAC6), // new in 16.0 or 17.0
    (0x1FAC8, 0x1FAC8), // new in 16.0 or 17.0
    (0x1FACD, 0x1FACD), // new in 16.0 or 17.0
    (0x1FADC, 0x1FADC), // new in 16.0 or 17.0
    (0x1FADF, 0x1FADF), // new in 16.0 or 17.0
    (0x1FAE9, 0x1FAEA), // new in 16.0 or 17.0
    (0x1FAEF, 0x1FAEF), // new in 16.0 or 17.0
    (0x1FBCB, 0x1FBEF), // new in 16.0 or 17.0
    (0x1FBFA, 0x1FBFA), // new in 16.0 or 17.0
    (0x2B73A, 0x2B73F), // new in 16.0 or 17.0
    (0x2CEA2, 0x2CEAD), // new in 16.0 or 17.0
    (0x2F868, 0x2F868), // mapped from 16.0: a CJK COMPATIBILITY IDEOGRAPH
    (0x2F874, 0x2F874), // mapped from 16.0: a CJK COMPATIBILITY IDEOGRAPH
    (0x2F91F, 0x2F91F), // mapped from 16.0: a CJK COMPATIBILITY IDEOGRAPH
    (0x2F95F, 0x2F95F), // mapped from 16.0: a CJK COMPATIBILITY IDEOGRAPH
    (0x2F9BF, 0x2F9BF), // mapped from 16.0: a CJK COMPATIBILITY IDEOGRAPH
    (0x323B0, 0x33479), // new in 16.0 or 17.0
];
