//! `text`: htmlparser2 12's tokenizer and open-element stack, text outside script and style kept.
//!
//! The tokenizer is ported state for state on the document's bytes: every character it tests is
//! ASCII, and no UTF-8 byte of another character is, so byte positions stand in for UTF-16 ones.

use html5ever::data::NAMED_ENTITIES;

use super::js;

/// `convertHtmlToText`: the text htmlparser2 reports outside `<script>` and `<style>`, entities
/// decoded, whitespace runs as one space, trimmed; empty for a blank document.
pub fn to_text(html: &str) -> String {
    if js::trim(html).is_empty() {
        return String::new();
    }
    let mut tokenizer = Tokenizer::new(html);
    tokenizer.parse();
    tokenizer.finish();
    let text = tokenizer.parser.text;
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if js::is_space(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    js::trim(&out).to_owned()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Text,
    BeforeTagName,
    InTagName,
    InSelfClosingTag,
    BeforeClosingTagName,
    InClosingTagName,
    AfterClosingTagName,
    BeforeAttributeName,
    InAttributeName,
    AfterAttributeName,
    BeforeAttributeValue,
    InAttributeValueDq,
    InAttributeValueSq,
    InAttributeValueNq,
    BeforeDeclaration,
    InDeclaration,
    BeforeComment,
    CdataSequence,
    DeclarationSequence,
    InSpecialComment,
    InCommentLike,
    SpecialStartSequence,
    InSpecialTag,
    InPlainText,
    InEntity,
}

/// The sequences the tokenizer matches (`Sequences`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seq {
    Empty,
    Cdata,
    CdataEnd,
    CommentEnd,
    Doctype,
    IframeEnd,
    NoembedEnd,
    NoframesEnd,
    Plaintext,
    ScriptEnd,
    StyleEnd,
    TitleEnd,
    TextareaEnd,
    XmpEnd,
}

impl Seq {
    fn bytes(self) -> &'static [u8] {
        match self {
            Seq::Empty => b"",
            Seq::Cdata => b"CDATA[",
            Seq::CdataEnd => b"]]>",
            Seq::CommentEnd => b"--!>",
            Seq::Doctype => b"doctype",
            Seq::IframeEnd => b"</iframe",
            Seq::NoembedEnd => b"</noembed",
            Seq::NoframesEnd => b"</noframes",
            Seq::Plaintext => b"</plaintext",
            Seq::ScriptEnd => b"</script",
            Seq::StyleEnd => b"</style",
            Seq::TitleEnd => b"</title",
            Seq::TextareaEnd => b"</textarea",
            Seq::XmpEnd => b"</xmp",
        }
    }

    fn at(self, i: usize) -> Option<u8> {
        self.bytes().get(i).copied()
    }

    fn len(self) -> usize {
        self.bytes().len()
    }

    /// `specialStartSequences`: the sequence a special tag's first letter (lower case) starts.
    fn special_start(c: u8) -> Option<Seq> {
        match c {
            b'i' => Some(Seq::IframeEnd),
            b'n' => Some(Seq::NoembedEnd),
            b'p' => Some(Seq::Plaintext),
            b's' => Some(Seq::ScriptEnd),
            b't' => Some(Seq::TitleEnd),
            b'x' => Some(Seq::XmpEnd),
            _ => None,
        }
    }
}

fn is_whitespace(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\t' | 0x0c | b'\r')
}

fn is_end_of_tag_section(c: u8) -> bool {
    c == b'/' || c == b'>' || is_whitespace(c)
}

/// The tokenizer (`Tokenizer`), HTML mode, entities decoded, one chunk then `end()`.
struct Tokenizer<'a> {
    buffer: &'a [u8],
    state: State,
    section_start: isize,
    index: isize,
    entity_start: isize,
    base_state: State,
    is_special: bool,
    current_sequence: Seq,
    sequence_index: usize,
    /// What the entity decoder's `end()` would emit when the document ends inside a reference.
    pending: Option<(String, usize)>,
    parser: Parser<'a>,
}

impl<'a> Tokenizer<'a> {
    fn new(html: &'a str) -> Self {
        Tokenizer {
            buffer: html.as_bytes(),
            state: State::Text,
            section_start: 0,
            index: 0,
            entity_start: 0,
            base_state: State::Text,
            is_special: false,
            current_sequence: Seq::Empty,
            sequence_index: 0,
            pending: None,
            parser: Parser::new(html),
        }
    }

