//! The fixture HTTP server of a web scenario: bound to 127.0.0.1 on a port of its own, it
//! answers each request with its declared route (exactly the declared headers, plus
//! `Content-Length`, then the connection closes) or an empty 404, and records what it saw.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A route as the server answers it (every `{server}` already replaced).
#[derive(Clone, Debug)]
pub struct Answer {
    /// The request method it answers.
    pub method: String,
    /// The request target it answers, with its query, exactly.
    pub path: String,
    /// The status code.
    pub status: u16,
    /// The headers, in order, as declared.
    pub headers: Vec<(String, String)>,
    /// The body's bytes.
    pub body: Vec<u8>,
    /// How long to wait before the status line.
    pub delay: Duration,
}

/// A request the server received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The method.
    pub method: String,
    /// The request target.
    pub path: String,
    /// The headers, names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body's bytes.
    pub body: Vec<u8>,
}

/// A running fixture server; it stops when dropped.
#[derive(Debug)]
pub struct Server {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    stopping: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// The most a request head or body may hold: no tool sends more, and a peer that does cannot
/// make the runner hold more.
const REQUEST_LIMIT: usize = 1 << 20;
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

impl Server {
    /// Starts a server answering `answers` on 127.0.0.1, on a port the system chooses.
    pub fn start(answers: Vec<Answer>) -> std::io::Result<Server> {
        start_with(|_| answers)
    }

    /// `http://127.0.0.1:PORT`, what `{server}` stands for.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The port, chosen before any route is answered (so routes may name the origin).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The requests received so far, in the order they arrived.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // The accepting thread waits in `accept`: a connection of our own wakes it to stop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Binds a server whose answers need its own origin: `answers` gets it and builds the routes.
pub fn start_with(answers: impl FnOnce(&str) -> Vec<Answer>) -> std::io::Result<Server> {
    // The port is only known once bound, so bind first, then hand the routes over.
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let port = listener.local_addr()?.port();
    let origin = format!("http://127.0.0.1:{port}");
    let routes = answers(&origin);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let stopping = Arc::new(AtomicBool::new(false));
    let thread = {
        let (seen, stopping) = (Arc::clone(&seen), Arc::clone(&stopping));
        let routes = Arc::new(routes);
        std::thread::spawn(move || accept(&listener, &routes, &seen, &stopping))
    };
    Ok(Server {
        port,
        seen,
        stopping,
        thread: Some(thread),
    })
}

/// Accepts connections until told to stop, each answered on a thread of its own (a route may
/// wait, and a client may open another connection meanwhile, for a redirect). A delayed route
/// stops waiting when the server stops.
fn accept(
    listener: &TcpListener,
    answers: &Arc<Vec<Answer>>,
    seen: &Arc<Mutex<Vec<Seen>>>,
    stopping: &Arc<AtomicBool>,
) {
    loop {
        let accepted = listener.accept();
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        match accepted {
            // Not joined: a client that holds a connection open without a request must not hold
            // up the end of the scenario; the thread ends at its read timeout.
            Ok((stream, _)) => {
                let (answers, seen, stopping) =
                    (Arc::clone(answers), Arc::clone(seen), Arc::clone(stopping));
                std::thread::spawn(move || serve(stream, &answers, &seen, &stopping));
            }
            // A failed accept (out of descriptors, say) is retried after a pause.
            Err(_) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
}

/// Reads one request, records it, answers it and closes the connection.
fn serve(stream: TcpStream, answers: &[Answer], seen: &Mutex<Vec<Seen>>, stopping: &AtomicBool) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let Some(request) = read_request(&mut BufReader::new(stream)) else {
        let _ = writer.shutdown(Shutdown::Both);
        return;
    };
    let answer = answers
        .iter()
        .find(|a| a.method == request.method && a.path == request.path);
    if let Ok(mut seen) = seen.lock() {
        seen.push(request);
    }
    let bytes = match answer {
        Some(answer) => {
            wait(answer.delay, stopping);
            response(answer)
        }
        None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
    };
    let _ = writer.write_all(&bytes);
    let _ = writer.flush();
    let _ = writer.shutdown(Shutdown::Both);
}

/// Waits `delay`, or less when the server stops.
fn wait(delay: Duration, stopping: &AtomicBool) {
    let started = std::time::Instant::now();
    while started.elapsed() < delay && !stopping.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(5).min(delay));
    }
}

/// The bytes of a route's response: the status line, the declared headers in order, a
/// `Content-Length` unless one is declared, and the body.
fn response(answer: &Answer) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", answer.status, reason(answer.status));
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !answer
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-length"))
    {
        head.push_str(&format!("Content-Length: {}\r\n", answer.body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&answer.body);
    bytes
}

/// A reason phrase for the status line (clients ignore it; it is there to look ordinary).
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// One request: its head, and a body of `Content-Length` bytes or chunked; `None` when the
/// connection ends first or the request is larger than [`REQUEST_LIMIT`].
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Seen> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let read = reader
            .by_ref()
            .take((REQUEST_LIMIT - head.len().min(REQUEST_LIMIT)) as u64)
            .read_until(b'\n', &mut head)
            .ok()?;
        if read == 0 {
            return None;
        }
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut parsed = httparse::Request::new(&mut headers);
    let httparse::Status::Complete(_) = parsed.parse(&head).ok()? else {
        return None;
    };
    let method = parsed.method?.to_owned();
    let path = parsed.path?.to_owned();
    let headers: Vec<(String, String)> = parsed
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_ascii_lowercase(),
                String::from_utf8_lossy(h.value).into_owned(),
            )
        })
        .collect();
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        read_chunked(reader)?
    } else {
        let length: usize = header("content-length")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        if length > REQUEST_LIMIT {
            return None;
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
        body
    };
    Some(Seen {
        method,
        path,
        headers,
        body,
    })
}

