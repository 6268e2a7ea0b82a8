//! The transport of both web tools (execution-web.md §2): one bounded request, redirects, caps, errors.
//!
//! Upstream's `requestBounded` runs on Bun's `fetch`. The reference sends through `ureq` with its
//! automatic behaviour turned off where it departs from `fetch`: redirects are followed here, as
//! the Fetch Standard says (ureq refuses a 307 of a `POST` and resolves `Location` by its own
//! rules), no proxy is read from the environment, and content decoding is done here on the raw
//! body, so that the byte cap counts decoded bytes as Bun's reader hands them over (§2.1).

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::config::{AutoHeaderValue, RedirectAuthHeaders};

use crate::js_string::JsString;
use crate::json::format_number;

/// The default headers Bun 1.3.8 adds to a request that sets none of them (§2.1).
const USER_AGENT: &str = "Bun/1.3.8";
const ACCEPT: &str = "*/*";
const ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd";

/// At most this many redirects are followed (Fetch Standard, §2.2).
const MAX_REDIRECTS: usize = 20;

/// The text cap, for every provider API request (§2.4).
pub const TEXT_MAX_BYTES: usize = 5_242_880;
/// The media cap, for the native fetch and the media probes (§2.4).
pub const MEDIA_MAX_BYTES: usize = 20_971_520;

/// A request method; the tools use only these two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// One request as `requestBounded` takes it (§2.1).
#[derive(Clone, Debug)]
pub struct Request {
    /// The URL string exactly as the caller gave it; the texts of §2.5 name it so.
    pub url: JsString,
    pub method: Method,
    /// Headers in the order upstream writes them.
    pub headers: Vec<(&'static str, String)>,
    pub body: Option<String>,
    /// `timeoutMs`, a double (§2.3).
    pub timeout_ms: f64,
    pub max_bytes: usize,
    /// When the caller's signal aborts (`context.abort`, §2.3); `None` when it never does.
    pub abort: Option<Instant>,
}

/// A final 2xx response with its body read and decoded.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    /// The URL of the last response after redirects, as the WHATWG parser serializes it.
    pub final_url: String,
    /// The `content-type` fields joined with `, `, as `Headers.get` returns them.
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// `WebHttpError` (§2.5): the raised text is [`HttpError::message`].
#[derive(Clone, Debug, PartialEq)]
pub enum HttpError {
    /// `HTTP_ERROR`: the final status is not 2xx.
    Status { status: u16, url: JsString },
    /// `OVERSIZED`: the body passed the cap.
    Oversized { max: usize },
    /// `TIMEOUT`: the timer fired.
    Timeout { ms: f64 },
    /// `ABORTED`: the caller's signal aborted the request, and the timer had not fired.
    Aborted,
    /// `NETWORK_ERROR`: the request or the body failed otherwise.
    Network(Network),
}

/// What went wrong below HTTP, each with the runtime text the reference writes (§2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    /// The connection was refused or could not be made: Bun's own text.
    Unreachable,
    /// The host name did not resolve.
    HostNotFound,
    /// TLS failed.
    Tls,
    /// The connection broke while the response came in.
    Reset,
    /// The response was not HTTP/1.1 as ureq reads it, or its body ended early.
    Malformed,
    /// A 21st redirect.
    TooManyRedirects,
    /// A `Location` that does not resolve to an `http` or `https` URL.
    BadRedirect,
    /// The URL or a header could not be put on the wire.
    BadRequest,
    /// The `Content-Encoding` did not decode.
    BadEncoding,
}

impl Network {
    fn text(self) -> &'static str {
        match self {
            Network::Unreachable => "Unable to connect. Is the computer able to access the url?",
            Network::HostNotFound => "host not found",
            Network::Tls => "TLS handshake failed",
            Network::Reset => "connection reset",
            Network::Malformed => "malformed HTTP response",
            Network::TooManyRedirects => "too many redirects",
            Network::BadRedirect => "invalid redirect location",
            Network::BadRequest => "invalid request",
            Network::BadEncoding => "content decoding failed",
        }
    }
}