    fn len(&self) -> isize {
        self.buffer.len() as isize
    }

    fn byte(&self, i: isize) -> u8 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.buffer.get(i))
            .copied()
            .unwrap_or(0)
    }

    fn parse(&mut self) {
        while self.index < self.len() {
            let c = self.byte(self.index);
            match self.state {
                State::Text => self.state_text(c),
                State::InPlainText => self.index = self.len() - 1,
                State::SpecialStartSequence => self.state_special_start_sequence(c),
                State::InSpecialTag => self.state_in_special_tag(c),
                State::CdataSequence => self.state_cdata_sequence(c),
                State::DeclarationSequence => self.state_declaration_sequence(c),
                State::InAttributeValueDq => self.handle_in_attribute_value(c, b'"'),
                State::InAttributeName => self.state_in_attribute_name(c),
                State::InCommentLike => self.state_in_comment_like(c),
                State::InSpecialComment => self.state_in_special_comment(c),
                State::BeforeAttributeName => self.state_before_attribute_name(c),
                State::InTagName => self.state_in_tag_name(c),
                State::InClosingTagName => self.state_in_closing_tag_name(c),
                State::BeforeTagName => self.state_before_tag_name(c),
                State::AfterAttributeName => self.state_after_attribute_name(c),
                State::InAttributeValueSq => self.handle_in_attribute_value(c, b'\''),
                State::BeforeAttributeValue => self.state_before_attribute_value(c),
                State::BeforeClosingTagName => self.state_before_closing_tag_name(c),
                State::AfterClosingTagName => self.state_after_closing_tag_name(c),
                State::InAttributeValueNq => self.state_in_attribute_value_no_quotes(c),
                State::InSelfClosingTag => self.state_in_self_closing_tag(c),
                State::InDeclaration => self.state_in_declaration(c),
                State::BeforeDeclaration => self.state_before_declaration(c),
                State::BeforeComment => self.state_before_comment(c),
                State::InEntity => self.state_in_entity(),
            }
            self.index += 1;
        }
        self.cleanup();
    }

    fn state_text(&mut self, c: u8) {
        if c == b'<' {
            if self.index > self.section_start {
                self.parser.ontext(self.section_start, self.index);
            }
            self.state = State::BeforeTagName;
            self.section_start = self.index;
        } else if c == b'&' {
            self.start_entity();
        }
    }

    fn enter_tag_body(&mut self) {
        if self.current_sequence == Seq::Plaintext {
            self.current_sequence = Seq::Empty;
            self.state = State::InPlainText;
        } else if self.is_special {
            self.state = State::InSpecialTag;
            self.sequence_index = 0;
        } else {
            self.state = State::Text;
        }
    }

    fn state_special_start_sequence(&mut self, c: u8) {
        let lower = c | 0x20;
        if self.sequence_index < self.current_sequence.len() {
            if Some(lower) == self.current_sequence.at(self.sequence_index) {
                self.sequence_index += 1;
                return;
            }
            if self.sequence_index == 3 {
                if self.current_sequence == Seq::ScriptEnd && Some(lower) == Seq::StyleEnd.at(3) {
                    self.current_sequence = Seq::StyleEnd;
                    self.sequence_index = 4;
                    return;
                }
                if self.current_sequence == Seq::TitleEnd && Some(lower) == Seq::TextareaEnd.at(3) {
                    self.current_sequence = Seq::TextareaEnd;
                    self.sequence_index = 4;
                    return;
                }
            } else if self.sequence_index == 4
                && self.current_sequence == Seq::NoembedEnd
                && Some(lower) == Seq::NoframesEnd.at(4)
            {
                self.current_sequence = Seq::NoframesEnd;
                self.sequence_index = 5;
                return;
            }
        } else if is_end_of_tag_section(c) {
            self.sequence_index = 0;
            self.state = State::InTagName;
            self.state_in_tag_name(c);
            return;
        }
        self.is_special = false;
        self.current_sequence = Seq::Empty;
        self.sequence_index = 0;
        self.state = State::InTagName;
        self.state_in_tag_name(c);
    }

    fn state_cdata_sequence(&mut self, c: u8) {
        if Some(c) == Seq::Cdata.at(self.sequence_index) {
            self.sequence_index += 1;
            if self.sequence_index == Seq::Cdata.len() {
                self.state = State::InCommentLike;
                self.current_sequence = Seq::CdataEnd;
                self.sequence_index = 0;
                self.section_start = self.index + 1;
            }
        } else {
            self.sequence_index = 0;
            self.state = State::InSpecialComment;
            self.state_in_special_comment(c);
        }
    }

    /// `fastForwardTo`: moves to the next `c`, or to the last byte when there is none.
    fn fast_forward_to(&mut self, c: u8) -> bool {
        loop {
            self.index += 1;
            if self.index >= self.len() {
                break;
            }
            if self.byte(self.index) == c {
                return true;
            }
        }
        self.index = self.len() - 1;
        false
    }

    fn emit_comment(&mut self) {
        self.sequence_index = 0;
        self.section_start = self.index + 1;
        self.state = State::Text;
    }

    fn state_in_comment_like(&mut self, c: u8) {
        let comment = self.current_sequence == Seq::CommentEnd;
        // `<!-->` and `<!--->` end at once; `-->` ends like `--!>`.
        let abrupt = self.sequence_index <= 1
            && self.index == self.section_start + self.sequence_index as isize;
        if comment && c == b'>' && (abrupt || self.sequence_index == 2) {
            self.emit_comment();
        } else if comment && self.sequence_index == self.current_sequence.len() - 1 && c != b'>' {
            self.sequence_index = usize::from(c == b'-');
        } else if Some(c) == self.current_sequence.at(self.sequence_index) {
            self.sequence_index += 1;
            if self.sequence_index == self.current_sequence.len() {
                if self.current_sequence == Seq::CdataEnd {
                    self.parser.oncdata(self.section_start, self.index - 2);
                }
                self.sequence_index = 0;
                self.section_start = self.index + 1;
                self.state = State::Text;
            }
        } else if self.sequence_index == 0 {
            if let Some(first) = self.current_sequence.at(0)
                && self.fast_forward_to(first)
            {
                self.sequence_index = 1;
            }
        } else if self.sequence_index >= 1
            && Some(c) != self.current_sequence.at(self.sequence_index - 1)
        {
            self.sequence_index = 0;
        }
    }

    fn state_in_special_tag(&mut self, c: u8) {
        if self.sequence_index == self.current_sequence.len() {
            if is_end_of_tag_section(c) {
                let end_of_text = self.index - self.current_sequence.len() as isize;
                if self.section_start < end_of_text {
                    self.parser.ontext(self.section_start, end_of_text);
                }
                self.is_special = false;
                self.section_start = end_of_text + 2;
                self.state_in_closing_tag_name(c);
                return;
            }
            self.sequence_index = 0;
        }
        if Some(c | 0x20) == self.current_sequence.at(self.sequence_index) {
            self.sequence_index += 1;
        } else if self.sequence_index == 0 {
            if matches!(self.current_sequence, Seq::TitleEnd | Seq::TextareaEnd) {
                if c == b'&' {
                    self.start_entity();
                }
            } else if self.fast_forward_to(b'<') {
                self.sequence_index = 1;
            }
        } else {
            self.sequence_index = usize::from(c == b'<');
        }
    }

    fn state_before_tag_name(&mut self, c: u8) {
        if c == b'!' {
            self.state = State::BeforeDeclaration;
            self.section_start = self.index + 1;
        } else if c == b'?' {
            self.state = State::InSpecialComment;
            self.section_start = self.index;
        } else if c.is_ascii_alphabetic() {
            self.section_start = self.index;
            let special = if self.parser.is_in_foreign_context() {
                None
            } else {
                Seq::special_start(c | 0x20)
            };
            match special {
                None => self.state = State::InTagName,
                Some(special) => {
                    self.is_special = true;
                    self.current_sequence = special;
                    self.sequence_index = 3;
                    self.state = State::SpecialStartSequence;
                }
            }
        } else if c == b'/' {
            self.state = State::BeforeClosingTagName;
        } else {
            self.state = State::Text;
            self.state_text(c);
        }
    }

    fn state_in_tag_name(&mut self, c: u8) {
        if is_end_of_tag_section(c) {
            self.parser.onopentagname(self.section_start, self.index);
            self.section_start = -1;
            self.state = State::BeforeAttributeName;
            self.state_before_attribute_name(c);
        }
    }

    fn state_before_closing_tag_name(&mut self, c: u8) {
        if is_whitespace(c) {
            self.state = State::InSpecialComment;
            self.section_start = self.index;
        } else if c == b'>' {
            self.state = State::Text;
            self.section_start = self.index + 1;
        } else {
            self.state = if c.is_ascii_alphabetic() {
                State::InClosingTagName
            } else {
                State::InSpecialComment
            };
            self.section_start = self.index;
        }
    }

    fn state_in_closing_tag_name(&mut self, c: u8) {
        if is_end_of_tag_section(c) {
            self.parser.onclosetag(self.section_start, self.index);
            self.section_start = -1;
            self.state = State::AfterClosingTagName;
            self.state_after_closing_tag_name(c);
        }
    }

    fn state_after_closing_tag_name(&mut self, c: u8) {
        if c == b'>' || self.fast_forward_to(b'>') {
            self.state = State::Text;
            self.section_start = self.index + 1;
        }
    }

    fn state_before_attribute_name(&mut self, c: u8) {
        if c == b'>' {
            self.parser.end_open_tag();
            self.enter_tag_body();
            self.section_start = self.index + 1;
        } else if c == b'/' {
            self.state = State::InSelfClosingTag;
        } else if !is_whitespace(c) {
            self.state = State::InAttributeName;
            self.section_start = self.index;
        }
    }

    fn state_in_self_closing_tag(&mut self, c: u8) {
        if c == b'>' {
            self.parser.onselfclosingtag();
            self.section_start = self.index + 1;
            // HTML mode does not recognize self-closing tags: a text-only tag's body follows.
            self.enter_tag_body();
        } else if !is_whitespace(c) {
            self.state = State::BeforeAttributeName;
            self.state_before_attribute_name(c);
        }
    }

    fn state_in_attribute_name(&mut self, c: u8) {
        if c == b'=' || is_end_of_tag_section(c) {
            self.section_start = self.index;
            self.state = State::AfterAttributeName;
            self.state_after_attribute_name(c);
        }
    }

    fn state_after_attribute_name(&mut self, c: u8) {
        if c == b'=' {
            self.state = State::BeforeAttributeValue;
        } else if c == b'/' || c == b'>' {
            self.section_start = -1;
            self.state = State::BeforeAttributeName;
            self.state_before_attribute_name(c);
        } else if !is_whitespace(c) {
            self.state = State::InAttributeName;
            self.section_start = self.index;
        }
    }

    fn state_before_attribute_value(&mut self, c: u8) {
        if c == b'"' {
            self.state = State::InAttributeValueDq;
            self.section_start = self.index + 1;
        } else if c == b'\'' {
            self.state = State::InAttributeValueSq;
            self.section_start = self.index + 1;
        } else if !is_whitespace(c) {
            self.section_start = self.index;
            self.state = State::InAttributeValueNq;
            self.state_in_attribute_value_no_quotes(c);
        }
    }

    fn handle_in_attribute_value(&mut self, c: u8, quote: u8) {
        if c == quote {
            self.section_start = -1;
            self.state = State::BeforeAttributeName;
        } else if c == b'&' {
            self.start_entity();
        }
    }

    fn state_in_attribute_value_no_quotes(&mut self, c: u8) {
        if is_whitespace(c) || c == b'>' {
            self.section_start = -1;
            self.state = State::BeforeAttributeName;
            self.state_before_attribute_name(c);
        } else if c == b'&' {
            self.start_entity();
        }
    }

    fn state_before_declaration(&mut self, c: u8) {
        if c == b'[' {
            self.state = State::CdataSequence;
            self.sequence_index = 0;
        } else if c | 0x20 == b'd' {
            self.state = State::DeclarationSequence;
            self.current_sequence = Seq::Doctype;
            self.sequence_index = 1;
        } else if c == b'>' {
            self.state = State::Text;
            self.section_start = self.index + 1;
        } else if c == b'-' {
            self.state = State::BeforeComment;
        } else {
            self.state = State::InSpecialComment;
        }
    }

    fn state_declaration_sequence(&mut self, c: u8) {
        if self.sequence_index == self.current_sequence.len() {
            self.state = State::InDeclaration;
            self.state_in_declaration(c);
        } else if Some(c | 0x20) == self.current_sequence.at(self.sequence_index) {
            self.sequence_index += 1;
        } else if c == b'>' {
            self.state = State::Text;
            self.section_start = self.index + 1;
        } else {
            self.state = State::InSpecialComment;
        }
    }

    fn state_in_declaration(&mut self, c: u8) {
        if c == b'>' || self.fast_forward_to(b'>') {
            self.state = State::Text;
            self.section_start = self.index + 1;
        }
    }

    fn state_before_comment(&mut self, c: u8) {
        if c == b'-' {
            self.state = State::InCommentLike;
            self.current_sequence = Seq::CommentEnd;
            self.sequence_index = 0;
            self.section_start = self.index + 1;
        } else if c == b'>' {
            self.state = State::Text;
            self.section_start = self.index + 1;
        } else {
            self.state = State::InSpecialComment;
        }
    }

    fn state_in_special_comment(&mut self, c: u8) {
        if c == b'>' || self.fast_forward_to(b'>') {
            self.state = State::Text;
            self.section_start = self.index + 1;
        }
    }

    fn start_entity(&mut self) {
        self.base_state = self.state;
        self.state = State::InEntity;
        self.entity_start = self.index;
    }

    fn in_text(&self) -> bool {
        matches!(self.base_state, State::Text | State::InSpecialTag)
    }

    /// `stateInEntity` with the whole rest of the document written to the entity decoder: a
    /// reference decoded, none (the `&` stays text), or the document ends inside one.
    fn state_in_entity(&mut self) {
        let rest = usize::try_from(self.index)
            .ok()
            .and_then(|i| self.buffer.get(i..))
            .unwrap_or_default();
        match decode_reference(rest, self.in_text()) {
            Decoded::Reference(value, consumed) => {
                self.emit(&value, consumed);
                self.state = self.base_state;
            }
            Decoded::None => {
                self.state = self.base_state;
                self.index -= 1;
            }
            Decoded::AtEnd(pending) => {
                self.pending = pending;
                self.index = self.len() - 1;
            }
        }
    }

    /// `emitCodePoint`: text before the reference, then the reference's characters.
    fn emit(&mut self, value: &str, consumed: usize) {
        let in_text = self.in_text();
        if in_text && self.section_start < self.entity_start {
            self.parser.ontext(self.section_start, self.entity_start);
        }
        self.section_start = self.entity_start + consumed as isize;
        self.index = self.section_start - 1;
        if in_text {
            self.parser.ontext_str(value);
        }
    }

    fn cleanup(&mut self) {
        if self.section_start != self.index
            && (self.state == State::Text
                || self.state == State::InPlainText
                || (self.state == State::InSpecialTag && self.sequence_index == 0))
        {
            self.parser.ontext(self.section_start, self.index);
            self.section_start = self.index;
        }
    }

    fn finish(&mut self) {
        if self.state == State::InEntity {
            if let Some((value, consumed)) = self.pending.take() {
                self.emit(&value, consumed);
            }
            self.state = self.base_state;
        }
        self.handle_trailing_data();
    }

    fn handle_trailing_data(&mut self) {
        let end = self.len();
        // An unclosed comment, CDATA section (a bogus comment in HTML mode) or declaration is
        // reported as a comment, or not at all: no text.
        match self.state {
            State::InCommentLike
            | State::BeforeDeclaration
            | State::InSpecialComment
            | State::BeforeComment
            | State::CdataSequence
            | State::DeclarationSequence
            | State::InDeclaration => return,
            _ => {}
        }
        if self.section_start >= end {
            return;
        }
        match self.state {
            State::InTagName
            | State::BeforeAttributeName
            | State::BeforeAttributeValue
            | State::AfterAttributeName
            | State::InAttributeName
            | State::InAttributeValueSq
            | State::InAttributeValueDq
            | State::InAttributeValueNq
            | State::InClosingTagName => {}
            _ => self.parser.ontext(self.section_start, end),
        }
    }
}

