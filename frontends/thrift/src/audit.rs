//! The audit log: one line per call, as Hive's `HiveMetaStore.audit` logger writes it
//! (`ugi=<user>` TAB `ip=<address>` TAB `cmd=<command> : <objects>`), plus who authenticated,
//! the outcome and the time the call took.
//!
//! The dispatcher formats each line on the caller's thread and hands it to one writer thread
//! through a queue of at most [`AUDIT_QUEUE_LINES_MAX`] lines. A caller waits while the queue is
//! full: lines are never dropped to keep up. The writer buffers and flushes whenever the queue
//! runs empty, on [`AuditLog::flush`] and when the log is dropped; a file is opened for append,
//! created `0600`, and opened again on [`AuditLog::reopen`] (SIGHUP) so that logrotate can move
//! it. Write errors are counted (`audit.write_errors`) and logged at most once a
//! [`AUDIT_ERROR_REPORT_INTERVAL`].
//!
//! Text lines are tab-separated fields (the keys of JSON lines are the same), here with the
//! tabs shown as `|`:
//!
//! ```text
//! 2025-01-02T03:04:05.678Z|ugi=alice|ip=10.0.0.7|cmd=get_database : db=hive.sales|outcome=ok|duration_us=85
//! ```
//!
//! Nothing a client sends reaches a line unescaped: control characters (tabs, newlines, the
//! escape that starts a terminal's colour sequences) are written as `\t`, `\n`, `\u{1b}`, and a
//! failure's message is quoted to at most [`AUDIT_MESSAGE_CHARS_MAX`] characters, with its length.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::net::IpAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use hivestore_engine::calendar::DateTime;
use thrift::ApplicationErrorKind;

use crate::auth::Caller;
use crate::service::CallTargets;

/// The most lines waiting for the writer; a call that would queue one more waits for room.
pub const AUDIT_QUEUE_LINES_MAX: usize = 8192;
/// The most characters of a failure's message an audit line quotes.
pub const AUDIT_MESSAGE_CHARS_MAX: usize = 160;
/// The most characters of an unknown method's name an audit line quotes.
pub const AUDIT_COMMAND_CHARS_MAX: usize = 128;
/// Write errors are logged at most once in this interval (each is counted).
pub const AUDIT_ERROR_REPORT_INTERVAL: Duration = Duration::from_secs(60);
/// The writer's buffer: lines collect here until the queue runs empty or it fills.
const AUDIT_WRITE_BUFFER_BYTES: usize = 64 * 1024;
/// What the file is created with: the audit trail names who did what, for its owner only.
const AUDIT_FILE_MODE: u32 = 0o600;

/// Where audit lines go (`--audit-log`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AuditDestination {
    /// Nowhere: no audit log.
    #[default]
    Off,
    /// The server's standard error, beside its main log.
    Stderr,
    /// A file, appended to, created `0600`, opened again on SIGHUP.
    File(PathBuf),
}

impl AuditDestination {
    /// Reads `off`, `stderr` or a path.
    pub fn parse(text: &str) -> Result<AuditDestination, String> {
        match text.trim() {
            "" => Err("audit_log is empty: give off, stderr or a file path".to_string()),
            off if off.eq_ignore_ascii_case("off") => Ok(AuditDestination::Off),
            stderr if stderr.eq_ignore_ascii_case("stderr") => Ok(AuditDestination::Stderr),
            _ => Ok(AuditDestination::File(PathBuf::from(text))),
        }
    }
}

/// How audit lines are written (`--audit-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuditFormat {
    /// Tab-separated `key=value` fields after the time, as Hive's audit lines.
    #[default]
    Text,
    /// One JSON object a line, with the same keys.
    Json,
}

impl AuditFormat {
    /// Reads `text` or `json`.
    pub fn parse(text: &str) -> Result<AuditFormat, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(AuditFormat::Text),
            "json" => Ok(AuditFormat::Json),
            _ => Err(format!("audit_format {text:?} is not text or json")),
        }
    }
}