/// A chunked body, decoded.
fn read_chunked(reader: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).ok()?;
        let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
        if size == 0 {
            let mut end = String::new();
            reader.read_line(&mut end).ok()?;
            return Some(body);
        }
        if body.len() + size > REQUEST_LIMIT {
            return None;
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).ok()?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf).ok()?;
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read as _, Write as _};

    use super::{Answer, Server, start_with};

    fn get(port: u16, request: &str) -> String {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
        stream.write_all(request.as_bytes()).expect("sent");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read to the end");
        answer
    }

    #[test]
    fn a_declared_route_is_answered_with_exactly_its_headers_and_a_length() {
        let server = start_with(|origin| {
            vec![Answer {
                method: "GET".into(),
                path: "/a?x=1".into(),
                status: 302,
                headers: vec![
                    ("Location".into(), format!("{origin}/b")),
                    ("X-B".into(), "2".into()),
                ],
                body: b"moved".to_vec(),
                delay: std::time::Duration::ZERO,
            }]
        })
        .expect("started");
        let answer = get(
            server.port(),
            "GET /a?x=1 HTTP/1.1\r\nHost: x\r\nX-Y: Z\r\n\r\n",
        );
        assert_eq!(
            answer,
            format!(
                "HTTP/1.1 302 Found\r\nLocation: {}/b\r\nX-B: 2\r\nContent-Length: 5\r\n\r\nmoved",
                server.origin()
            )
        );
        let seen = server.seen();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].path, "/a?x=1");
        assert!(seen[0].headers.contains(&("x-y".into(), "Z".into())));
    }

    #[test]
    fn an_undeclared_route_gets_an_empty_404_and_bodies_are_recorded() {
        let server = Server::start(Vec::new()).expect("started");
        let answer = get(
            server.port(),
            "POST /exa HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
        );
        assert_eq!(
            answer,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
        );
        let chunked = get(
            server.port(),
            "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n1\r\nd\r\n0\r\n\r\n",
        );
        assert!(chunked.starts_with("HTTP/1.1 404"));
        let seen = server.seen();
        assert_eq!(seen[0].body, b"{}");
        assert_eq!(seen[1].body, b"abcd");
    }

    #[test]
    fn a_client_that_holds_a_connection_open_does_not_hold_up_the_servers_end() {
        let server = start_with(|_| {
            vec![Answer {
                method: "GET".into(),
                path: "/slow".into(),
                status: 200,
                headers: Vec::new(),
                body: Vec::new(),
                delay: std::time::Duration::from_secs(60),
            }]
        })
        .expect("started");
        let _silent = std::net::TcpStream::connect(("127.0.0.1", server.port())).expect("connects");
        let mut slow =
            std::net::TcpStream::connect(("127.0.0.1", server.port())).expect("connects");
        slow.write_all(b"GET /slow HTTP/1.1\r\n\r\n").expect("sent");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let stopping = std::time::Instant::now();
        drop(server);
        assert!(
            stopping.elapsed() < std::time::Duration::from_secs(2),
            "the server took {:?} to stop",
            stopping.elapsed()
        );
    }

    #[test]
    fn a_request_that_never_ends_its_head_is_dropped_without_an_answer() {
        let server = Server::start(Vec::new()).expect("started");
        let mut stream =
            std::net::TcpStream::connect(("127.0.0.1", server.port())).expect("connects");
        stream.write_all(b"GET / HTTP/1.1\r\nHost").expect("sent");
        stream
            .shutdown(std::net::Shutdown::Write)
            .expect("half-closed");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        assert!(answer.is_empty());
        assert!(server.seen().is_empty());
    }
}