/// What the entity decoder made of the characters after a `&`.
enum Decoded {
    /// A reference: its characters and how many characters it took, the `&` included.
    Reference(String, usize),
    /// No reference: the `&` is text.
    None,
    /// The document ended inside a possible reference; what `end()` would emit, if anything.
    AtEnd(Option<(String, usize)>),
}

/// The entity decoder (`EntityDecoder` of `entities` 8, legacy mode in text): numeric references
/// with or without `;`; the longest named reference, whose name without `;` must be one of the
/// legacy names (`&amp`, `&copy`, ...) unless a `;` follows. `rest` starts after the `&`.
fn decode_reference(rest: &[u8], _in_text: bool) -> Decoded {
    if rest.first() == Some(&b'#') {
        return decode_numeric(&rest[1..]);
    }
    // The best legacy match so far: its characters and its length (the `&` included).
    let mut best: Option<(String, usize)> = None;
    for len in 1.. {
        let Some(key) = rest.get(..len) else {
            return Decoded::AtEnd(best);
        };
        let found = std::str::from_utf8(key)
            .ok()
            .and_then(|key| NAMED_ENTITIES.get(key));
        match found {
            None => break,
            Some(&(0, _)) => {}
            Some(&(first, second)) => {
                let value: String = [first, second]
                    .into_iter()
                    .filter(|&cp| cp != 0)
                    .map(|cp| char::from_u32(cp).unwrap_or('\u{FFFD}'))
                    .collect();
                if key.ends_with(b";") {
                    return Decoded::Reference(value, len + 1);
                }
                best = Some((value, len + 1));
            }
        }
    }
    match best {
        Some((value, consumed)) => Decoded::Reference(value, consumed),
        None => Decoded::None,
    }
}