impl HttpError {
    /// The raised text of §2.5.
    pub fn message(&self) -> JsString {
        match self {
            HttpError::Status { status, url } => {
                let mut text = JsString::from(format!("HTTP {status} for "));
                text.push_units(url.units());
                text
            }
            HttpError::Oversized { max } => {
                JsString::from(format!("response body exceeded {max} bytes"))
            }
            HttpError::Timeout { ms } => {
                JsString::from(format!("request timed out after {}ms", format_number(*ms)))
            }
            HttpError::Aborted => JsString::from("request aborted by caller"),
            HttpError::Network(n) => JsString::from(format!("network error: {}", n.text())),
        }
    }
}

/// Sends `request`, following redirects, and reads the body under the cap (`requestBounded`).
///
/// The transport runs on a thread of its own while this one keeps the timer and the abort:
/// a socket timeout is a kernel timer, which rounds a long timeout up (by up to an eighth: a
/// 30 s timeout may fire 2 s late at 250 Hz), while upstream's timer fires on time. A
/// transport still running when the deadline passes is left to end at its own, later, deadline.
///
/// # Errors
///
/// The [`HttpError`] whose text upstream raises.
pub fn send(request: &Request) -> Result<Response, HttpError> {
    let started = Instant::now();
    // `Duration::try_from_secs_f64` refuses what no timer can hold; such a timer never fires.
    let timer = Duration::try_from_secs_f64(request.timeout_ms / 1000.0)
        .ok()
        .and_then(|l| started.checked_add(l));
    // The one deadline is the sooner of the two; the timer's text wins a tie (§2.5).
    let deadline = match (timer, request.abort) {
        (Some(t), Some(a)) => Some(t.min(a)),
        (t, a) => t.or(a),
    };
    let Some(deadline) = deadline else {
        return transport(request, timer, None);
    };
    let fired = if timer.is_some_and(|t| t <= deadline) {
        HttpError::Timeout {
            ms: request.timeout_ms,
        }
    } else {
        HttpError::Aborted
    };
    // A signal already aborted, or a timer of zero, has passed: nothing is sent, as upstream
    // aborts its controller at once.
    if deadline <= Instant::now() {
        return Err(fired);
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let owned = request.clone();
    let loose = deadline.checked_add(TRANSPORT_GRACE);
    let spawned = std::thread::Builder::new()
        .name("web-transport".to_owned())
        .spawn(move || {
            let _ = sender.send(transport(&owned, timer, loose.or(Some(deadline))));
        });
    if spawned.is_err() {
        // No thread to be had: the transport runs here, on its socket timeouts alone.
        return transport(request, timer, Some(deadline));
    }
    match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(result) => result,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(fired),
        // The transport's thread ended without a word: it can only have panicked.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(HttpError::Network(Network::Reset))
        }
    }
}

/// How long past the deadline the transport's own socket timeouts may run before they end it.
const TRANSPORT_GRACE: Duration = Duration::from_secs(5);