/// The audit log's settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuditSettings {
    /// Where lines go.
    pub destination: AuditDestination,
    /// How they are written.
    pub format: AuditFormat,
}

/// A text cut to a prefix for an audit line, with its whole length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quoted {
    /// At most the limit's characters of the text.
    pub prefix: String,
    /// How many characters the whole text has.
    pub chars: usize,
}

impl Quoted {
    /// The first `chars_max` characters of `text`, and its length.
    pub fn of(text: &str, chars_max: usize) -> Quoted {
        let prefix_end = text
            .char_indices()
            .nth(chars_max)
            .map_or(text.len(), |(index, _)| index);
        Quoted {
            prefix: text[..prefix_end].to_string(),
            chars: text.chars().count(),
        }
    }

    /// Whether the prefix is less than the whole.
    pub fn is_cut(&self) -> bool {
        self.prefix.chars().count() < self.chars
    }
}

/// How a call ended, as its audit line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallOutcome {
    /// Answered.
    Ok,
    /// Failed: a declared exception's IDL type, a `TApplicationException` with its kind, or
    /// the connection's end; and the message.
    Failed {
        /// `NoSuchObjectException`, `TApplicationException(UNKNOWN_METHOD)`, ...
        kind: &'static str,
        /// The message, cut.
        message: Quoted,
    },
}

impl CallOutcome {
    /// A failure of `kind` saying `message`.
    pub fn failed(kind: &'static str, message: &str) -> CallOutcome {
        CallOutcome::Failed {
            kind,
            message: Quoted::of(message, AUDIT_MESSAGE_CHARS_MAX),
        }
    }

    /// The outcome of a call that returned `error`.
    pub fn of_error(error: &thrift::Error) -> CallOutcome {
        if let Some((kind, message)) = crate::errors::declared_parts(error) {
            return CallOutcome::failed(kind, message.unwrap_or_default());
        }
        match error {
            thrift::Error::User(error) => {
                let exception = error
                    .downcast_ref::<hivestore_idl::hive_metastore::ConfigValSecurityException>();
                match exception {
                    Some(exception) => CallOutcome::failed(
                        "ConfigValSecurityException",
                        exception.message.as_deref().unwrap_or_default(),
                    ),
                    None => CallOutcome::failed("TException", &error.to_string()),
                }
            }
            thrift::Error::Application(error) => {
                CallOutcome::failed(application_kind(error.kind), &error.message)
            }
            thrift::Error::Protocol(error) => {
                CallOutcome::failed("TProtocolException", &error.message)
            }
            thrift::Error::Transport(error) => {
                CallOutcome::failed("TTransportException", &error.message)
            }
        }
    }
}

/// The audit name of a `TApplicationException` of `kind`.
pub fn application_kind(kind: ApplicationErrorKind) -> &'static str {
    match kind {
        ApplicationErrorKind::UnknownMethod => "TApplicationException(UNKNOWN_METHOD)",
        ApplicationErrorKind::InvalidMessageType => "TApplicationException(INVALID_MESSAGE_TYPE)",
        ApplicationErrorKind::WrongMethodName => "TApplicationException(WRONG_METHOD_NAME)",
        ApplicationErrorKind::BadSequenceId => "TApplicationException(BAD_SEQUENCE_ID)",
        ApplicationErrorKind::MissingResult => "TApplicationException(MISSING_RESULT)",
        ApplicationErrorKind::InternalError => "TApplicationException(INTERNAL_ERROR)",
        ApplicationErrorKind::ProtocolError => "TApplicationException(PROTOCOL_ERROR)",
        ApplicationErrorKind::InvalidTransform => "TApplicationException(INVALID_TRANSFORM)",
        ApplicationErrorKind::InvalidProtocol => "TApplicationException(INVALID_PROTOCOL)",
        ApplicationErrorKind::UnsupportedClientType => {
            "TApplicationException(UNSUPPORTED_CLIENT_TYPE)"
        }
        _ => "TApplicationException(UNKNOWN)",
    }
}