/// `&#` then decimal digits, or `&#x` then hex digits, `;` optional; `rest` starts after the `#`.
fn decode_numeric(rest: &[u8]) -> Decoded {
    let Some(&first) = rest.first() else {
        return Decoded::AtEnd(None);
    };
    let hex = first | 0x20 == b'x';
    let digits_start = usize::from(hex);
    let radix = if hex { 16 } else { 10 };
    // Characters taken so far: `&#`, and `x` for a hex reference.
    let prefix = 2 + digits_start;
    let mut value: u32 = 0;
    let mut digits = 0;
    for &c in &rest[digits_start..] {
        let Some(digit) = char::from(c).to_digit(radix) else {
            if digits == 0 {
                return Decoded::None;
            }
            let consumed = prefix + digits + usize::from(c == b';');
            return Decoded::Reference(code_point_text(value), consumed);
        };
        // Past U+10FFFF every value is replaced alike; saturate rather than overflow.
        value = value
            .saturating_mul(radix)
            .saturating_add(digit)
            .min(0x11_0000);
        digits += 1;
    }
    if digits == 0 {
        return Decoded::AtEnd(None);
    }
    Decoded::AtEnd(Some((code_point_text(value), prefix + digits)))
}

/// `replaceCodePoint`: NUL, surrogates and values past U+10FFFF as U+FFFD, the C1 controls that
/// windows-1252 maps as what it maps them to.
fn code_point_text(code_point: u32) -> String {
    const C1: [u32; 32] = [
        8364, 0, 8218, 402, 8222, 8230, 8224, 8225, 710, 8240, 352, 8249, 338, 0, 381, 0, 0, 8216,
        8217, 8220, 8221, 8226, 8211, 8212, 732, 8482, 353, 8250, 339, 0, 382, 376,
    ];
    let replaced = match code_point {
        0 | 0xD800..=0xDFFF | 0x11_0000.. => 0xFFFD,
        128..=159 => match C1[(code_point - 128) as usize] {
            0 => code_point,
            mapped => mapped,
        },
        _ => code_point,
    };
    char::from_u32(replaced).unwrap_or('\u{FFFD}').to_string()
}