/// The request itself: redirects followed, the body read under the cap. `timer` names which
/// error a failure after it is; `deadline` bounds the sockets' waits.
fn transport(
    request: &Request,
    timer: Option<Instant>,
    deadline: Option<Instant>,
) -> Result<Response, HttpError> {
    let timeout = || HttpError::Timeout {
        ms: request.timeout_ms,
    };
    let fired = |at: Option<Instant>| at.is_some_and(|at| Instant::now() >= at);
    // What fired, the timer first: it wins even when the caller aborted too
    // (`mapTransportError`, §2.5).
    let fired_error = || {
        if fired(timer) {
            Some(timeout())
        } else if fired(request.abort) {
            Some(HttpError::Aborted)
        } else {
            None
        }
    };
    // Whatever else failed, what fired is the error.
    let fail = |e: HttpError| fired_error().unwrap_or(e);
    let lossy = request.url.to_string_lossy();
    let mut url = url::Url::parse(&lossy)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or(HttpError::Network(Network::BadRequest))?;
    let mut method = request.method;
    let mut body = request.body.clone();
    let mut headers = request.headers.clone();
    let mut redirects = 0;
    loop {
        let remaining = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if remaining.is_some_and(|r| r.is_zero()) {
            return Err(fired_error().unwrap_or_else(timeout));
        }
        let response = exchange(&url, method, &headers, body.as_deref(), remaining)
            .map_err(|e| fail(classify(&e).unwrap_or_else(timeout)))?;
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get("location")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        if let (true, Some(location)) = (matches!(status, 301 | 302 | 303 | 307 | 308), location) {
            redirects += 1;
            if redirects > MAX_REDIRECTS {
                return Err(HttpError::Network(Network::TooManyRedirects));
            }
            let next = url
                .join(&location)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .ok_or(HttpError::Network(Network::BadRedirect))?;
            // Fetch: a 303 (not HEAD), or a 301/302 of a POST, continues as GET without a body.
            if status == 303 || (matches!(status, 301 | 302) && method == Method::Post) {
                method = Method::Get;
                body = None;
                headers.retain(|(name, _)| {
                    !matches!(
                        name.to_ascii_lowercase().as_str(),
                        "content-encoding"
                            | "content-language"
                            | "content-location"
                            | "content-type"
                    )
                });
            }
            if next.origin() != url.origin() {
                headers.retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
            }
            url = next;
            continue;
        }
        if !(200..=299).contains(&status) {
            return Err(HttpError::Status {
                status,
                url: request.url.clone(),
            });
        }
        let content_type = joined(response.headers(), "content-type");
        let encoding = joined(response.headers(), "content-encoding");
        let raw = response.into_body().into_reader();
        // `OVERSIZED` is raised as it is, whatever fired meanwhile (`readBodyWithCap`).
        let bytes =
            read_capped(raw, encoding.as_deref(), request.max_bytes).map_err(|e| match e {
                HttpError::Oversized { .. } => e,
                HttpError::Status { .. }
                | HttpError::Timeout { .. }
                | HttpError::Aborted
                | HttpError::Network(_) => fail(e),
            })?;
        return Ok(Response {
            status,
            final_url: url.to_string(),
            content_type,
            body: bytes,
        });
    }
}

/// One exchange without redirects: ureq configured to add exactly Bun's defaults.
fn exchange(
    url: &url::Url,
    method: Method,
    headers: &[(&'static str, String)],
    body: Option<&str>,
    timeout: Option<Duration>,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .redirect_auth_headers(RedirectAuthHeaders::Never)
        .proxy(None)
        .user_agent(AutoHeaderValue::Provided(Arc::new(USER_AGENT.to_owned())))
        .accept(AutoHeaderValue::Provided(Arc::new(ACCEPT.to_owned())))
        .accept_encoding(AutoHeaderValue::Provided(Arc::new(
            ACCEPT_ENCODING.to_owned(),
        )))
        .timeout_global(timeout)
        .build();
    let agent = ureq::Agent::new_with_config(config);
    // The fragment is never sent (Fetch); `http::Uri` would keep or refuse it.
    let mut url = url.clone();
    url.set_fragment(None);
    match method {
        Method::Get => {
            let mut builder = agent.get(url.as_str());
            for (name, value) in headers {
                builder = builder.header(*name, value.as_str());
            }
            builder.call()
        }
        Method::Post => {
            let mut builder = agent.post(url.as_str());
            for (name, value) in headers {
                builder = builder.header(*name, value.as_str());
            }
            builder.send(body.unwrap_or(""))
        }
    }
}

/// The runtime text of a ureq failure (§2.5: only the refused connection is pinned); `None`
/// when the transport's deadline passed, which the caller tells apart.
fn classify(error: &ureq::Error) -> Option<HttpError> {
    Some(HttpError::Network(match error {
        ureq::Error::Timeout(_) => return None,
        ureq::Error::Io(io) => io_kind(io),
        ureq::Error::HostNotFound => Network::HostNotFound,
        ureq::Error::ConnectionFailed => Network::Unreachable,
        ureq::Error::Tls(_) => Network::Tls,
        ureq::Error::Protocol(_) => Network::Malformed,
        ureq::Error::TooManyRedirects => Network::TooManyRedirects,
        ureq::Error::Http(_) | ureq::Error::BadUri(_) => Network::BadRequest,
        _ => Network::Reset,
    }))
}

fn io_kind(io: &std::io::Error) -> Network {
    use std::io::ErrorKind;
    match io.kind() {
        ErrorKind::ConnectionRefused
        | ErrorKind::AddrNotAvailable
        | ErrorKind::HostUnreachable
        | ErrorKind::NetworkUnreachable => Network::Unreachable,
        ErrorKind::UnexpectedEof => Network::Malformed,
        _ => Network::Reset,
    }
}

/// Every field of `name`, joined with `, ` as `Headers.get` joins them.
fn joined(headers: &ureq::http::HeaderMap, name: &str) -> Option<String> {
    let values: Vec<String> = headers
        .get_all(name)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// Reads the body through its content decoders, failing as soon as the total passes `max`.
fn read_capped(
    raw: impl Read + 'static,
    encoding: Option<&str>,
    max: usize,
) -> Result<Vec<u8>, HttpError> {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut raw = Transport(raw);
    // A response without a body gives zero bytes (§2.4), whatever its `Content-Encoding` says.
    let first = loop {
        match raw.read(&mut chunk) {
            Ok(n) => break n.min(chunk.len()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(HttpError::Network(io_kind(&e))),
        }
    };
    if first == 0 {
        return Ok(Vec::new());
    }
    let prefixed = Prefixed {
        head: chunk[..first].to_vec(),
        at: 0,
        rest: Box::new(raw),
    };
    let mut reader = decoded(Box::new(prefixed), encoding);
    let mut out = Vec::new();
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => return Ok(out),
            Ok(n) => {
                out.extend_from_slice(&chunk[..n.min(chunk.len())]);
                if out.len() > max {
                    return Err(HttpError::Oversized { max });
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let from_transport = e.get_ref().is_some_and(|inner| inner.is::<FromTransport>());
                let network = if from_transport || encoding.is_none() {
                    io_kind(&e)
                } else {
                    Network::BadEncoding
                };
                return Err(HttpError::Network(network));
            }
        }
    }
}

/// The raw body, its failures marked so that they are told apart from a decoder's.
struct Transport<R>(R);

/// The mark on a failure of the connection under the decoders.
#[derive(Debug)]
struct FromTransport(String);

impl std::fmt::Display for FromTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FromTransport {}

impl<R: Read> Read for Transport<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|e| std::io::Error::new(e.kind(), FromTransport(e.to_string())))
    }
}