/// One call, as its audit line tells it.
#[derive(Debug)]
pub struct AuditRecord<'a> {
    /// When the call began.
    pub time: SystemTime,
    /// The session's user (`Session::user`), if any.
    pub user: Option<&'a str>,
    /// Who the connection authenticated as, if it did.
    pub caller: Option<&'a Caller>,
    /// The client's address.
    pub ip: IpAddr,
    /// The method's wire name (an unknown one cut to [`AUDIT_COMMAND_CHARS_MAX`]).
    pub command: &'a str,
    /// The objects the call named.
    pub targets: &'a CallTargets,
    /// How it ended.
    pub outcome: &'a CallOutcome,
    /// How long it took, reply settled.
    pub duration: Duration,
}

impl AuditRecord<'_> {
    /// The record as one line of `format`, ending in `\n`.
    pub fn line(&self, format: AuditFormat) -> String {
        match format {
            AuditFormat::Text => self.text_line(),
            AuditFormat::Json => self.json_line(),
        }
    }

    fn text_line(&self) -> String {
        let mut line = String::with_capacity(160);
        line.push_str(&rfc3339_millis(self.time));
        line.push_str("\tugi=");
        push_escaped(&mut line, self.user.unwrap_or("-"));
        if let Some(caller) = self.caller {
            line.push_str("\tprincipal=");
            push_escaped(&mut line, &caller.principal);
            line.push_str("\tauth=");
            line.push_str(caller.method.name());
        }
        let _ = write!(line, "\tip={}\tcmd=", self.ip);
        push_escaped(&mut line, self.command);
        for (index, target) in self.targets.named.iter().enumerate() {
            line.push_str(if index == 0 { " : " } else { ", " });
            push_escaped(&mut line, target);
        }
        if self.targets.omitted > 0 {
            let _ = write!(line, " +{} more", self.targets.omitted);
        }
        line.push_str("\toutcome=");
        match self.outcome {
            CallOutcome::Ok => line.push_str("ok"),
            CallOutcome::Failed { kind, message } => {
                line.push_str(kind);
                line.push_str("\tmessage=\"");
                push_escaped(&mut line, &message.prefix);
                line.push('"');
                if message.is_cut() {
                    let _ = write!(line, "\tmessage_chars={}", message.chars);
                }
            }
        }
        let _ = writeln!(line, "\tduration_us={}", self.duration.as_micros());
        line
    }

    fn json_line(&self) -> String {
        let mut object = serde_json::Map::new();
        let mut put = |key: &str, value: serde_json::Value| {
            object.insert(key.to_string(), value);
        };
        put("time", rfc3339_millis(self.time).into());
        put("ugi", self.user.unwrap_or("-").into());
        if let Some(caller) = self.caller {
            put("principal", caller.principal.as_str().into());
            put("auth", caller.method.name().into());
        }
        put("ip", self.ip.to_string().into());
        put("cmd", self.command.into());
        put("objects", self.targets.named.clone().into());
        if self.targets.omitted > 0 {
            put("objects_more", self.targets.omitted.into());
        }
        match self.outcome {
            CallOutcome::Ok => put("outcome", "ok".into()),
            CallOutcome::Failed { kind, message } => {
                put("outcome", (*kind).into());
                put("message", message.prefix.as_str().into());
                if message.is_cut() {
                    put("message_chars", message.chars.into());
                }
            }
        }
        put(
            "duration_us",
            u64::try_from(self.duration.as_micros())
                .unwrap_or(u64::MAX)
                .into(),
        );
        let mut line = serde_json::Value::Object(object).to_string();
        line.push('\n');
        line
    }
}

/// `time` as RFC 3339 in UTC, to the millisecond: `2025-01-02T03:04:05.678Z`.
pub fn rfc3339_millis(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX);
    let moment = DateTime::from_epoch_seconds(seconds);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
        since_epoch.subsec_millis()
    )
}