/// Where the parser is: in HTML, SVG or MathML (`ForeignContext`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Foreign {
    None,
    Svg,
    MathMl,
}

/// `voidElements` of the parser.
const VOID: &[&str] = &[
    "area", "base", "basefont", "br", "col", "command", "embed", "frame", "hr", "img", "input",
    "isindex", "keygen", "link", "meta", "param", "source", "track", "wbr",
];

const HTML_INTEGRATION: &[&str] = &[
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "annotation-xml",
    "foreignObject",
    "desc",
    "title",
];

/// `svgTagNameAdjustments`.
const SVG_ADJUSTMENTS: &[(&str, &str)] = &[
    ("altglyph", "altGlyph"),
    ("altglyphdef", "altGlyphDef"),
    ("altglyphitem", "altGlyphItem"),
    ("animatecolor", "animateColor"),
    ("animatemotion", "animateMotion"),
    ("animatetransform", "animateTransform"),
    ("clippath", "clipPath"),
    ("feblend", "feBlend"),
    ("fecolormatrix", "feColorMatrix"),
    ("fecomponenttransfer", "feComponentTransfer"),
    ("fecomposite", "feComposite"),
    ("feconvolvematrix", "feConvolveMatrix"),
    ("fediffuselighting", "feDiffuseLighting"),
    ("fedisplacementmap", "feDisplacementMap"),
    ("fedistantlight", "feDistantLight"),
    ("fedropshadow", "feDropShadow"),
    ("feflood", "feFlood"),
    ("fefunca", "feFuncA"),
    ("fefuncb", "feFuncB"),
    ("fefuncg", "feFuncG"),
    ("fefuncr", "feFuncR"),
    ("fegaussianblur", "feGaussianBlur"),
    ("feimage", "feImage"),
    ("femerge", "feMerge"),
    ("femergenode", "feMergeNode"),
    ("femorphology", "feMorphology"),
    ("feoffset", "feOffset"),
    ("fepointlight", "fePointLight"),
    ("fespecularlighting", "feSpecularLighting"),
    ("fespotlight", "feSpotLight"),
    ("fetile", "feTile"),
    ("feturbulence", "feTurbulence"),
    ("foreignobject", "foreignObject"),
    ("glyphref", "glyphRef"),
    ("lineargradient", "linearGradient"),
    ("radialgradient", "radialGradient"),
    ("textpath", "textPath"),
];