/// The body decoded as Bun decodes it: each listed coding undone, the last applied first.
///
/// As built: an unknown coding (`identity` included) is passed through, and `deflate` is read
/// as zlib, or as raw deflate when the first bytes are no zlib header.
fn decoded(raw: Box<dyn Read>, encoding: Option<&str>) -> Box<dyn Read> {
    let Some(encoding) = encoding else { return raw };
    let codings: Vec<String> = encoding
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    let mut reader = raw;
    for coding in codings.iter().rev() {
        reader = match coding.as_str() {
            "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(reader)),
            "deflate" => Box::new(Deflate::new(reader)),
            "br" => Box::new(brotli_decompressor::Decompressor::new(reader, 8192)),
            "zstd" => match ruzstd::decoding::StreamingDecoder::new(reader) {
                Ok(decoder) => Box::new(decoder),
                Err(_) => Box::new(Failing),
            },
            _ => reader,
        };
    }
    reader
}

/// A reader that fails: a zstd body whose frame header did not read.
struct Failing;

impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "bad zstd frame",
        ))
    }
}

/// `deflate`: zlib-wrapped as HTTP says, or raw deflate as some servers send it.
enum Deflate {
    /// Not started: the first two bytes decide.
    Start(Option<Box<dyn Read>>),
    Zlib(flate2::read::ZlibDecoder<Prefixed>),
    Raw(flate2::read::DeflateDecoder<Prefixed>),
}

impl Deflate {
    fn new(inner: Box<dyn Read>) -> Deflate {
        Deflate::Start(Some(inner))
    }
}

/// Bytes already read in front of the rest of a reader.
struct Prefixed {
    head: Vec<u8>,
    at: usize,
    rest: Box<dyn Read>,
}