/// Appends `text` with backslashes, quotes and every control character escaped, so that a
/// line stays one line of printable fields whatever a client named.
fn push_escaped(line: &mut String, text: &str) {
    for character in text.chars() {
        match character {
            '\\' => line.push_str("\\\\"),
            '"' => line.push_str("\\\""),
            '\t' => line.push_str("\\t"),
            '\n' => line.push_str("\\n"),
            '\r' => line.push_str("\\r"),
            control if control.is_control() => {
                let _ = write!(line, "\\u{{{:x}}}", u32::from(control));
            }
            other => line.push(other),
        }
    }
}

/// What the writer is asked to do.
enum Command {
    /// Write a line.
    Line(String),
    /// Open the file again (SIGHUP).
    Reopen,
    /// Write what is buffered, then say so.
    Flush(Sender<()>),
}

/// The audit log: formats records and queues their lines for its writer thread.
pub struct AuditLog {
    format: AuditFormat,
    sender: Option<Sender<Command>>,
    writer: Mutex<Option<JoinHandle<()>>>,
    write_errors: Arc<AtomicU64>,
}

impl AuditLog {
    /// Starts the audit log `settings` describe; `None` when it is off. The file is opened
    /// here, so that a path that cannot be written is an error at start.
    pub fn start(settings: &AuditSettings) -> io::Result<Option<AuditLog>> {
        let sink = match &settings.destination {
            AuditDestination::Off => return Ok(None),
            AuditDestination::Stderr => Sink::Stderr,
            AuditDestination::File(path) => Sink::File {
                file: open_file(path)?,
                path: path.clone(),
            },
        };
        let (sender, receiver) = crossbeam_channel::bounded(AUDIT_QUEUE_LINES_MAX);
        let write_errors = Arc::new(AtomicU64::new(0));
        let writer = Writer {
            output: BufWriter::with_capacity(AUDIT_WRITE_BUFFER_BYTES, sink),
            write_errors: Arc::clone(&write_errors),
            unreported_errors: 0,
            last_report: None,
        };
        let handle = std::thread::Builder::new()
            .name("audit-log".to_string())
            .spawn(move || writer.run(&receiver))?;
        Ok(Some(AuditLog {
            format: settings.format,
            sender: Some(sender),
            writer: Mutex::new(Some(handle)),
            write_errors,
        }))
    }

    /// Queues `record`'s line; waits while the queue is full.
    pub fn write(&self, record: &AuditRecord<'_>) {
        self.send(Command::Line(record.line(self.format)));
    }

    /// Asks the writer to open the file again (after logrotate moved it).
    pub fn reopen(&self) {
        self.send(Command::Reopen);
    }

    /// Waits until every line queued before is written out.
    pub fn flush(&self) {
        let (done, flushed) = crossbeam_channel::bounded(1);
        self.send(Command::Flush(done));
        // The writer answers every flush it receives; a writer gone has nothing buffered.
        let _ = flushed.recv();
    }

    /// How many writes failed.
    pub fn write_errors(&self) -> u64 {
        self.write_errors.load(Ordering::Relaxed)
    }

    fn send(&self, command: Command) {
        if let Some(sender) = &self.sender {
            if sender.send(command).is_err() {
                self.write_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for AuditLog {
    /// Ends the writer after it wrote and flushed every queued line.
    fn drop(&mut self) {
        drop(self.sender.take());
        let writer = self
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(writer) = writer {
            let _ = writer.join();
        }
    }
}

fn open_file(path: &PathBuf) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .mode(AUDIT_FILE_MODE)
        .open(path)
        .map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("cannot open audit log {}: {error}", path.display()),
            )
        })
}

/// Where the writer's bytes go.
enum Sink {
    Stderr,
    File { file: File, path: PathBuf },
}

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            // Whole buffers under the lock, so the main log's lines never cut an audit line.
            Sink::Stderr => io::stderr().lock().write_all(bytes).map(|()| bytes.len()),
            Sink::File { file, .. } => file.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stderr => io::stderr().lock().flush(),
            Sink::File { file, .. } => file.flush(),
        }
    }
}

/// The writer thread's state.
struct Writer {
    output: BufWriter<Sink>,
    write_errors: Arc<AtomicU64>,
    unreported_errors: u64,
    last_report: Option<Instant>,
}