fn svg_adjusted(name: &str) -> Option<&'static str> {
    SVG_ADJUSTMENTS
        .iter()
        .find(|(from, _)| *from == name)
        .map(|(_, to)| *to)
}

/// `openImpliesClose`: the open elements a start tag closes while one of them is current.
fn implies_close(name: &str) -> &'static [&'static str] {
    const FORM: &[&str] = &[
        "input", "option", "optgroup", "select", "button", "datalist", "textarea",
    ];
    const P: &[&str] = &["p"];
    const HEADING: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6", "p"];
    match name {
        "tr" => &["tr", "th", "td"],
        "th" => &["th"],
        "td" => &["thead", "th", "td"],
        "body" => &["head", "link", "script"],
        "a" => &["a"],
        "li" => &["li"],
        "p" | "address" | "article" | "aside" | "blockquote" | "details" | "div" | "dl"
        | "fieldset" | "figcaption" | "figure" | "footer" | "form" | "header" | "hr" | "main"
        | "nav" | "ol" | "pre" | "section" | "table" | "ul" => P,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => HEADING,
        "select" | "input" | "output" | "button" | "datalist" | "textarea" => FORM,
        "option" => &["option"],
        "optgroup" => &["optgroup", "option"],
        "dd" | "dt" => &["dd", "dt"],
        "rt" | "rp" => &["rt", "rp"],
        "tbody" | "tfoot" => &["thead", "tbody"],
        _ => &[],
    }
}