impl Read for Prefixed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at < self.head.len() {
            let n = (self.head.len() - self.at).min(buf.len());
            buf[..n].copy_from_slice(&self.head[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        self.rest.read(buf)
    }
}

impl Read for Deflate {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Deflate::Start(inner) = self {
            let Some(mut inner) = inner.take() else {
                return Ok(0);
            };
            let mut head = Vec::with_capacity(2);
            let mut byte = [0u8; 1];
            while head.len() < 2 {
                match inner.read(&mut byte)? {
                    0 => break,
                    _ => head.push(byte[0]),
                }
            }
            // A zlib header: CM 8, and the two bytes a multiple of 31 (RFC 1950).
            let zlib = head.len() == 2
                && head[0] & 0x0F == 8
                && (u16::from(head[0]) << 8 | u16::from(head[1])) % 31 == 0;
            let prefixed = Prefixed {
                head,
                at: 0,
                rest: inner,
            };
            *self = if zlib {
                Deflate::Zlib(flate2::read::ZlibDecoder::new(prefixed))
            } else {
                Deflate::Raw(flate2::read::DeflateDecoder::new(prefixed))
            };
        }
        match self {
            Deflate::Start(_) => Ok(0),
            Deflate::Zlib(d) => d.read(buf),
            Deflate::Raw(d) => d.read(buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_upstreams() {
        let status = HttpError::Status {
            status: 404,
            url: JsString::from(" http://x/a "),
        };
        assert!(status.message().eq_str("HTTP 404 for  http://x/a "));
        assert!(
            HttpError::Oversized { max: 5_242_880 }
                .message()
                .eq_str("response body exceeded 5242880 bytes")
        );
        assert!(
            HttpError::Timeout { ms: 2.01 * 1000.0 }
                .message()
                .eq_str("request timed out after 2009.9999999999998ms")
        );
        assert!(
            HttpError::Aborted
                .message()
                .eq_str("request aborted by caller")
        );
        assert!(
            HttpError::Network(Network::Unreachable).message().eq_str(
                "network error: Unable to connect. Is the computer able to access the url?"
            )
        );
    }

    fn decode_all(bytes: Vec<u8>, encoding: &str) -> Result<Vec<u8>, HttpError> {
        read_capped(std::io::Cursor::new(bytes), Some(encoding), 1000)
    }

    #[test]
    fn codings_decode() {
        use std::io::Write;
        let text = b"hello hello hello".to_vec();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).ok();
        let gz = gz.finish().unwrap_or_default();
        assert_eq!(decode_all(gz.clone(), "gzip"), Ok(text.clone()));
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&text).ok();
        assert_eq!(
            decode_all(z.finish().unwrap_or_default(), "deflate"),
            Ok(text.clone())
        );
        let mut raw =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        raw.write_all(&text).ok();
        assert_eq!(
            decode_all(raw.finish().unwrap_or_default(), "deflate"),
            Ok(text.clone())
        );
        assert_eq!(decode_all(text.clone(), "identity"), Ok(text.clone()));
        assert_eq!(
            decode_all(b"not gzip".to_vec(), "gzip"),
            Err(HttpError::Network(Network::BadEncoding))
        );
        assert!(decode_all(b"junk".to_vec(), "zstd").is_err());
        assert!(decode_all(b"junk!junk!".to_vec(), "br").is_err());
    }

    #[test]
    fn brotli_and_zstd_decode() {
        // A hand-made brotli stream: WBITS 16, one uncompressed meta-block of 5 bytes, an
        // empty last meta-block (RFC 7932 §9.2).
        let mut br = vec![0x40, 0x00, 0x10];
        br.extend_from_slice(b"hello");
        br.push(0x03);
        assert_eq!(decode_all(br, "br"), Ok(b"hello".to_vec()));
        let mut zstd = Vec::new();
        ruzstd::encoding::compress(
            &b"hello zstd"[..],
            &mut zstd,
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        assert_eq!(decode_all(zstd, "zstd"), Ok(b"hello zstd".to_vec()));
    }

    #[test]
    fn an_empty_body_is_empty_whatever_its_coding() {
        assert_eq!(decode_all(Vec::new(), "gzip"), Ok(Vec::new()));
        assert_eq!(decode_all(Vec::new(), "br"), Ok(Vec::new()));
    }

    #[test]
    fn the_cap_counts_decoded_bytes() {
        assert_eq!(
            read_capped(std::io::Cursor::new(vec![b'a'; 1000]), None, 1000).map(|b| b.len()),
            Ok(1000)
        );
        assert_eq!(
            read_capped(std::io::Cursor::new(vec![b'a'; 1001]), None, 1000),
            Err(HttpError::Oversized { max: 1000 })
        );
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&[b'a'; 5000]).ok();
        assert_eq!(
            decode_all(gz.finish().unwrap_or_default(), "gzip"),
            Err(HttpError::Oversized { max: 1000 })
        );
    }
}