impl Writer {
    /// Writes what arrives, flushing whenever the queue runs empty, until every sender is
    /// gone; then flushes.
    fn run(mut self, receiver: &Receiver<Command>) {
        loop {
            let command = match receiver.try_recv() {
                Ok(command) => command,
                Err(TryRecvError::Empty) => {
                    self.flush();
                    match receiver.recv() {
                        Ok(command) => command,
                        Err(_) => break,
                    }
                }
                Err(TryRecvError::Disconnected) => break,
            };
            match command {
                Command::Line(line) => {
                    let written = self.output.write_all(line.as_bytes());
                    self.check(written, "writing");
                }
                Command::Reopen => self.reopen(),
                Command::Flush(done) => {
                    self.flush();
                    let _ = done.send(());
                }
            }
        }
        self.flush();
    }

    fn flush(&mut self) {
        let flushed = self.output.flush();
        self.check(flushed, "flushing");
    }

    fn reopen(&mut self) {
        self.flush();
        let Sink::File { path, .. } = self.output.get_ref() else {
            return;
        };
        let path = path.clone();
        match open_file(&path) {
            Ok(file) => {
                *self.output.get_mut() = Sink::File {
                    file,
                    path: path.clone(),
                };
                tracing::info!(path = %path.display(), "audit log reopened");
            }
            Err(error) => {
                tracing::error!(%error, "audit log not reopened; writing on to the file open")
            }
        }
    }