/// The parser (`Parser`, HTML mode) as far as upstream's handler sees it: the text, and the
/// start and end tags that move its script-and-style depth.
struct Parser<'a> {
    html: &'a str,
    /// Open elements, the current one last (`stack`, whose first entry is the current one).
    stack: Vec<String>,
    /// `foreignContext`, the current one last.
    foreign: Vec<Foreign>,
    tagname: String,
    /// Whether `onopentag` is still due for the tag being read (`attribs` not null).
    opening: bool,
    skip_depth: usize,
    text: String,
}

impl<'a> Parser<'a> {
    fn new(html: &'a str) -> Self {
        Parser {
            html,
            stack: Vec::new(),
            foreign: vec![Foreign::None],
            tagname: String::new(),
            opening: false,
            skip_depth: 0,
            text: String::new(),
        }
    }

    fn slice(&self, start: isize, end: isize) -> String {
        let (Ok(start), Ok(end)) = (usize::try_from(start), usize::try_from(end)) else {
            return String::new();
        };
        let bytes = self.html.as_bytes();
        match bytes.get(start..end.min(bytes.len())) {
            Some(slice) => String::from_utf8_lossy(slice).into_owned(),
            None => String::new(),
        }
    }

    fn ontext(&mut self, start: isize, end: isize) {
        if self.skip_depth == 0 {
            let data = self.slice(start, end);
            self.text.push_str(&data);
        }
    }

    fn ontext_str(&mut self, data: &str) {
        if self.skip_depth == 0 {
            self.text.push_str(data);
        }
    }

    fn is_in_foreign_context(&self) -> bool {
        self.foreign.last().is_some_and(|&f| f != Foreign::None)
    }

    fn oncdata(&mut self, start: isize, end: isize) {
        // HTML mode: CDATA is text only in foreign content, else a comment.
        if self.is_in_foreign_context() {
            self.ontext(start, end);
        }
    }

    fn read_tag_name(&self, start: isize, end: isize) -> String {
        let name = self.slice(start, end).to_lowercase();
        if self.foreign.last() == Some(&Foreign::Svg) {
            return svg_adjusted(&name).map_or(name, str::to_owned);
        }
        if self.foreign.len() > 1
            && let Some(adjusted) = svg_adjusted(&name)
            && self.stack.iter().any(|open| open == adjusted)
        {
            return adjusted.to_owned();
        }
        if !self.is_in_foreign_context() && name == "image" {
            return "img".to_owned();
        }
        name
    }

    fn onopentagname(&mut self, start: isize, end: isize) {
        let name = self.read_tag_name(start, end);
        self.emit_open_tag(name);
    }

    fn emit_open_tag(&mut self, name: String) {
        if name == "form" && self.stack.iter().any(|open| open == "form") {
            self.tagname = String::new();
            return;
        }
        let closes = implies_close(&name);
        while self
            .stack
            .last()
            .is_some_and(|open| closes.contains(&open.as_str()))
        {
            self.pop_element();
        }
        if !VOID.contains(&name.as_str()) {
            self.stack.push(name.clone());
            if name == "svg" {
                self.foreign.push(Foreign::Svg);
            } else if name == "math" {
                self.foreign.push(Foreign::MathMl);
            } else if HTML_INTEGRATION.contains(&name.as_str()) {
                self.foreign.push(Foreign::None);
            }
        }
        self.tagname = name;
        self.opening = true;
    }

    /// `endOpenTag`: `onopentag` (and a void element's `onclosetag`, which moves nothing here).
    fn end_open_tag(&mut self) {
        if self.opening && is_skipped(&self.tagname) {
            self.skip_depth += 1;
        }
        self.opening = false;
        self.tagname.clear();
    }

    fn onclosetag(&mut self, start: isize, end: isize) {
        let name = self.read_tag_name(start, end);
        if !VOID.contains(&name.as_str()) {
            if let Some(from_top) = self.stack.iter().rev().position(|open| *open == name) {
                for _ in 0..=from_top {
                    self.pop_element();
                }
            } else if name == "p" {
                self.emit_open_tag("p".to_owned());
                self.close_current_tag();
            }
        }
    }

    fn onselfclosingtag(&mut self) {
        if self.is_in_foreign_context() {
            self.close_current_tag();
        } else {
            self.end_open_tag();
        }
    }

    fn pop_element(&mut self) {
        let Some(element) = self.stack.pop() else {
            return;
        };
        if matches!(element.as_str(), "math" | "svg")
            || HTML_INTEGRATION.contains(&element.as_str())
        {
            self.foreign.pop();
        }
        if is_skipped(&element) {
            self.skip_depth = self.skip_depth.saturating_sub(1);
        }
    }

    fn close_current_tag(&mut self) {
        let name = self.tagname.clone();
        self.end_open_tag();
        if self.stack.last() == Some(&name) {
            self.pop_element();
        }
    }
}

/// Upstream's handler counts these: their text is not collected.
fn is_skipped(name: &str) -> bool {
    name == "script" || name == "style"
}