    /// Counts a failed write, and logs failures at most once an interval.
    fn check(&mut self, result: io::Result<()>, doing: &str) {
        let Err(error) = result else {
            return;
        };
        self.write_errors.fetch_add(1, Ordering::Relaxed);
        self.unreported_errors += 1;
        let now = Instant::now();
        let due = self
            .last_report
            .is_none_or(|last| now.duration_since(last) >= AUDIT_ERROR_REPORT_INTERVAL);
        if due {
            tracing::error!(
                %error,
                failures = self.unreported_errors,
                "audit log: {doing} failed; lines are lost until it writes again"
            );
            self.unreported_errors = 0;
            self.last_report = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_keeps_a_prefix_and_counts_characters() {
        let quoted = Quoted::of("héllo", 2);
        assert_eq!(quoted.prefix, "hé");
        assert_eq!(quoted.chars, 5);
        assert!(quoted.is_cut());
        let whole = Quoted::of("abc", 3);
        assert_eq!(whole.prefix, "abc");
        assert!(!whole.is_cut());
        assert_eq!(Quoted::of("", 3).prefix, "");
    }

    #[test]
    fn times_are_rfc3339_utc_to_the_millisecond() {
        let time = UNIX_EPOCH + Duration::from_millis(1_735_787_045_678);
        assert_eq!(rfc3339_millis(time), "2025-01-02T03:04:05.678Z");
        assert_eq!(rfc3339_millis(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn control_characters_are_escaped() {
        let mut line = String::new();
        push_escaped(&mut line, "a\tb\nc\u{1b}[31md\"\\");
        assert_eq!(line, "a\\tb\\nc\\u{1b}[31md\\\"\\\\");
        assert!(!line.chars().any(char::is_control));
    }

    #[test]
    fn an_authenticated_failed_call_has_every_field_in_both_formats() {
        let caller = Caller {
            principal: "alice/host@EXAMPLE.COM".to_string(),
            user: "alice".to_string(),
            method: crate::auth::AuthMethod::Kerberos,
        };
        let targets = CallTargets {
            named: vec!["tbl=hive.s.a".to_string(), "tbl=hive.s.b".to_string()],
            omitted: 3,
        };
        let message = "x".repeat(AUDIT_MESSAGE_CHARS_MAX + 5);
        let outcome = CallOutcome::failed("MetaException", &message);
        let record = AuditRecord {
            time: UNIX_EPOCH + Duration::from_millis(1_735_787_045_678),
            user: Some("alice"),
            caller: Some(&caller),
            ip: IpAddr::from([10, 0, 0, 7]),
            command: "get_table_objects_by_name",
            targets: &targets,
            outcome: &outcome,
            duration: Duration::from_micros(1234),
        };
        let prefix = "x".repeat(AUDIT_MESSAGE_CHARS_MAX);
        assert_eq!(
            record.line(AuditFormat::Text),
            format!(
                "2025-01-02T03:04:05.678Z\tugi=alice\tprincipal=alice/host@EXAMPLE.COM\t\
                 auth=KERBEROS\tip=10.0.0.7\tcmd=get_table_objects_by_name : tbl=hive.s.a, \
                 tbl=hive.s.b +3 more\toutcome=MetaException\tmessage=\"{prefix}\"\t\
                 message_chars={}\tduration_us=1234\n",
                AUDIT_MESSAGE_CHARS_MAX + 5
            )
        );
        let json: serde_json::Value =
            serde_json::from_str(&record.line(AuditFormat::Json)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "time": "2025-01-02T03:04:05.678Z",
                "ugi": "alice",
                "principal": "alice/host@EXAMPLE.COM",
                "auth": "KERBEROS",
                "ip": "10.0.0.7",
                "cmd": "get_table_objects_by_name",
                "objects": ["tbl=hive.s.a", "tbl=hive.s.b"],
                "objects_more": 3,
                "outcome": "MetaException",
                "message": prefix,
                "message_chars": AUDIT_MESSAGE_CHARS_MAX + 5,
                "duration_us": 1234,
            })
        );
    }

    #[test]
    fn failed_writes_are_counted() {
        // Every write to /dev/full fails with ENOSPC.
        let settings = AuditSettings {
            destination: AuditDestination::File(PathBuf::from("/dev/full")),
            format: AuditFormat::Text,
        };
        let log = AuditLog::start(&settings).unwrap().unwrap();
        assert_eq!(log.write_errors(), 0);
        let targets = CallTargets::default();
        log.write(&AuditRecord {
            time: SystemTime::now(),
            user: None,
            caller: None,
            ip: IpAddr::from([127, 0, 0, 1]),
            command: "getStatus",
            targets: &targets,
            outcome: &CallOutcome::Ok,
            duration: Duration::ZERO,
        });
        log.flush();
        assert!(log.write_errors() >= 1);
    }

    #[test]
    fn destinations_and_formats_parse() {
        assert_eq!(AuditDestination::parse("off"), Ok(AuditDestination::Off));
        assert_eq!(
            AuditDestination::parse("STDERR"),
            Ok(AuditDestination::Stderr)
        );
        assert_eq!(
            AuditDestination::parse("/var/log/a.log"),
            Ok(AuditDestination::File(PathBuf::from("/var/log/a.log")))
        );
        assert!(AuditDestination::parse(" ").is_err());
        assert_eq!(AuditFormat::parse("JSON"), Ok(AuditFormat::Json));
        assert!(AuditFormat::parse("xml").is_err());
    }

    #[test]
    fn more_lines_than_the_queue_holds_are_all_written_in_order() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("audit.log");
        let settings = AuditSettings {
            destination: AuditDestination::File(path.clone()),
            format: AuditFormat::Text,
        };
        let log = AuditLog::start(&settings).unwrap().unwrap();
        let targets = CallTargets::default();
        let lines = AUDIT_QUEUE_LINES_MAX * 3;
        for index in 0..lines {
            let command = format!("call_{index}");
            log.write(&AuditRecord {
                time: SystemTime::now(),
                user: None,
                caller: None,
                ip: IpAddr::from([127, 0, 0, 1]),
                command: &command,
                targets: &targets,
                outcome: &CallOutcome::Ok,
                duration: Duration::from_micros(1),
            });
        }
        drop(log);
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written.lines().count(), lines);
        let last = written.lines().last().unwrap();
        assert!(
            last.contains(&format!("cmd=call_{}\t", lines - 1)),
            "{last}"
        );
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, AUDIT_FILE_MODE);
    }
}
